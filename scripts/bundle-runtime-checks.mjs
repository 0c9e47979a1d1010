// Builds what scripts/runtime-matrix.sh runs, in a consumer folder whose node_modules/cordon is this
// checkout (so `cordon` is the built package, dist/, as a user's program gets it):
//   check.mjs        test/runtimes/main.ts for Bun and Deno, with cordon, zod and Node's modules left as
//                    imports that the runtime resolves (the checks, the conformance cases of
//                    test/conformance/cases.ts and what they import by path are bundled in);
//   workerd/         test/runtimes/worker.ts bundled whole into one ES module (worker.js) for workerd,
//                    QuickJS's wasm beside it as a module of its own (workerd compiles no WebAssembly at
//                    run time), and the config that serves them (test/runtimes/workerd.capnp).
// Usage: node scripts/bundle-runtime-checks.mjs <consumer folder>
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const consumer = resolve(process.argv[2] ?? "");
const sources = fileURLToPath(new URL("../test/runtimes/", import.meta.url));
mkdirSync(join(consumer, "workerd"), { recursive: true });

const common = { bundle: true, format: "esm", target: "es2022", logLevel: "warning", metafile: true };
await build({
  ...common,
  entryPoints: [join(sources, "main.ts")],
  outfile: join(consumer, "check.mjs"),
  platform: "node",
  packages: "external",
});

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
const worker = await build({
  ...common,
  entryPoints: [join(sources, "worker.ts")],
  outfile: join(consumer, "workerd/worker.js"),
  // workerd's own build of QuickJS's loader (the package's "workerd" condition), and Node's modules
  // from workerd's Node compatibility; esbuild (a native process) and TypeScript are not bundled:
  // cordon imports them on first use, which fails in workerd (the checks expect that for TypeScript).
  platform: "neutral",
  conditions: ["workerd", "worker", "import"],
  mainFields: ["module", "main"],
  external: ["node:*", "esbuild", "typescript"],
  // `cordon` is the consumer's: the built package.
  nodePaths: [join(consumer, "node_modules")],
  plugins: [wasmAsModule],
});
const wasm = createRequire(join(consumer, "package.json")).resolve(
  "@jitl/quickjs-wasmfile-release-sync/wasm",
);
copyFileSync(wasm, join(consumer, "workerd/quickjs.wasm"));
copyFileSync(join(sources, "workerd.capnp"), join(consumer, "workerd/workerd.capnp"));
const bytes = Object.values(worker.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
writeFileSync(join(consumer, "workerd/size.txt"), `${bytes}\n`);
