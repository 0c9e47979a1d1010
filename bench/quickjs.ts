// The QuickJS environment against the in-process isolate, in the same run: a trivial run, a sequential
// proxied call (per call, over 200 calls in one run), a fan-out of 100 calls with Promise.all, and a
// compute loop, each on both, each run checked. Figures twice: with the machine idle, and with another
// core kept awake by a spinning worker thread. Warm-up runs come first (V8 tiers up QuickJS's
// WebAssembly as it runs). Run: make bench (it measures the built package).

import { codeMode, Dispatcher, Toolset, tool } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { quickjsEnvironment } from "cordon/quickjs";
import { z } from "zod";
import { checked, keepOtherCoreAwake } from "./check.js";
import { fmt, median, sample } from "./stats.js";

const add = tool({
  name: "add",
  description: "Add.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});
const dispatcher = new Dispatcher(new Toolset([add]));
const CALLS = 200;
const FAN_OUT = 100;
const limits = { maxToolCalls: CALLS, cpuTimeMs: 60_000, timeoutMs: 60_000 };
const engines = {
  isolate: codeMode({ dispatcher, environment: isolateEnvironment(), limits }),
  quickjs: codeMode({ dispatcher, environment: quickjsEnvironment(), limits }),
};

const SEQUENTIAL = `let s = 0; for (let i = 0; i < ${CALLS}; i++) s = await tools.add({ a: s, b: 1 }); s`;
const FAN = `(await Promise.all(Array.from({ length: ${FAN_OUT} }, (_, i) => tools.add({ a: i, b: 1 })))).reduce((x, y) => x + y, 0)`;
const COMPUTE = "let h = 0; for (let i = 0; i < 1_000_000; i++) h = (h * 31 + i) % 1_000_003; h";
const computeValue = (() => {
  let h = 0;
  for (let i = 0; i < 1_000_000; i++) h = (h * 31 + i) % 1_000_003;
  return h;
})();
const cases = [
  { name: "trivial run (1 + 1)", code: "1 + 1", value: 2, warmups: 30, samples: 60, per: 1 },
  {
    name: `sequential call (per call, ${CALLS} in one run)`,
    code: SEQUENTIAL,
    value: CALLS,
    warmups: 15,
    samples: 10,
    per: CALLS,
  },
  {
    name: `fan-out of ${FAN_OUT} (Promise.all)`,
    code: FAN,
    value: (FAN_OUT * (FAN_OUT + 1)) / 2,
    warmups: 10,
    samples: 20,
    per: 1,
  },
  {
    name: "compute loop (1,000,000 iterations)",
    code: COMPUTE,
    value: computeValue,
    warmups: 3,
    samples: 5,
    per: 1,
  },
];

async function measure(state: string): Promise<void> {
  console.log(`QuickJS against the in-process isolate (${state}), medians:`);
  for (const { name, code, value, warmups, samples, per } of cases) {
    const figures: Record<string, number> = {};
    for (const [engine, cm] of Object.entries(engines)) {
      const run = checked(() => cm.run(code), value, `${name} on ${engine}`);
      // V8 compiles QuickJS's WebAssembly in tiers: its optimized code comes after some thousands of calls.
      await sample(warmups, run);
      figures[engine] = median(await sample(samples, run)) / per;
    }
    const { isolate = 0, quickjs = 0 } = figures;
    const unit = isolate < 1_000 ? "µs" : "ms";
    const shown = (micros: number) => fmt(unit === "µs" ? micros : micros / 1_000, unit);
    console.log(
      `  ${name}: isolate ${shown(isolate)}, quickjs ${shown(quickjs)}, ratio ${(quickjs / isolate).toFixed(2)}x`,
    );
  }
}

await measure("machine idle");
const awake = keepOtherCoreAwake();
try {
  await measure("another core kept awake by a spinning worker thread");
} finally {
  await awake.stop();
}
await Promise.all(Object.values(engines).map((cm) => cm.close()));
