// The bare isolated-vm round trip a proxied call is built on, for benchmarks that set their figures
// beside it (bench/codemode.ts, bench/pause.ts).
import ivm from "isolated-vm";

/**
 * The bare primitive a proxied call is built on: code in an isolate awaiting `ref.apply(..., { result:
 * { promise: true } })` of an async host function, n times in a row, each time with the last result; or,
 * with `applySyncPromise`, waiting inside the call for the host's promise (one crossing, no second task).
 */
export async function bareRoundTrip(
  host: (s: number) => Promise<number>,
  how: "apply" | "applySyncPromise" = "apply",
): Promise<{ run(n: number): Promise<void>; dispose(): void }> {
  const isolate = new ivm.Isolate({ memoryLimit: 64 });
  const context = await isolate.createContext();
  const hostRef = new ivm.Reference(host);
  const call =
    how === "apply"
      ? "await host.apply(undefined, [s], { result: { promise: true } })"
      : "host.applySyncPromise(undefined, [s])";
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
