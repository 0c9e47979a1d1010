// How much the dispatcher's pipeline costs per call, against calling the tool's function directly.
// Run: make bench (it measures the built package: "cordon" resolves to dist/).

import { Dispatcher, Toolset, tool } from "cordon";
import { z } from "zod";
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
await sample(2_000, () => add.run({ a: 1, b: 2 }, undefined as never));
await sample(2_000, () => dispatcher.dispatch([call]).results());

const direct = median(await sample(N, () => add.run(JSON.parse(call.arguments), undefined as never)));
const dispatched = median(await sample(N, () => dispatcher.dispatch([call]).results()));
const overhead = dispatched - direct;

const turn = Array.from({ length: 1_000 }, (_, i) => ({
  id: `c${i}`,
  name: "add",
  arguments: `{"a":${i},"b":1}`,
}));
const turnTimes = await sample(20, () => dispatcher.dispatch(turn).results());

console.log("dispatch overhead (trivial validated tool, sequential single-call dispatches)");
console.log(`  direct call (JSON.parse + run):  ${fmt(direct, "µs")} median`);
console.log(`  dispatched call:                 ${fmt(dispatched, "µs")} median`);
console.log(
  `  overhead per call:               ${fmt(overhead, "µs")} (aim: < 20 µs), ratio ${(dispatched / direct).toFixed(0)}x`,
);
console.log(
  `  1,000-call turn:                 ${fmt(median(turnTimes) / 1000, "ms")} median wall time (${fmt(median(turnTimes) / 1000, "µs")} per call)`,
);
