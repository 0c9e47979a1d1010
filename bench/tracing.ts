// What tracing costs per dispatched call: off, on without a registered tracer (the default when
// @opentelemetry/api is installed but no SDK is), and recording into an in-memory exporter.
// Run: make bench (it measures the built package: "cordon" resolves to dist/).

import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { Dispatcher, Toolset, tool } from "cordon";
import { z } from "zod";
import { expectResults } from "./check.js";
import { fmt, median, sample } from "./stats.js";

const add = tool({
  name: "add",
  description: "Add two numbers.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});
const toolset = new Toolset([add]);
const call = { id: "c", name: "add", arguments: '{"a":1,"b":2}' };
const exporter = new InMemorySpanExporter();
const recording = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

const variants = {
  "tracing: false": new Dispatcher(toolset, { tracing: false }),
  "default, no tracer registered": new Dispatcher(toolset),
  "recording (in-memory exporter)": new Dispatcher(toolset, { tracing: { tracerProvider: recording } }),
};

/** One checked single-call dispatch. */
const once = async (dispatcher: Dispatcher) =>
  expectResults(await dispatcher.dispatch([call]).results(), "traced dispatch", [3]);

const N = 10_000;
const ROUNDS = 9;
const medians: Record<string, number[]> = {};
for (const [name, dispatcher] of Object.entries(variants)) {
  await sample(2_000, () => once(dispatcher));
  medians[name] = [];
}
// Interleave the variants, in a rotating order, so drift of the machine hits all of them alike.
const entries = Object.entries(variants);
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < entries.length; i++) {
    const [name, dispatcher] = entries[(round + i) % entries.length]!;
    medians[name]!.push(median(await sample(N, () => once(dispatcher))));
    exporter.reset();
  }
}

const off = median(medians["tracing: false"]!);
console.log("tracing cost per single-call dispatch (median of per-round medians)");
for (const [name, values] of Object.entries(medians)) {
  const value = median(values);
  console.log(`  ${name.padEnd(32)} ${fmt(value, "µs")}  (${(value / off).toFixed(2)}x of tracing: false)`);
}
