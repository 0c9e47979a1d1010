/**
 * Nothing the model reads promises an environment it is not in: the instructions, the run_code tool's
 * description and schema, and the reports of failed runs (limits, refused globals, errors, a session
 * started afresh) name only what the chosen environment really does.
 */

import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type CodeMode, codeMode, Dispatcher, Toolset, tool } from "../../src/index.js";
import { TEST_ENVIRONMENTS } from "../isolate/helpers.js";

/** Environments no built-in environment is, and advice that belongs to the operator, not the model. */
const NEVER = [/docker/i, /container/i, /remote/i, /another (host|machine)/i, /hostile code belongs/i];

/** What each environment must not claim: the other one's kind of process. */
const NOT_IN: Record<string, RegExp[]> = {
  "in-process isolate": [/sandbox process/i, /separate process/i, /child process/i, /not in the agent's/i],
  "sandbox host": [/agent's own process/i, /inside the agent's process/i, /in-process/i],
};

/** Code that fails in every way a model commonly meets, and a session run after a timeout. */
const FAILING = [
  "for (;;) {}",
  'require("fs")',
  'await fetch("https://example.com")',
  "setTimeout(() => 1, 10)",
  "const first = 1; frist",
  "await tools.nope()",
  "foo(",
  'throw new Error("boom")',
  'import fs from "fs";',
  'await import("fs")',
  "const a = []; while (true) a.push('x'.repeat(1e6));",
  "await tools.lookup({ id: 3 })",
];

const opened: CodeMode[] = [];
afterAll(async () => {
  await Promise.all(opened.map((cm) => cm.close()));
});

for (const { name, create } of TEST_ENVIRONMENTS) {
  describe(`[${name}] what the model reads`, () => {
    it("names only what its own environment does", async () => {
      const lookup = tool({
        name: "lookup",
        description: "Look up a record.",
        input: z.object({ id: z.string() }),
        run: ({ id }) => ({ id }),
      });
      const texts: string[] = [];
      for (const state of ["fresh", "session"] as const) {
        for (const declarationsIn of ["tool", "instructions"] as const) {
          const cm = codeMode({
            tools: [lookup],
            environment: create(),
            state,
            discovery: { declarationsIn },
            limits: { timeoutMs: 400, memoryMb: 16 },
          });
          opened.push(cm);
          texts.push(cm.instructions, cm.tool.description, JSON.stringify(cm.tool.parameters));
        }
      }
      // The reports of failed runs, exactly as the model reads them (through a dispatcher).
      const cm = codeMode({
        tools: [lookup],
        environment: create(),
        state: "session",
        limits: { timeoutMs: 400, memoryMb: 16 },
      });
      opened.push(cm);
      const dispatcher = new Dispatcher(new Toolset([cm.tool]));
      const calls = [...FAILING, "1 + 1"].map((code, i) => ({
        id: `c${i}`,
        name: "run_code",
        arguments: { code },
      }));
      for (const call of calls) {
        const [result] = await dispatcher.dispatch([call], { session: "s" }).results();
        texts.push(result!.output);
      }
      // Runs after a timeout in the same session say that the sandbox was started afresh.
      expect(texts.some((text) => text.includes("started afresh"))).toBe(true);

      const forbidden = [...NEVER, ...(NOT_IN[name] ?? [])];
      const claims = texts.flatMap((text) =>
        forbidden
          .filter((pattern) => pattern.test(text))
          .map((pattern) => `${pattern}: ${text.slice(0, 300)}`),
      );
      expect(claims).toEqual([]);
    }, 60_000);
  });
}
