/** Small helpers shared by the built-in tools: numbers for the model, waiting with a signal. */

/** `1,000,000 bytes` — exact, so the text the model reads matches the constant. */
export function formatBytes(bytes: number): string {
  return `${bytes.toLocaleString("en-US")} bytes`;
}

/** `15 s`, `5 minutes`, `250 ms`: a duration as a person says it. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  if (seconds < 120 || seconds % 60 !== 0) return `${Number(seconds.toFixed(1))} s`;
  const minutes = seconds / 60;
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/** Settles like `work`, or rejects with the signal's reason as soon as it aborts. `work` runs on. */
export function raceSignal<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
