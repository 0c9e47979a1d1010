/**
 * Inside the checker's worker thread: running one check within its time budget. A check past it is
 * interrupted where it is (V8 terminates the script `vm` runs, and the thread lives on), so a hostile
 * check costs its thread one budget, not a restart. The compiler is then asked a check whose answer is
 * known before the thread is trusted again.
 */

import vm from "node:vm";
import type { ModelCodeChecker } from "./checker-core.js";

/** A program with exactly two errors, on lines 1 and 2 (TS2322): the compiler must still find both. */
const CANARY_CODE = `const n: number = "one";
const s: string = 2;
return [n, s];`;

const context = vm.createContext({ run: undefined });
const script = new vm.Script("run()");

/** What a check within its budget came to: its value, or interrupted at the budget. */
export type Within<T> = { done: true; value: T } | { done: false };

/** Runs `work` for at most `timeMs`; a throw from `work` is thrown on. */
export function within<T>(timeMs: number, work: () => T): Within<T> {
  context.run = work;
  try {
    return { done: true, value: script.runInContext(context, { timeout: timeMs }) as T };
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return { done: false };
    throw error;
  } finally {
    context.run = undefined;
  }
}

/** Whether the compiler answers the canary as it must, within `timeMs`, after a check was interrupted. */
export function stillSound(checker: ModelCodeChecker, timeMs: number): boolean {
  try {
    const outcome = within(timeMs, () =>
      checker.check({ code: CANARY_CODE, aliases: [], session: { values: [], types: [] } }),
    );
    if (!outcome.done) return false;
    const { errorCount, diagnostics } = outcome.value;
    return (
      errorCount === 2 && diagnostics.map(({ line, code }) => `${line}:${code}`).join(" ") === "1:2322 2:2322"
    );
  } catch {
    return false;
  }
}
