// The bare isolated-vm round trip a proxied call is built on, for benchmarks that set their figures
// beside it (bench/codemode.ts, bench/pause.ts).
import ivm from "isolated-vm";

/**
 * The bare primitive a proxied call is built on: code in an isolate awaiting `ref.apply(..., { result:
 * { promise: true } })` of an async host function, n times in a row, each time with the last result; or,
 * with `applySyncPromise`, waiting inside the call for the host's promise (one crossing, no second task);
 * or, with `applySync`, calling a synchronous host function (cordon's crossing for a call awaited alone).
 */
export async function bareRoundTrip(
  host: (s: number) => number | Promise<number>,
  how: "apply" | "applySyncPromise" | "applySync" = "apply",
): Promise<{ run(n: number): Promise<void>; dispose(): void }> {
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  const context = await isolate.createContext();
  const hostRef = new ivm.Reference(host);
  const call = {
    apply: "await host.apply(undefined, [s], { result: { promise: true } })",
    applySyncPromise: "host.applySyncPromise(undefined, [s])",
    applySync: "host.applySync(undefined, [s])",
  }[how];
  const make = await context.eval(
    `(function (host) { return async function (n) { let s = 0; for (let i = 0; i < n; i++) s = ${call}; return s; }; })`,
    { reference: true },
  );
  const loopRef = await make.apply(undefined, [hostRef], { result: { reference: true } });
  return {
    async run(n: number) {
      const result = await loopRef.apply(undefined, [n], { result: { promise: true } });
      if (result !== n) throw new Error(`bare round trip: expected ${n}, got ${String(result)}`);
    },
    dispose() {
      isolate.dispose();
    },
  };
}

/**
 * The same loop with no thread crossing at all: this thread runs the isolate's code (applySync, which
 * isolated-vm runs on the calling thread) and the code calls a synchronous host function back, also on
 * this thread. What a call would cost if model code ran on the agent's own thread; cordon does not run it
 * there, since code that computes, or that V8 cannot stop in native code, would then hold the agent's
 * event loop (its timers, its other requests) for as long as it runs.
 */
export async function inThreadRoundTrip(): Promise<{ run(n: number): void; dispose(): void }> {
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  const context = await isolate.createContext();
  const hostRef = new ivm.Reference((s: number) => s + 1);
  const make = await context.eval(
    "(function (host) { return function (n) { let s = 0; (async () => { for (let i = 0; i < n; i++) s = await host.applySync(undefined, [s]); })(); return () => s; }; })",
    { reference: true },
  );
  const loopRef = await make.apply(undefined, [hostRef], { result: { reference: true } });
  return {
    run(n: number) {
      // Every await meets a value already there, so the loop ends inside this one synchronous call.
      const read = loopRef.applySync(undefined, [n], { result: { reference: true } }) as ivm.Reference<
        () => number
      >;
      const result = read.applySync(undefined, []);
      if (result !== n) throw new Error(`in-thread round trip: expected ${n}, got ${String(result)}`);
    },
    dispose() {
      isolate.dispose();
    },
  };
}
