// tsc keeps the source layout (dist/src, dist/environments, ...); dist/<entry>.js are the package's front
// doors: the main entry and one per subpath export in package.json, as scripts/entries.json lists them
// (scripts/bundle-dist.mjs then bundles them).
import { readFileSync, writeFileSync } from "node:fs";

/** Each entry's specifier ("cordon", "cordon/openai") and its source module. */
const entries = JSON.parse(readFileSync(new URL("./entries.json", import.meta.url), "utf8"));

for (const [specifier, source] of Object.entries(entries)) {
  const name = specifier === "cordon" ? "index" : specifier.slice("cordon/".length);
  const line = `export * from "./${source.replace(/\.ts$/, ".js")}";\n`;
  writeFileSync(new URL(`../dist/${name}.js`, import.meta.url), line);
  writeFileSync(new URL(`../dist/${name}.d.ts`, import.meta.url), line);
}
