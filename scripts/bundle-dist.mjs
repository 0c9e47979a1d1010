// The build's last step. tsc compiles each module of cordon into its own file under dist/ (in the source
// layout); Node would then resolve, read and link some 200 files one by one before `cordon run` could
// start, a third of its start-up. esbuild bundles them here into the files Node loads: one file per entry
// point plus chunks of the code they share (dist/chunks/), packages left as imports. The library's
// entries are bundled together so that the `cordon` command and a tools module importing `cordon` share
// one copy of every class; the programs started on their own (the sandbox host, the type checker's
// worker, the module hook) are each bundled whole. Declarations (.d.ts) stay as tsc wrote them.
import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
/** The package's entries (package.json "exports"), by specifier, as scripts/entries.json lists them. */
const entries = JSON.parse(readFileSync(new URL("./entries.json", import.meta.url), "utf8"));
/** Entry points of the package (package.json "exports" and "bin"): they share chunks. */
const LIBRARY = [
  ...Object.keys(entries).map((specifier) =>
    specifier === "cordon" ? "index.js" : `${specifier.slice("cordon/".length)}.js`,
  ),
  "src/cli/bin.js",
];
/** Files started by path in a process, thread or loader of their own: each is bundled whole. */
const STANDALONE = [
  "sandbox/program/main.js",
  "src/codemode/typecheck/worker.js",
  "src/cli/cordon-resolve-hook.js",
];

const out = mkdtempSync(join(tmpdir(), "cordon-bundle-"));
const common = {
  outdir: out,
  outbase: dist,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  logLevel: "warning",
};
try {
  await build({
    ...common,
    entryPoints: LIBRARY.map((entry) => join(dist, entry)),
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
  });
  await build({ ...common, entryPoints: STANDALONE.map((entry) => join(dist, entry)) });
  // Only the bundles are loaded: tsc's per-module files would be a second copy nobody imports.
  for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
    // `parentPath` is Node 20.12's name for what 20.1 to 20.11 call `path`.
    if (entry.isFile() && entry.name.endsWith(".js"))
      rmSync(join(entry.parentPath ?? entry.path, entry.name));
  }
  cpSync(out, dist, { recursive: true });
} finally {
  rmSync(out, { recursive: true, force: true });
}
// The `cordon` executable (package.json "bin"): npm marks it executable on install; so does the build.
chmodSync(join(dist, "src/cli/bin.js"), 0o755);
