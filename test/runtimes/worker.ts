/**
 * The runtime matrix's Worker for workerd (scripts/runtime-matrix.sh bundles it with cordon and QuickJS
 * into one ES module, and serves it with test/runtimes/workerd.capnp on 127.0.0.1): a request runs the
 * checks of checks.ts and answers with their report. workerd refuses to compile WebAssembly at run time,
 * so QuickJS's wasm comes in as a module import (the config names it) and the environment is built on it.
 */

import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
// @ts-expect-error: a WebAssembly module that workerd provides by name (see workerd.capnp), untyped here.
import wasmModule from "@jitl/quickjs-wasmfile-release-sync/wasm";
import { quickjsEnvironment } from "cordon/quickjs";
import { newVariant, type QuickJSSyncVariant } from "quickjs-emscripten-core";
import { report, runChecks } from "./checks.js";

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
    const results = await runChecks({
      environment: () => quickjsEnvironment({ variant }),
      jsonSchemaTools: false,
      typescript: false,
      defaultEnvironment: "asks for the wasm module",
      warnings: () => warnings,
    });
    const failed = results.some((result) => !result.ok);
    return new Response(`${report("workerd", results, Date.now() - started).join("\n")}\n`, {
      status: failed ? 500 : 200,
    });
  },
};
