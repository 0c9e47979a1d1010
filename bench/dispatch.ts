// How much the dispatcher's pipeline costs per call, against calling the tool's function directly.
// Run: make bench (it measures the built package: "cordon" resolves to dist/).

import { Dispatcher, Toolset, tool } from "cordon";
import { z } from "zod";
import { expectResults } from "./check.js";
import { recordFigure } from "./figures.js";
import { fmt, median, sample } from "./stats.js";

const add = tool({
  name: "add",
  description: "Add two numbers.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});
const dispatcher = new Dispatcher(new Toolset([add]));
const call = { id: "c", name: "add", arguments: '{"a":1,"b":2}' };

const N = 20_000;
// Warm up both paths so the JIT has seen them.
const directCall = async () => {
  if ((await add.run(JSON.parse(call.arguments), undefined as never)) !== 3)
    throw new Error("direct call: wrong result");
};
const dispatchedCall = async () =>
  expectResults(await dispatcher.dispatch([call]).results(), "dispatched call", [3]);
await sample(2_000, directCall);
await sample(2_000, dispatchedCall);

const direct = median(await sample(N, directCall));
const dispatched = median(await sample(N, dispatchedCall));
const overhead = dispatched - direct;

const turn = Array.from({ length: 1_000 }, (_, i) => ({
  id: `c${i}`,
  name: "add",
  arguments: `{"a":${i},"b":1}`,
}));
const turnValues = turn.map((_, i) => i + 1);
const turnTimes = await sample(20, async () => {
  const results = await dispatcher.dispatch(turn).results();
  // Results come in completion order; each call's value is its own a + 1.
  const sorted = [...results].sort((x, y) => Number(x.callId.slice(1)) - Number(y.callId.slice(1)));
  expectResults(sorted, "1,000-call turn", turnValues);
});

recordFigure("dispatch.overhead", overhead, "µs");
recordFigure("dispatch.turn1000", median(turnTimes) / 1000, "ms");
console.log("dispatch overhead (trivial validated tool, sequential single-call dispatches)");
console.log(`  direct call (JSON.parse + run):  ${fmt(direct, "µs")} median`);
console.log(`  dispatched call:                 ${fmt(dispatched, "µs")} median`);
console.log(
  `  overhead per call:               ${fmt(overhead, "µs")} (aim: < 20 µs), ratio ${(dispatched / direct).toFixed(0)}x`,
);
console.log(
  `  1,000-call turn:                 ${fmt(median(turnTimes) / 1000, "ms")} median wall time (${fmt(median(turnTimes) / 1000, "µs")} per call)`,
);
