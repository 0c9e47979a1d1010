// Pausing and resuming runs on the in-process isolate: code makes N sequential calls of a cheap tool
// (add), then one call of a gated tool (double, needsApproval) that pauses the run. For N = 10, 100 and
// 1,000 (and 0, the base line): the original run up to the pause (cm.run, which ends `paused`), the
// resume with the approval (cm.resume: a fresh sandbox replays the N recorded calls from the checkpoint's
// journal, then runs the approved call live), the cost of a replayed call against a live proxied call
// (each the time over the run with 0 recorded calls, divided by N, and the marginal cost from 100 to
// 1,000; aim: a replayed call under a tenth of a live one), and the checkpoint's size per recorded call.
// For context, in the same rounds: a live call in a run that cannot pause, and a bare isolated-vm round
// trip (the floor of any call that goes to the host). Times are taken with another core kept awake
// (idle cores on this machine sleep, and waking one costs a cross-thread hop). Every measured run is
// checked (paused with exactly the gated call pending, add having run N times; resumed ok with the right
// value, add not run again and double run once) and a failed one stops the benchmark.
// Run: make bench (it measures the built package: "cordon" resolves to dist/).

import { type CodeRunResult, codeMode, Toolset, tool } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { z } from "zod";
import { checked, expectRun, keepOtherCoreAwake } from "./check.js";
import { bareRoundTrip } from "./round-trip.js";
import { fmt, median, sample } from "./stats.js";

/** How many times the tools really ran: a resume must not run add again, and must run double once. */
const ran = { add: 0, double: 0 };
const add = tool({
  name: "add",
  description: "Add.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => {
    ran.add++;
    return a + b;
  },
});
const double = tool({
  name: "double",
  description: "Doubles a number, once approved.",
  input: z.object({ x: z.number() }),
  needsApproval: true,
  run: ({ x }) => {
    ran.double++;
    return 2 * x;
  },
});
const toolset = new Toolset([add, double]);
const LIMITS = { maxToolCalls: 2_000 };
const cm = codeMode({
  tools: toolset,
  environment: isolateEnvironment(),
  approval: "pause",
  pause: { key: "the pause benchmark's key, 32 bytes or more" },
  limits: LIMITS,
});
// For context: the same calls in a run that cannot pause (no journal is kept).
const plain = codeMode({ tools: toolset, environment: isolateEnvironment(), limits: LIMITS });

const SIZES = [0, 10, 100, 1_000];
const loop = (n: number) => `let s = 0; for (let i = 0; i < ${n}; i++) s = await tools.add({ a: s, b: 1 });`;
const gated = (n: number) => `${loop(n)} return await tools.double({ x: s });`;

/** Throws unless the run paused with exactly one pending call: double, with the sum so far. */
function expectPaused(result: CodeRunResult, n: number, what: string): string {
  const [pending, ...more] = result.pending ?? [];
  if (
    result.status === "paused" &&
    typeof result.checkpoint === "string" &&
    more.length === 0 &&
    pending?.tool === "double" &&
    pending.kind === "approval" &&
    (pending.args as { x?: unknown } | undefined)?.x === n
  ) {
    return result.checkpoint;
  }
  const detail = result.error
    ? `${result.error.name}: ${result.error.message}`
    : JSON.stringify(result.pending ?? result.value);
  throw new Error(
    `benchmark "${what}": a measured run did not pause as expected (status ${result.status}; expected one pending double({ x: ${n} }); got ${detail.slice(0, 300)})`,
  );
}

/** Throws unless the tools ran exactly `add` and `double` more times since `before`. */
function expectRan(before: typeof ran, addCalls: number, doubleCalls: number, what: string): void {
  if (ran.add - before.add === addCalls && ran.double - before.double === doubleCalls) return;
  throw new Error(
    `benchmark "${what}": the tools ran add ${ran.add - before.add} and double ${ran.double - before.double} times; expected ${addCalls} and ${doubleCalls}`,
  );
}

/** A checked run up to the pause: its checkpoint and the pending call's id. */
async function runToPause(n: number): Promise<{ checkpoint: string; id: string }> {
  const what = `run to the pause, ${n} calls`;
  const before = { ...ran };
  const result = await cm.run(gated(n));
  const checkpoint = expectPaused(result, n, what);
  expectRan(before, n, 0, what);
  return { checkpoint, id: result.pending![0]!.id };
}

interface Case {
  n: number;
  /** Characters of the checkpoint the resumes resume. */
  size: number;
  original: () => Promise<void>;
  /** Resumes one checkpoint every time, each a fork (a checkpoint resumes once unless asked to fork). */
  resume: () => Promise<void>;
  originals: number[];
  resumes: number[];
}

const cases: Case[] = [];
for (const n of SIZES) {
  const { checkpoint, id } = await runToPause(n);
  const what = `resume with the approval, ${n} recorded calls`;
  cases.push({
    n,
    size: checkpoint.length,
    original: async () => void (await runToPause(n)),
    resume: async () => {
      const before = { ...ran };
      expectRun(await cm.resume(checkpoint, { decisions: { [id]: true }, fork: true }), 2 * n, what);
      expectRan(before, 0, 1, what);
    },
    originals: [],
    resumes: [],
  });
}
// For context, measured in the same rounds: a live call in a run that cannot pause, and the bare
// isolated-vm crossing a sequential call is made of (the guest waits inside applySyncPromise for a host
// function that answers at once): the floor of any call, replayed or live, that goes to the host.
const CONTEXT_CALLS = 1_000;
const plainRuns = {
  calls: checked(
    () => plain.run(`${loop(CONTEXT_CALLS)} return s;`),
    CONTEXT_CALLS,
    "calls in a run that cannot pause",
  ),
  none: checked(() => plain.run(`${loop(0)} return s;`), 0, "the same run without calls"),
  withCalls: [] as number[],
  withoutCalls: [] as number[],
};
const bare = await bareRoundTrip(async (s) => s + 1, "applySyncPromise");
const bareTrips: number[] = [];

// Rounds that take every measurement in turn, so that a drift of the machine touches all sizes alike:
// per round one run to the pause and RESUMES resumes of each size (a resume of few calls is short).
const ROUNDS = 30;
const RESUMES = 5;
const awake = keepOtherCoreAwake();
try {
  for (const c of cases) {
    await sample(3, c.original);
    await sample(3, c.resume);
  }
  await sample(3, plainRuns.calls);
  await sample(3, plainRuns.none);
  await sample(3, () => bare.run(CONTEXT_CALLS));
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) {
      c.originals.push(...(await sample(1, c.original)));
      c.resumes.push(...(await sample(RESUMES, c.resume)));
    }
    plainRuns.withCalls.push(...(await sample(1, plainRuns.calls)));
    plainRuns.withoutCalls.push(...(await sample(1, plainRuns.none)));
    bareTrips.push(...(await sample(1, () => bare.run(CONTEXT_CALLS))));
  }
} finally {
  await awake.stop();
}
bare.dispose();
await cm.close();
await plain.close();

const [base, ...rest] = cases.map((c) => ({
  n: c.n,
  size: c.size,
  original: median(c.originals),
  resume: median(c.resumes),
}));
const row = (...cells: string[]) =>
  console.log(
    `  ${cells.map((cell, i) => (i < cells.length - 1 ? cell.padEnd(i === 0 ? 24 : 18) : cell)).join("")}`,
  );
console.log(
  `pause and resume on the in-process isolate: N sequential add calls, then a gated call that pauses the run (another core kept awake by a spinning worker thread; medians of ${ROUNDS} runs to the pause and ${ROUNDS * RESUMES} resumes of each size)`,
);
row(
  "recorded calls",
  "run to the pause",
  "resume",
  "live call",
  "replayed call",
  "replayed / live (aim: < 0.1x)",
);
row("0", fmt(base!.original / 1000, "ms"), fmt(base!.resume / 1000, "ms"), "(the base line)");
const perCall = (from: (typeof rest)[number], to: (typeof rest)[number]) => {
  const live = (to.original - from.original) / (to.n - from.n);
  const replayed = (to.resume - from.resume) / (to.n - from.n);
  return [fmt(live, "µs"), fmt(replayed, "µs"), `${(replayed / live).toFixed(2)}x`];
};
for (const c of rest) {
  row(
    c.n.toLocaleString("en-US"),
    fmt(c.original / 1000, "ms"),
    fmt(c.resume / 1000, "ms"),
    ...perCall(base!, c),
  );
}
const [, hundred, thousand] = rest;
row("100 -> 1,000 (marginal)", "", "", ...perCall(hundred!, thousand!));
console.log(
  "  (a live call: the run to the pause over the one with 0 calls, per call; a replayed call: the same of the resume)",
);
const plainCall = (median(plainRuns.withCalls) - median(plainRuns.withoutCalls)) / CONTEXT_CALLS;
const bareTrip = median(bareTrips) / CONTEXT_CALLS;
console.log(
  `  for context: a live call in a run that cannot pause (no journal): ${fmt(plainCall, "µs")}; a bare isolated-vm applySyncPromise round trip (the floor of a call that goes to the host): ${fmt(bareTrip, "µs")}`,
);
console.log("checkpoint size (characters of result.checkpoint)");
row("recorded calls", "checkpoint", "per recorded call");
row("0", `${base!.size.toLocaleString("en-US")} chars`, "(the base line)");
for (const c of rest) {
  row(
    c.n.toLocaleString("en-US"),
    `${c.size.toLocaleString("en-US")} chars`,
    fmt((c.size - base!.size) / c.n, "chars"),
  );
}
