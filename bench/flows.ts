// What flow policies cost per call (docs/effects.md), each figure paired with the same work without them
// in the same run, samples interleaved, with another core kept awake (per-call hops are compared so):
// 1. label tracking in a run without flows: 500 calls of a tool whose 10 KB results are labelled,
//    against the same tool unlabelled (aim: under 2 µs per call);
// 2. a flow that sends each call to approval, its arguments marked against a 10 KB labelled page,
//    against the same calls gated by needsApproval (aim: under 10 µs per call);
// 3. the marking alone (RunLabels.verdict on 10 KB results), first call (it indexes) and later ones.
// Every measured run is checked. Run: make bench (the built package: "cordon" resolves to dist/).

import { codeMode, Dispatcher, Toolset, tool } from "cordon";
import { isolateEnvironment } from "cordon/in-process";
import { z } from "zod";
import { resolveFlows } from "../src/codemode/flows.js";
import { RunLabels } from "../src/codemode/run-labels.js";
import { Toolset as SourceToolset, tool as sourceTool } from "../src/index.js";
import { expectRun, keepOtherCoreAwake } from "./check.js";
import { fmt, median, sample } from "./stats.js";

/** A page of 10 KB: words that do not repeat in long runs, as a real page's text. */
const PAGE = Array.from({ length: 1_400 }, (_, i) => `w${(i * 7919) % 10_007}`)
  .join(" ")
  .slice(0, 10_000);
const CALLS = 500;
const SENDS = 200;

function tools(labelled: boolean, gated: boolean) {
  const page = tool({
    name: "page",
    description: "A page.",
    input: z.object({}),
    ...(labelled ? { labels: ["untrusted"] } : {}),
    run: () => PAGE,
  });
  const send = tool({
    name: "send",
    description: "Send.",
    input: z.object({ body: z.string() }),
    ...(gated ? { needsApproval: true } : {}),
    run: ({ body }) => body.length,
  });
  return new Toolset([page, send]);
}

function mode(labelled: boolean, options: { flows?: boolean; gated?: boolean } = {}) {
  const toolset = tools(labelled, options.gated === true);
  return codeMode({
    dispatcher: new Dispatcher(toolset, { approvalHandler: () => "allow" }),
    environment: isolateEnvironment(),
    limits: { maxToolCalls: CALLS + 10 },
    ...(options.flows ? { flows: [{ from: "untrusted", to: ["send"], action: "approve" as const }] } : {}),
  });
}

/** Medians of two runs, their samples interleaved (and each first half the time) so that drift hits both alike. */
async function paired(n: number, a: () => Promise<void>, b: () => Promise<void>) {
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < n; i++) {
    const order = i % 2 === 0 ? [a, b] : [b, a];
    for (const run of order) (run === a ? as : bs).push(...(await sample(1, run)));
  }
  return { a: median(as), b: median(bs) };
}

const READS = `let n = 0; for (let i = 0; i < ${CALLS}; i++) n += (await tools.page({})).length; n`;
const tracking = mode(true);
const plain = mode(false);
const SENDING = `const p = await tools.page({}); let n = 0;
for (let i = 0; i < ${SENDS}; i++) n += await tools.send({ body: "re: " + p.slice(i * 40, i * 40 + 200) });
n`;
const SENT = Array.from({ length: SENDS }, (_, i) => 4 + PAGE.slice(i * 40, i * 40 + 200).length).reduce(
  (a, b) => a + b,
);
const flowing = mode(true, { flows: true });
const gated = mode(false, { gated: true });

const awake = keepOtherCoreAwake();
try {
  const read = async (cm: typeof tracking, what: string) =>
    expectRun(await cm.run(READS), CALLS * PAGE.length, what);
  const send = async (cm: typeof flowing, what: string) => {
    const result = await cm.run(SENDING);
    expectRun(result, SENT, what);
    if (cm === flowing && result.labels === undefined) throw new Error(`${what}: the run was not labelled`);
  };
  // Warm-up, then the measured pairs.
  await paired(
    5,
    () => read(tracking, "labelled reads"),
    () => read(plain, "unlabelled reads"),
  );
  const reads = await paired(
    40,
    () => read(tracking, "labelled reads"),
    () => read(plain, "unlabelled reads"),
  );
  console.log(
    `1. ${CALLS} sequential calls of a tool with 10 KB results, labelled untrusted (no flows) vs unlabelled: ${fmt(reads.a / 1_000, "ms")} vs ${fmt(reads.b / 1_000, "ms")} per run, ${fmt((reads.a - reads.b) / CALLS, "µs")} per call for label tracking (aim: under 2 µs)`,
  );
  await paired(
    5,
    () => send(flowing, "flow approvals"),
    () => send(gated, "needsApproval"),
  );
  const sends = await paired(
    30,
    () => send(flowing, "flow approvals"),
    () => send(gated, "needsApproval"),
  );
  console.log(
    `2. ${SENDS} calls sent to approval by a flow, each argument marked against a 10 KB labelled page, vs the same calls gated by needsApproval: ${fmt(sends.a / 1_000, "ms")} vs ${fmt(sends.b / 1_000, "ms")} per run, ${fmt((sends.a - sends.b) / SENDS, "µs")} per call for the flow and its marks (aim: under 10 µs)`,
  );
} finally {
  await awake.stop();
}
await Promise.all([tracking, plain, flowing, gated].map((cm) => cm.close()));

// 3. The marking alone, in the host: ten labelled outcomes of 10 KB, arguments of 200 characters.
const send = sourceTool({
  name: "send",
  description: "Send.",
  input: z.object({ body: z.string() }),
  run: () => 1,
});
const pageTool = sourceTool({ name: "page", description: "A page.", labels: ["untrusted"], run: () => PAGE });
const flows = resolveFlows(
  [{ from: "untrusted", to: ["send"], action: "approve" }],
  new SourceToolset([send, pageTool]),
);
const labelsWith = () => {
  const labels = new RunLabels({
    labelled: new Map([["page", ["untrusted"]]]),
    flows,
    resolve: () => undefined,
  });
  for (let i = 0; i < 10; i++)
    labels.received(i, "page", { ok: true, valueJson: JSON.stringify(PAGE) }, i + 1);
  return labels;
};
const args = (i: number) =>
  JSON.stringify({ body: `re: ${PAGE.slice((i * 97) % 9_000, ((i * 97) % 9_000) + 200)}` });
// What tracking adds to a call in the host, without the run around it: an outcome kept, a call checked.
const tracked = labelsWith();
const outcome = { ok: true as const, valueJson: JSON.stringify(PAGE) };
const perCall = median(
  await sample(20, () => {
    for (let i = 0; i < 10_000; i++) {
      tracked.received(100 + i, "page", outcome, 101 + i);
      if (tracked.verdict(100 + i, "page", "{}") !== undefined)
        throw new Error("tracking: a verdict on page");
    }
  }),
);
console.log(
  `3a. label tracking in the host: ${fmt((perCall * 1_000) / 10_000, "ns")} per call (a labelled outcome kept, a call no flow covers checked)`,
);
const first = median(
  await sample(200, () => {
    const verdict = labelsWith().verdict(20, "send", args(1));
    if (verdict?.action !== "approve" || verdict.flow.marks.length !== 1) throw new Error("marking: no mark");
  }),
);
const labels = labelsWith();
const later = median(
  await sample(5_000, () => {
    const verdict = labels.verdict(20, "send", args(3));
    if (verdict?.action !== "approve" || verdict.flow.marks.length !== 1) throw new Error("marking: no mark");
  }),
);
const unmarked = median(
  await sample(5_000, () => {
    const verdict = labels.verdict(20, "send", JSON.stringify({ body: "x".repeat(200) }));
    if (verdict?.action !== "approve" || verdict.flow.marks.length !== 0)
      throw new Error("marking: a false mark");
  }),
);
console.log(
  `3b. marking an argument of 200 chars against ten labelled results of 10 KB (RunLabels.verdict): ${fmt(first, "µs")} for a run's first marked call (the results are indexed then), ${fmt(later, "µs")} for a later one holding text, ${fmt(unmarked, "µs")} for one holding none`,
);
