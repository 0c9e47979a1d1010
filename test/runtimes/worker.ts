/**
 * The runtime matrix's Worker for workerd (scripts/runtime-matrix.sh bundles it with cordon and QuickJS
 * into one ES module, and serves it with test/runtimes/workerd.capnp on 127.0.0.1): a request runs the
 * environment conformance cases that apply here (conformance.ts) and the checks of checks.ts, and answers
 * with their report. workerd refuses to compile WebAssembly at run time,
 * so QuickJS's wasm comes in as a module import (the config names it) and the environment is built on it.
 */

import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
// @ts-expect-error: a WebAssembly module that workerd provides by name (see workerd.capnp), untyped here.
import wasmModule from "@jitl/quickjs-wasmfile-release-sync/wasm";
import { quickjsEnvironment } from "cordon/quickjs";
import { newVariant, type QuickJSSyncVariant } from "quickjs-emscripten-core";
import { report, runChecks } from "./checks.js";
import { runConformance } from "./conformance.js";

// The package's ES module types describe its CommonJS shape; the variant is its default export.
const variant = newVariant(releaseSync as unknown as QuickJSSyncVariant, {
  wasmModule: wasmModule as WebAssembly.Module,
});

const warnings: string[] = [];
const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  warnings.push(args.map(String).join(" "));
  warn(...args);
};

export default {
  async fetch(): Promise<Response> {
    const started = Date.now();
    const conformance = await runConformance(quickjsEnvironment({ variant }), {
      typescript:
        "workerd starts no process, and esbuild, which strips TypeScript's types, runs as one (the checks hold that TypeScript is refused, and that the model is told to write JavaScript)",
    });
    const checks = await runChecks({
      environment: () => quickjsEnvironment({ variant }),
      jsonSchemaTools: false,
      typescript: false,
      defaultEnvironment: "asks for the wasm module",
      warnings: () => warnings,
    });
    const results = [...conformance.results, ...checks];
    const failed = results.some((result) => !result.ok);
    const lines = report("workerd", results, Date.now() - started, conformance.notApplicable);
    return new Response(`${lines.join("\n")}\n`, {
      status: failed ? 500 : 200,
    });
  },
};
