/** The longest wait between two attempts of a call. */
export const MAX_RETRY_DELAY_MS = 5_000;

/** The first wait between attempts when the dispatcher sets none; it doubles after each retry. */
export const DEFAULT_RETRY_DELAY_MS = 250;

/** The wait before attempt `failedAttempt + 1`: exponential from `baseMs`, capped at 5 s. */
export function backoffDelay(failedAttempt: number, baseMs: number = DEFAULT_RETRY_DELAY_MS): number {
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** (failedAttempt - 1));
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
