/**
 * A bound on a call to a Docker engine: an engine can accept a connection and never answer it, and
 * dockerode waits for ever then.
 */

/**
 * Settles like `work`, or rejects with `${what} within ${ms} ms` when it has not settled by then. `work`
 * goes on either way (its request stays with the engine, which may still carry it out); its later
 * failure is never an unhandled rejection.
 */
export async function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  work.catch(() => {});
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
