// Bundles bench-peers' Worker (worker.mjs, with cordon, QuickJS, @cloudflare/codemode, the AI SDK and
// zod from the bench's own install) into one ES module for workerd, QuickJS's wasm beside it as a module
// of its own (workerd compiles no WebAssembly at run time), and copies the config that serves them.
// Run from .bench-peers/ (scripts/bench-peers.sh), where the packages are installed:
//   node workerd/bundle.mjs <out folder>
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { build } from "esbuild";

const here = new URL(".", import.meta.url).pathname;
const out = resolve(process.argv[2] ?? "workerd-out");
mkdirSync(out, { recursive: true });

/** QuickJS's wasm, imported by its package's `/wasm` export, is the Worker's module "quickjs.wasm". */
const wasmAsModule = {
  name: "quickjs-wasm-module",
  setup(build) {
    build.onResolve({ filter: /^@jitl\/quickjs-wasmfile-release-sync\/wasm$/ }, () => ({
      path: "./quickjs.wasm",
      external: true,
    }));
  },
};
// The AI SDK's gateway provider imports @vercel/oidc, CommonJS that requires fs, path and os when it
// loads: workerd has them (Node compatibility) as ES modules, which this `require` hands out.
const nodeRequire = [
  'import * as __fs from "node:fs"; import * as __path from "node:path"; import * as __os from "node:os";',
  "const require = (name) => { const module = { fs: __fs, path: __path, os: __os }[name];",
  'if (module === undefined) throw new Error("bench-peers Worker: no module " + name); return module; };',
].join(" ");
await build({
  entryPoints: [join(here, "worker.mjs")],
  outfile: join(out, "worker.js"),
  bundle: true,
  format: "esm",
  target: "es2022",
  platform: "neutral",
  conditions: ["workerd", "worker", "import"],
  mainFields: ["module", "main"],
  // esbuild and TypeScript: cordon imports them on first use only, for TypeScript code (not used here).
  external: ["node:*", "cloudflare:*", "fs", "path", "os", "esbuild", "typescript"],
  banner: { js: nodeRequire },
  plugins: [wasmAsModule],
  logLevel: "warning",
});
copyFileSync(
  createRequire(join(process.cwd(), "package.json")).resolve("@jitl/quickjs-wasmfile-release-sync/wasm"),
  join(out, "quickjs.wasm"),
);
copyFileSync(join(here, "bench.capnp"), join(out, "bench.capnp"));
