/**
 * The memory limit of a QuickJS sandbox, in bytes of its WebAssembly instance's linear memory.
 * QuickJS's own limit cannot be it: in quickjs-emscripten's builds it counts about 8 bytes per
 * allocation whatever its size (malloc_usable_size is 0 under Emscripten), so it bounds how many
 * allocations live, not their bytes. The instance's memory is what the agent's process really holds
 * for the sandbox, and it only grows: Emscripten's allocator asks for more through the memory's
 * `grow`, which the cap refuses past the limit, so that the allocation fails inside QuickJS (its
 * out-of-memory error) before a byte is taken.
 */

import type { QuickJSWASMModule } from "quickjs-emscripten-core";

/** The size of a WebAssembly memory page, in bytes. */
const PAGE_BYTES = 65_536;

/** The part of a WebAssembly.Memory used here (the global is not in this project's type library). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** What one run sees of its sandbox's memory. */
export interface MemoryWatch {
  /**
   * True when the instance's memory is past its cap: it grew other than through `grow` (a build that
   * grows it from inside the WebAssembly), which the checks during and between stretches then catch.
   */
  readonly over: boolean;
  /**
   * True when a request to grow the memory was refused during this run and none succeeded since: an
   * allocation just failed for lack of room (QuickJS threw its out-of-memory error, or `null` when it
   * had no room left even for that error).
   */
  readonly full: boolean;
}

/** The cap on one instance's memory. */
export interface MemoryCap {
  /** The most bytes the instance's memory may hold: its size when capped plus the limit. */
  readonly capBytes: number;
  /** A watch for a run that starts now. */
  watchRun(): MemoryWatch;
}

/**
 * Caps `instance`'s memory at its current size plus `limitBytes`: a request to grow it past that is
 * refused (a RangeError to Emscripten, which makes the allocation fail). Throws an Error when the
 * build does not expose its memory.
 */
export function capMemory(instance: QuickJSWASMModule, limitBytes: number): MemoryCap {
  let memory: WasmMemory;
  try {
    memory = instance.getWasmMemory();
  } catch (error) {
    throw new Error(
      "this QuickJS build does not expose its WebAssembly memory (getWasmMemory), so its memory limit " +
        "cannot be held; use a build of quickjs-emscripten that does, such as @jitl/quickjs-wasmfile-release-sync.",
      { cause: error },
    );
  }
  const capBytes = memory.buffer.byteLength + Math.ceil(limitBytes / PAGE_BYTES) * PAGE_BYTES;
  const grow = memory.grow.bind(memory);
  let refusals = 0;
  let full = false;
  // Emscripten grows the heap through this method of the memory it holds: an own property takes its place.
  memory.grow = (pages: number): number => {
    try {
      if (memory.buffer.byteLength + pages * PAGE_BYTES > capBytes) {
        throw new RangeError(`The sandbox's memory is capped at ${capBytes} bytes.`);
      }
      const before = grow(pages);
      full = false;
      return before;
    } catch (error) {
      refusals++;
      full = true;
      throw error;
    }
  };
  guardHostCopies(instance);
  return {
    capBytes,
    watchRun() {
      const refusalsBefore = refusals;
      return {
        get over() {
          return memory.buffer.byteLength > capBytes;
        },
        get full() {
          return full && refusals > refusalsBefore;
        },
      };
    },
  };
}

/**
 * quickjs-emscripten copies a host string into the instance (a tool's result, the code) with the
 * module's `_malloc` and does not check for null: with the heap full to its cap it would write the
 * string over the instance's first bytes. The copy throws instead, which ends the stretch.
 */
function guardHostCopies(instance: QuickJSWASMModule): void {
  // The FFI's `module` is the Emscripten module quickjs-emscripten's own calls go through.
  const module = (instance.getFFI() as unknown as { module?: { _malloc?: (size: number) => number } }).module;
  const malloc = module?._malloc;
  if (module === undefined || typeof malloc !== "function") return;
  module._malloc = (size: number): number => {
    const pointer = malloc(size);
    if (pointer === 0 && size > 0) {
      throw new RangeError(`The sandbox's memory has no room for ${size} bytes from the host.`);
    }
    return pointer;
  };
}
