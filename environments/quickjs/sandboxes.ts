/**
 * The QuickJS environment's sandboxes: each opened in a fresh WebAssembly instance, with one spare made
 * ahead while the agent's thread has nothing else to do. Evaluating the prelude in a new instance
 * takes QuickJS ~10-20 ms of this thread; a spare moves that off the path of the next run.
 */

import type { QuickJSSyncVariant } from "quickjs-emscripten-core";
import { UserError } from "../../common/errors.js";
import type { Sandbox, SandboxLimits } from "../../sandbox/contract/index.js";
import { loadQuickJS, type QuickJSInstances } from "./load.js";
import { QuickJSSandbox } from "./sandbox.js";

/** A spare sandbox, and the memory limit it was made for (the other limits are each run's). */
interface Spare {
  memoryMb: number;
  sandbox: Promise<QuickJSSandbox | undefined>;
}

/** Opens sandboxes, keeps a spare when `warm`, and frees them all on close. */
export class QuickJSSandboxes {
  readonly #variant: QuickJSSyncVariant | undefined;
  readonly #warm: boolean;
  readonly #live = new Set<Sandbox>();
  #instances: Promise<QuickJSInstances> | undefined;
  #spare: Spare | undefined;
  #closed = false;

  constructor(variant: object | undefined, warm: boolean) {
    // The caller's build, as quickjs-emscripten types it (see QuickJSVariant).
    this.#variant = variant as QuickJSSyncVariant | undefined;
    this.#warm = warm;
  }

  /** A sandbox for these limits: the spare when it was made for the same memory limit, else a new one. */
  async open(limits: SandboxLimits): Promise<Sandbox> {
    if (this.#closed) throw new UserError("This QuickJS environment was closed; create a new one.");
    const spare = this.#spare;
    this.#spare = undefined;
    let sandbox = spare?.memoryMb === limits.memoryMb ? await spare.sandbox : undefined;
    if (spare !== undefined && sandbox === undefined) void spare.sandbox.then((unused) => unused?.dispose());
    sandbox ??= await this.#make(limits);
    this.#live.add(sandbox);
    this.#prepare(limits);
    return sandbox;
  }

  /** Frees every sandbox, the spare with them. */
  async close(): Promise<void> {
    this.#closed = true;
    const spare = this.#spare;
    this.#spare = undefined;
    await Promise.all([
      ...[...this.#live].map((sandbox) => sandbox.dispose()),
      spare?.sandbox.then((unused) => unused?.dispose()),
    ]);
    this.#live.clear();
  }

  async #make(limits: SandboxLimits): Promise<QuickJSSandbox> {
    this.#instances ??= loadQuickJS(this.#variant).catch((error: unknown) => {
      this.#instances = undefined;
      throw new UserError(error instanceof Error ? error.message : String(error));
    });
    const instance = await (await this.#instances)();
    let made: QuickJSSandbox | undefined;
    made = QuickJSSandbox.open(instance, limits, () => {
      if (made) this.#live.delete(made);
    });
    return made;
  }

  /** Makes the next spare once the thread is free (a timer: the current run starts first). */
  #prepare(limits: SandboxLimits): void {
    if (!this.#warm || this.#closed) return;
    const sandbox = new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() =>
      this.#closed ? undefined : this.#make(limits).catch(() => undefined),
    );
    this.#spare = { memoryMb: limits.memoryMb, sandbox };
  }
}
