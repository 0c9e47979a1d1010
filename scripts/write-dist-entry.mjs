// tsc keeps the source layout (dist/src, dist/environments, ...); dist/<entry>.js are the package's front
// doors: the main entry and one per subpath export in package.json (scripts/bundle-dist.mjs then bundles them).
import { writeFileSync } from "node:fs";

const entries = {
  index: "./src/index.js",
  openai: "./src/providers/openai.js",
  anthropic: "./src/providers/anthropic.js",
  "ai-sdk": "./src/providers/ai-sdk.js",
};

for (const [name, target] of Object.entries(entries)) {
  const line = `export * from "${target}";\n`;
  writeFileSync(new URL(`../dist/${name}.js`, import.meta.url), line);
  writeFileSync(new URL(`../dist/${name}.d.ts`, import.meta.url), line);
}
