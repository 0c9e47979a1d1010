/**
 * The cap on a QuickJS instance's WebAssembly memory (environments/quickjs/memory.ts), on a real
 * instance of the default build: growth past its size when capped plus the limit is refused before a
 * byte is taken, a run is told when its allocation failed for lack of room, a host copy that does not
 * fit fails instead of landing at address 0, and memory that grew without asking (as a build growing
 * from inside the WebAssembly would) is seen.
 */

import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import { describe, expect, it } from "vitest";
import { loadQuickJS } from "../../environments/quickjs/load.js";
import { capMemory } from "../../environments/quickjs/memory.js";

const PAGE = 65_536;
const MB = 2 ** 20;

/** A fresh instance of the default build, and its memory as Emscripten holds it. */
async function instance(): Promise<{ module: QuickJSWASMModule; memory: WasmMemory }> {
  const module = await (await loadQuickJS())();
  return { module, memory: module.getWasmMemory() };
}

interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

describe("quickjs: the cap on a sandbox's WebAssembly memory", () => {
  it("refuses to grow the memory past its size when capped plus the limit, taking nothing", async () => {
    const { module, memory } = await instance();
    const baseline = memory.buffer.byteLength;
    const cap = capMemory(module, 4 * MB);
    expect(cap.capBytes).toBe(baseline + 4 * MB);
    expect(() => memory.grow((5 * MB) / PAGE)).toThrow(RangeError);
    expect(memory.buffer.byteLength).toBe(baseline);
    memory.grow((4 * MB) / PAGE);
    expect(memory.buffer.byteLength).toBe(baseline + 4 * MB);
    expect(() => memory.grow(1)).toThrow(/capped at \d+ bytes/);
  });

  it("tells a run its heap is full from a refused growth until one succeeds, and not a later run", async () => {
    const { module, memory } = await instance();
    const cap = capMemory(module, 4 * MB);
    const run = cap.watchRun();
    expect(run.full).toBe(false);
    expect(() => memory.grow((8 * MB) / PAGE)).toThrow(RangeError);
    expect(run.full).toBe(true);
    expect(cap.watchRun().full).toBe(false);
    memory.grow(1);
    expect(run.full).toBe(false);
  });

  it("sees memory that grew without asking the cap as over it", async () => {
    const { module, memory } = await instance();
    const run = capMemory(module, 1 * MB).watchRun();
    expect(run.over).toBe(false);
    // The memory's own method, not the cap's: as a build that grows from inside the WebAssembly does.
    Object.getPrototypeOf(memory).grow.call(memory, (2 * MB) / PAGE);
    expect(run.over).toBe(true);
  });

  it("makes a host copy that does not fit throw, instead of writing it at address 0 of the instance", async () => {
    const { module } = await instance();
    capMemory(module, 1 * MB);
    const emscripten = (module.getFFI() as unknown as { module: { _malloc(size: number): number } }).module;
    expect(emscripten._malloc(64)).toBeGreaterThan(0);
    expect(() => emscripten._malloc(32 * MB)).toThrow(/no room for 33554432 bytes from the host/);
  });

  it("refuses a build that does not expose its memory, saying what to use", () => {
    const build = {
      getWasmMemory(): never {
        throw new Error("Variant does not support getting WebAssembly.Memory");
      },
    } as unknown as QuickJSWASMModule;
    expect(() => capMemory(build, MB)).toThrow(
      /does not expose its WebAssembly memory \(getWasmMemory\), so its memory limit cannot be held; use .*@jitl\/quickjs-wasmfile-release-sync/,
    );
  });
});
