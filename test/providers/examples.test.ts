import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const run = promisify(execFile);

/** Runs an example the way the README says to, and returns what it printed. */
async function runExample(file: string): Promise<string> {
  const { stdout } = await run(process.execPath, ["--no-node-snapshot", "--import", "tsx", file], {
    cwd: root,
    timeout: 60_000,
  });
  return stdout;
}

describe("the agent examples run end to end against the local server (scripted model)", () => {
  for (const example of ["agent-openai", "agent-anthropic", "agent-ai-sdk"]) {
    it(`examples/${example}.ts: run_code over the shop's tools, then the model's answer`, async () => {
      const out = await runExample(`examples/${example}.ts`);
      expect(out).toContain("status: ok");
      expect(out).toContain('result: {"orders":17,"refunded":5,"total":170}');
      expect(out.trimEnd().split("\n").at(-1)).toBe(
        "assistant: Customer c-7 has 17 orders; 5 were refunded, 170 in total.",
      );
    }, 60_000);
  }
});

describe("the durable examples: a run pauses in one process and resumes in another (scripted model)", () => {
  for (const example of ["durable-openai", "durable-anthropic", "durable-ai-sdk"]) {
    it(`examples/${example}.ts: the refund waits for approval, runs once in the second process, and the model answers`, async () => {
      const out = await runExample(`examples/${example}.ts`);
      expect(out).toMatch(/process 1 \(pid \d+\).*refund\(\{"order_id":"A145","amount":55\}\)/);
      const refunds = out.split("\n").filter((line) => line.includes("[shop] refund of 55 for A145 done"));
      expect(refunds).toHaveLength(1);
      const secondPid = /process 2 \(pid (\d+)\)/.exec(out)?.[1];
      expect(refunds[0]).toContain(`(pid ${secondPid})`);
      expect(out.trimEnd().split("\n").at(-1)).toBe("assistant: Order A145 was refunded 55.");
    }, 60_000);
  }
});
