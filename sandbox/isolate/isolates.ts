/**
 * The isolates behind the isolate engine's sandboxes. Creating and disposing an isolate costs
 * several times more than a context in one (about 5 ms against 1 ms here), so a sandbox that ran at most
 * one execution and ended normally gives its isolate back: the next sandbox gets a new context in it,
 * with fresh globals and built-ins. An isolate that was killed (a limit, a timeout, a cancellation) is
 * never reused, and one is retired after {@link MAX_ISOLATE_USES} sandboxes.
 */

import type ivm from "isolated-vm";
import type { IsolatedVm } from "./load.js";
import { afterTeardowns, disposeIdle, disposeRunning, noTeardowns, type Teardowns } from "./teardown.js";

/** Sandboxes one isolate serves, one after another, before it is disposed. */
const MAX_ISOLATE_USES = 500;

/**
 * Idle isolates kept, over all memory limits together: a client that asks for a new limit each run (a
 * remote one, say) cannot make the pool keep more.
 */
export const MAX_IDLE_ISOLATES = 4;

/** One isolate and the sandbox using it now (its catastrophic errors go to that sandbox). */
export interface IsolateSlot {
  readonly isolate: ivm.Isolate;
  readonly memoryMb: number;
  uses: number;
  /** Called when V8 reports it lost control of the isolate. */
  onCatastrophe: (() => void) | undefined;
  /** The prelude compiled in this isolate: each new context runs it without compiling it again. */
  prelude?: ivm.Script;
  /** Where a kill of this isolate is recorded, for its pool's close (see teardown.ts). */
  readonly teardowns: Teardowns;
}

/** A new isolate with this memory limit, in a slot of its own. */
export function newSlot(ivmModule: IsolatedVm, memoryMb: number, teardowns = noTeardowns()): IsolateSlot {
  const slot: IsolateSlot = {
    isolate: undefined as unknown as ivm.Isolate,
    memoryMb,
    uses: 1,
    onCatastrophe: undefined,
    teardowns,
  };
  (slot as { isolate: ivm.Isolate }).isolate = new ivmModule.Isolate({
    memoryLimit: memoryMb,
    onCatastrophicError: () => slot.onCatastrophe?.(),
  });
  return slot;
}

/** Idle isolates, oldest first. */
export class IsolatePool {
  readonly #ivm: IsolatedVm;
  readonly #idle: IsolateSlot[] = [];
  readonly #teardowns = noTeardowns();
  #closed = false;

  constructor(ivmModule: IsolatedVm) {
    this.#ivm = ivmModule;
  }

  /** The most recently idle isolate with this memory limit, or a new one. */
  take(memoryMb: number): IsolateSlot {
    for (let i = this.#idle.length - 1; i >= 0; i--) {
      const slot = this.#idle[i]!;
      if (slot.memoryMb !== memoryMb) continue;
      this.#idle.splice(i, 1);
      if (slot.isolate.isDisposed) continue;
      slot.uses++;
      return slot;
    }
    return newSlot(this.#ivm, memoryMb, this.#teardowns);
  }

  /**
   * Takes an isolate back after its sandbox ended normally; disposes it when it has served enough, and
   * the oldest idle one when more than {@link MAX_IDLE_ISOLATES} would be kept.
   */
  give(slot: IsolateSlot): void {
    slot.onCatastrophe = undefined;
    if (this.#closed || slot.isolate.isDisposed || slot.uses >= MAX_ISOLATE_USES) {
      disposeIdle(slot.isolate);
      return;
    }
    this.#idle.push(slot);
    if (this.#idle.length > MAX_IDLE_ISOLATES) disposeIdle(this.#idle.shift()!.isolate);
  }

  /**
   * Disposes every idle isolate (isolates given back later are disposed too), and resolves once
   * isolated-vm is done with the isolates killed before: their code stopped and their teardown over.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const slot of this.#idle.splice(0)) disposeIdle(slot.isolate);
    await afterTeardowns(this.#ivm, this.#teardowns);
  }
}

/**
 * Kills a slot's isolate, which may be running code (one isolated-vm already disposed, by its memory
 * limit, is left as it is); its pool's close waits until isolated-vm is done with it.
 */
export function kill(slot: IsolateSlot): void {
  disposeRunning(slot.isolate, slot.teardowns);
}
