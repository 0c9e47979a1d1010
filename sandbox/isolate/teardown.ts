/**
 * Disposing isolates so that nothing of them is left running when the engine says it is closed.
 *
 * isolated-vm runs an isolate's calls on threads of its own, and V8 tears the isolate down on whichever
 * thread lets go of it last, after `dispose()` has returned: on a thread of isolated-vm's pool when that
 * thread was still running the isolate (code being killed, or the end of its last call). isolated-vm 5
 * says nothing when the teardown is done, and a process that exits meanwhile dies with SIGSEGV (or
 * hangs): Node disposes V8's platform before isolated-vm's threads are joined, while the teardown still
 * uses it. So an idle isolate is torn down on this thread, and one that may be running is waited for.
 */

import type ivm from "isolated-vm";
import type { IsolatedVm } from "./load.js";

/**
 * The longest {@link afterTeardowns} waits for isolated-vm to stop code it was told to stop (V8 can
 * ignore termination inside native code, a huge sort say); past it the engine closes anyway.
 */
const MAX_STOP_WAIT_MS = 1_000;

/**
 * How long this thread gives isolated-vm's thread, once the killed code stopped, to start tearing the
 * isolate down (it then holds the lock that {@link afterTeardowns} waits on). The teardown itself is
 * waited for, not timed.
 */
const HANDOFF_MS = 2;

/** What one pool knows of the isolates it disposed while they might be running. */
export interface Teardowns {
  /** Settle once isolated-vm's thread stopped running the isolate (see {@link disposeRunning}). */
  readonly stopping: Set<Promise<void>>;
  /** An isolate was disposed while it might be running, or isolated-vm disposed one itself. */
  killed: boolean;
}

/** A new, empty record. */
export function noTeardowns(): Teardowns {
  return { stopping: new Set(), killed: false };
}

/**
 * Disposes an isolate that runs nothing (its last call settled). A synchronous call first waits until
 * isolated-vm's thread has let go of the isolate, so V8 tears it down on this thread, inside dispose().
 */
export function disposeIdle(isolate: ivm.Isolate): void {
  if (isolate.isDisposed) return;
  try {
    isolate.getHeapStatisticsSync();
  } catch {
    // Disposed concurrently (its memory limit): the dispose below has nothing left to do.
  }
  try {
    isolate.dispose();
  } catch {
    // Already disposed.
  }
}

/**
 * Disposes an isolate that may be running code: isolated-vm stops the code and tears the isolate down
 * on its own thread. A call queued just before settles once that thread has stopped the code (it runs,
 * or is refused as the isolate goes): `teardowns` keeps it for {@link afterTeardowns}.
 */
export function disposeRunning(isolate: ivm.Isolate, teardowns: Teardowns): void {
  teardowns.killed = true;
  if (isolate.isDisposed) return;
  let stopped: Promise<void> = Promise.resolve();
  try {
    stopped = isolate.getHeapStatistics().then(
      () => undefined,
      () => undefined,
    );
  } catch {
    // Disposed concurrently: there is no call to wait for.
  }
  try {
    isolate.dispose();
  } catch {
    // Disposed concurrently (its memory limit).
  }
  remember(teardowns, stopped);
}

/** {@link disposeRunning} on a later turn of the event loop; {@link afterTeardowns} waits for it too. */
export function disposeRunningLater(isolate: ivm.Isolate, teardowns: Teardowns): void {
  teardowns.killed = true;
  remember(
    teardowns,
    new Promise<void>((resolve) =>
      setImmediate(() => {
        disposeRunning(isolate, teardowns);
        resolve();
      }),
    ),
  );
}

function remember(teardowns: Teardowns, stopping: Promise<void>): void {
  teardowns.stopping.add(stopping);
  void stopping.then(() => teardowns.stopping.delete(stopping));
}

/**
 * Resolves once isolated-vm has no isolate of `teardowns` left to stop or tear down: the killed code
 * stopped (within {@link MAX_STOP_WAIT_MS}), and then a teardown under way is over, waited for by
 * creating an isolate, which isolated-vm does under the same lock as a teardown.
 */
export async function afterTeardowns(ivmModule: IsolatedVm, teardowns: Teardowns): Promise<void> {
  if (!teardowns.killed) return;
  const deadline = performance.now() + MAX_STOP_WAIT_MS;
  while (teardowns.stopping.size > 0 && performance.now() < deadline) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(teardowns.stopping),
      new Promise((resolve) => {
        timer = setTimeout(resolve, deadline - performance.now());
      }),
    ]);
    clearTimeout(timer);
  }
  await new Promise((resolve) => setTimeout(resolve, HANDOFF_MS));
  try {
    new ivmModule.Isolate({ memoryLimit: 8 }).dispose();
  } catch {
    // No isolate can be made (out of memory): there is nothing better to wait on.
  }
}
