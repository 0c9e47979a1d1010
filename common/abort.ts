/** Waiting for work with a bound: a signal, or a time. */

/**
 * Settles like `work`, or rejects with the signal's reason as soon as it aborts (whichever is first).
 * `work` runs on either way; its later failure is never an unhandled rejection.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const forget = onAbort(signal, () => reject(signal.reason));
    work.then(
      (value) => {
        forget();
        resolve(value);
      },
      (error: unknown) => {
        forget();
        reject(error);
      },
    );
  });
}

/** The callbacks waiting on each signal, behind one listener: EventTarget's own add and remove cost more. */
const waiting = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `callback` once when `signal` aborts, unless the returned function was called first. */
function onAbort(signal: AbortSignal, callback: () => void): () => void {
  let callbacks = waiting.get(signal);
  if (!callbacks) {
    const all = new Set<() => void>();
    callbacks = all;
    waiting.set(signal, all);
    signal.addEventListener(
      "abort",
      () => {
        for (const call of all) call();
        all.clear();
      },
      { once: true },
    );
  }
  const own = callbacks;
  own.add(callback);
  return () => own.delete(callback);
}

/**
 * Settles like `work`, or rejects with `timeoutError()` when `ms` pass first. `work` goes on either way
 * (a request may still be carried out after it); its later failure is never an unhandled rejection.
 */
export async function within<T>(work: Promise<T>, ms: number, timeoutError: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  work.catch(() => {});
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(timeoutError()), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
