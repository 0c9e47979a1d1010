/**
 * The QuickJS sandbox's memory limit, kept by the WebAssembly memory itself. quickjs-emscripten's own
 * limit (`setMemoryLimit`, QuickJS's malloc limit) refuses one allocation larger than the limit, but in
 * its WebAssembly builds the running total it compares against does not grow with allocations, so a
 * run could hold any number of them (ArrayBuffers, strings, arrays, objects) up to the WebAssembly
 * memory's maximum: 2 GB of the agent's process per sandbox (quickjs-emscripten issues 255 and 271).
 *
 * Each sandbox has a WebAssembly instance, and so a linear memory, of its own: it is kept from growing
 * past what it held when the sandbox opened plus the limit. QuickJS's allocator then gets no memory and
 * QuickJS throws its out-of-memory error, which ends the run as `MemoryLimit` (or which the code may
 * catch, and go on within the limit). Emscripten grows the memory by a fifth at a time when it can, so
 * an allocation may be refused a little before the limit is reached, never after.
 */

/** The size of a WebAssembly memory page, in bytes. */
const PAGE_BYTES = 65_536;

/** The part of a WebAssembly.Memory used here. */
interface GrowableMemory {
  readonly buffer: { readonly byteLength: number };
  grow(pages: number): number;
}

/**
 * Keeps `memory` (a sandbox's own instance's) from growing more than `limitBytes` past its size now: a
 * growth past that throws, as a growth past the memory's maximum does, and Emscripten's allocator
 * returns no memory. Only the host holds the memory object; the guest never sees it. Returns whether a
 * growth was refused since it was last asked.
 */
export function capMemory(memory: GrowableMemory, limitBytes: number): () => boolean {
  const maxPages = Math.ceil((memory.buffer.byteLength + limitBytes) / PAGE_BYTES);
  const grow = memory.grow;
  let refused = false;
  Object.defineProperty(memory, "grow", {
    value: (pages: number): number => {
      if (memory.buffer.byteLength / PAGE_BYTES + pages > maxPages) {
        refused = true;
        throw new RangeError("The QuickJS sandbox's memory limit was reached.");
      }
      return grow.call(memory, pages);
    },
  });
  // With no memory left, QuickJS may fail to make even its out-of-memory error: the refusal says it.
  return () => {
    const was = refused;
    refused = false;
    return was;
  };
}
