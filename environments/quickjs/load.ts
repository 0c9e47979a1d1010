/**
 * Loads QuickJS on first use (`quickjs-emscripten-core` and a WebAssembly build of QuickJS, dependencies
 * of cordon), so that importing cordon never loads them, and hands out a fresh WebAssembly instance of it
 * for each sandbox: a sandbox's heap is its instance's own linear memory, and an instance that trapped
 * is dropped whole.
 */

import type { QuickJSSyncVariant, QuickJSWASMModule } from "quickjs-emscripten-core";
import { currentRuntime } from "../../common/runtime.js";

/** The QuickJS build cordon uses when none is given: the release build of QuickJS, synchronous. */
const DEFAULT_VARIANT = "@jitl/quickjs-wasmfile-release-sync";

/**
 * workerd compiles no WebAssembly at run time, nor has QuickJS's wasm file to read: the Worker imports
 * it as a module (its bundler or config names it) and gives the environment a variant built on it.
 */
const WORKERD_NEEDS_A_WASM_MODULE =
  "In workerd, QuickJS's WebAssembly must come in as a module: import it (`import wasmModule from " +
  `"${DEFAULT_VARIANT}/wasm"\`, a wasm module in the Worker's config) and pass ` +
  "`quickjsEnvironment({ variant: newVariant(releaseSync, { wasmModule }) })`, with `newVariant` from " +
  `quickjs-emscripten-core and \`releaseSync\` the default export of ${DEFAULT_VARIANT}.`;

/** Makes a new, independent QuickJS WebAssembly instance. */
export type QuickJSInstances = () => Promise<QuickJSWASMModule>;

/**
 * A maker of QuickJS instances: from `variant` when given (a synchronous build, e.g. one whose
 * WebAssembly module a bundler imported), else from the default build, whose WebAssembly is compiled
 * once and instantiated per sandbox. Throws an Error saying what to install when the packages are missing.
 */
export async function loadQuickJS(variant?: QuickJSSyncVariant): Promise<QuickJSInstances> {
  let core: typeof import("quickjs-emscripten-core");
  try {
    core = await import("quickjs-emscripten-core");
  } catch (error) {
    throw missing("quickjs-emscripten-core", error);
  }
  let chosen = variant;
  if (chosen === undefined) {
    try {
      const module = await import("@jitl/quickjs-wasmfile-release-sync");
      // Its types describe the CommonJS shape; as an ES module, the variant is the default export.
      chosen = module.default as unknown as QuickJSSyncVariant;
    } catch (error) {
      throw missing(DEFAULT_VARIANT, error);
    }
    const compiled = await compiledWasm();
    if (compiled !== undefined) chosen = core.newVariant(chosen, { wasmModule: compiled });
    else if (currentRuntime().name === "workerd") throw new Error(WORKERD_NEEDS_A_WASM_MODULE);
  }
  // The variant imports its module loader and FFI class anew for each instance: done once here.
  const [moduleLoader, ffi] = await Promise.all([chosen.importModuleLoader(), chosen.importFFI()]);
  const made: QuickJSSyncVariant = {
    ...chosen,
    importModuleLoader: () => Promise.resolve(moduleLoader),
    importFFI: () => Promise.resolve(ffi),
  };
  return () => core.newQuickJSWASMModuleFromVariant(made);
}

/**
 * The default build's WebAssembly, compiled once, where the file can be read (Node, Bun, Deno); else
 * undefined, and each instance compiles it as its variant loads it.
 */
async function compiledWasm(): Promise<WebAssembly.Module | undefined> {
  try {
    const { createRequire } = await import("node:module");
    const { readFile } = await import("node:fs/promises");
    const path = createRequire(import.meta.url).resolve(`${DEFAULT_VARIANT}/wasm`);
    // The WebAssembly global is not in this project's type library, which has no DOM.
    const wasm = (globalThis as unknown as { WebAssembly: WasmCompiler }).WebAssembly;
    return await wasm.compile(await readFile(path));
  } catch {
    return undefined;
  }
}

/** The part of the WebAssembly global used here. */
interface WasmCompiler {
  compile(bytes: Uint8Array): Promise<WebAssembly.Module>;
}

function missing(name: string, cause: unknown): Error {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new Error(
    `The QuickJS environment needs the ${name} package, which could not be loaded. Install it with ` +
      `\`npm install quickjs-emscripten-core ${DEFAULT_VARIANT}\` (WebAssembly, no compiler needed). Cause: ${detail}`,
    { cause },
  );
}
