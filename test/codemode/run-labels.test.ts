import { describe, expect, it } from "vitest";
import { type LabelledOutcome, RunLabels } from "../../src/codemode/run-labels.js";

const labelled = new Map([
  ["web_fetch", ["untrusted"]],
  ["read_inbox", ["untrusted", "private"]],
]);
const flows = { byTool: new Map([["send_email", [{ label: "untrusted", action: "deny" as const }]]]) };

/** One run of a session: it inherits what the earlier runs handed on and receives `calls` outcomes. */
function oneRun(inherited: readonly LabelledOutcome[], calls: number): RunLabels {
  const labels = new RunLabels({ labelled, flows, resolve: () => undefined, inherited });
  for (let i = 0; i < calls; i++) {
    const tool = i % 2 === 0 ? "web_fetch" : "read_inbox";
    labels.received(i, tool, { ok: true, valueJson: JSON.stringify(`page ${i} of a long session`) }, i);
  }
  return labels;
}

describe("a session's labelled outcomes", () => {
  it("stay bounded over a long session: the last 100 with their text, older ones once per tool and labels", () => {
    let handed: LabelledOutcome[] = [];
    for (let run = 0; run < 50; run++) handed = oneRun(handed, 20).forSession();
    // 1,000 labelled calls were received; what a later run inherits does not grow with them.
    expect(handed.length).toBe(102);
    const withText = handed.filter((outcome) => outcome.outcome !== undefined);
    expect(withText).toHaveLength(100);
    const older = handed.filter((outcome) => outcome.outcome === undefined);
    expect(older.map((outcome) => outcome.tool).sort()).toEqual(["read_inbox", "web_fetch"]);
    expect(handed.every((outcome) => outcome.earlier === true)).toBe(true);
  });

  it("a later run of a long session is still refused by the policy, naming an earlier run's call", () => {
    let handed: LabelledOutcome[] = [];
    for (let run = 0; run < 20; run++) handed = oneRun(handed, 20).forSession();
    const later = oneRun(handed, 0);
    const verdict = later.verdict(0, "send_email", JSON.stringify({ body: "hello" }));
    expect(verdict).toMatchObject({ action: "deny" });
    expect(verdict?.action === "deny" && verdict.message).toContain("of an earlier run");
    expect(later.sources().map((source) => source.label)).toEqual(
      expect.arrayContaining(["untrusted", "private"]),
    );
  });
});
