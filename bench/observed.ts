// What learning result types costs a call: the store's record (a sampled result, one that is only
// counted), observing one value of a few sizes, and a call through the dispatcher (runCall, what code
// mode's calls use) and a run of sequential calls from code with observation on and off, in the same
// run. Every measured call is checked. Run: make bench (it measures the built package: "cordon"
// resolves to dist/).

import { codeMode, Dispatcher, ObservedTypes, renderValue, Toolset, tool } from "cordon";
import { observeValue } from "cordon/discovery";
import { isolateEnvironment } from "cordon/in-process";
import { z } from "zod";
import { OBSERVE_EVERY_NTH_RESULT, OBSERVE_FIRST_RESULTS } from "../src/codemode/observed/store.js";
import { checked } from "./check.js";
import { fmt, median, sample } from "./stats.js";

/** A result such as an API returns for one record: a dozen keys, a nested object, a short array. */
const ORDER = {
  id: "A123",
  status: "shipped",
  amount: 42.5,
  currency: "EUR",
  paid: true,
  customer: { id: "c-1", name: "Ada", email: "ada@example.com", tier: "gold" },
  items: [
    { sku: "k-1", qty: 1, price: 20 },
    { sku: "k-2", qty: 2, price: 11.25 },
  ],
  note: null,
  created: "2026-01-02T03:04:05Z",
};
/** A listing: 1,000 such records (observing looks at the first ones only). */
const LISTING = Array.from({ length: 1_000 }, (_, i) => ({ ...ORDER, id: `A${i}` }));

// 1. The store and observeValue alone.
const N = 20_000;
const store = new ObservedTypes();
const recordMany = (value: unknown) => () => {
  for (let i = 0; i < 100; i++) store.record("get_order", value);
};
await sample(200, recordMany(ORDER));
const perRecord = median(await sample(N / 100, recordMany(ORDER))) / 100;
const observeOrder = median(await sample(N, () => observeValue(ORDER)));
const observeListing = median(await sample(2_000, () => observeValue(LISTING)));
// What every call of such a tool costs anyway: its default rendering to JSON.
const renderListing = median(await sample(500, () => renderValue(LISTING)));
const firstStore = () => {
  const fresh = new ObservedTypes();
  for (let i = 0; i < OBSERVE_FIRST_RESULTS; i++) fresh.record("get_order", ORDER);
};
const firstResults = median(await sample(2_000, firstStore)) / OBSERVE_FIRST_RESULTS;

console.log("learnt result types: the cost of recording a result (same run)");
console.log(
  `  observeValue, one ${Object.keys(ORDER).length}-key record:           ${fmt(observeOrder, "µs")} median`,
);
console.log(
  `  observeValue, 1,000 such records:          ${fmt(observeListing, "µs")} median (bounded: the first elements stand for the rest); rendering them: ${fmt(renderListing, "µs")}`,
);
console.log(
  `  record(), each of a tool's first ${OBSERVE_FIRST_RESULTS}:       ${fmt(firstResults, "µs")} median (observed and merged)`,
);
console.log(
  `  record(), steady state:                    ${fmt(perRecord, "µs")} per result (1 in ${OBSERVE_EVERY_NTH_RESULT} observed)`,
);

// 2. One call through the dispatcher, and sequential calls from code, with observation on and off.
const getOrder = tool({
  name: "get_order",
  description: "One order.",
  input: z.object({ id: z.string() }),
  run: ({ id }) => ({ ...ORDER, id }),
});
const CALLS = 500;
const setups = [true, false].map((observeResults) => {
  const toolset = new Toolset([getOrder]);
  const dispatcher = new Dispatcher(toolset);
  const cm = codeMode({
    dispatcher,
    environment: isolateEnvironment(),
    limits: { maxToolCalls: CALLS },
    observe: { results: observeResults },
  });
  const run = dispatcher.openRun({ callId: "bench", toolName: "run_code" });
  const oneCall = async () => {
    const { value } = await dispatcher.runCall(
      { id: "c", name: "get_order", arguments: { id: "A1" } },
      { parent: run.context },
    );
    if ((value as { id?: string } | undefined)?.id !== "A1") throw new Error("runCall: wrong result");
  };
  const loop = `let n = 0; for (let i = 0; i < ${CALLS}; i++) n += (await tools.get_order({ id: "A" + i })).items.length; n`;
  return { observeResults, cm, oneCall, codeRun: checked(() => cm.run(loop), CALLS * 2, "sequential calls") };
});
const [on, off] = setups as [(typeof setups)[0], (typeof setups)[0]];
for (const s of setups) {
  await sample(3_000, s.oneCall);
  await sample(5, s.codeRun);
}
// Interleaved rounds, so that both settings meet the same load.
const calls = { on: [] as number[], off: [] as number[] };
const runs = { on: [] as number[], off: [] as number[] };
for (let round = 0; round < 20; round++) {
  calls.on.push(...(await sample(1_000, on.oneCall)));
  calls.off.push(...(await sample(1_000, off.oneCall)));
  runs.on.push(...(await sample(2, on.codeRun)));
  runs.off.push(...(await sample(2, off.codeRun)));
}
// The mean, not the median: one call in ten does the observing, and a median would hide it. The
// slowest 1% (the machine's hiccups, garbage collection) are left out of both.
const trimmedMean = (values: number[]) => {
  const kept = [...values].sort((a, b) => a - b).slice(0, Math.floor(values.length * 0.99));
  return kept.reduce((sum, v) => sum + v, 0) / kept.length;
};
const [callOn, callOff] = [trimmedMean(calls.on), trimmedMean(calls.off)];
const [runOn, runOff] = [median(runs.on) / CALLS, median(runs.off) / CALLS];
console.log("a call returning that record, observation on vs off (interleaved, same run)");
console.log(
  `  dispatcher.runCall (mean):    ${fmt(callOn, "µs")} on, ${fmt(callOff, "µs")} off: ${fmt(callOn - callOff, "µs")} added, ratio ${(callOn / callOff).toFixed(3)}x`,
);
console.log(
  `  sequential call from code:    ${fmt(runOn, "µs")} on, ${fmt(runOff, "µs")} off: ${fmt(runOn - runOff, "µs")} added, ratio ${(runOn / runOff).toFixed(3)}x  [in-process, ${CALLS} calls a run]`,
);
if (on.cm.observedTypeOf("get_order") === undefined) throw new Error("observation on: nothing was learnt");
if (off.cm.observedTypeOf("get_order") !== undefined)
  throw new Error("observation off: something was learnt");
for (const s of setups) await s.cm.close();
