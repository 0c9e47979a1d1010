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
