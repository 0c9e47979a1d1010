// The executors the sequential-call scripts (seqcall.mjs, seqcall-parts.mjs, seqcall-threads.mjs) time:
// cordon on one environment and TanStack ai-code-mode (isolated-vm), each with one echo tool. `run(n)`
// runs the model's code for a loop of n calls in a row and checks it returned n. Copied beside them
// into .bench-peers/, where bench-peers installed the packages.

import { toolDefinition } from "@tanstack/ai";
import { createCodeModeTool } from "@tanstack/ai-code-mode";
import { createNodeIsolateDriver } from "@tanstack/ai-isolate-node";
import { codeMode, Toolset, tool } from "cordon";
import { z } from "zod";

/** cordon's code mode on `environment`, its whole pipeline (zod validation, dispatcher, events) per call. */
export function cordonLoop(name, environment, maxToolCalls = 1_000) {
  const tools = new Toolset([
    tool({ name: "echo", description: "Echo.", input: z.object({ n: z.number() }), run: ({ n }) => n }),
  ]);
  const cm = codeMode({ tools, environment, limits: { maxToolCalls } });
  return {
    name,
    run: async (n) => {
      const result = await cm.run(
        `let s = 0; for (let i = 0; i < ${n}; i++) s = await tools.echo({ n: s + 1 }); s`,
      );
      if (result.status !== "ok" || result.value !== n) throw new Error(`${name}: ${JSON.stringify(result)}`);
    },
    close: () => cm.close(),
  };
}

/** TanStack ai-code-mode with its isolated-vm driver: each call one `applySyncPromise` to the tool. */
export function tanstackLoop(name = "TanStack") {
  const echo = toolDefinition({
    name: "echo",
    description: "Echo.",
    inputSchema: z.object({ n: z.number() }),
    outputSchema: z.number(),
  }).server(async ({ n }) => n);
  const execute = createCodeModeTool({ driver: createNodeIsolateDriver(), tools: [echo] });
  return {
    name,
    run: async (n) => {
      const code = `let s = 0; for (let i = 0; i < ${n}; i++) s = await external_echo({ n: s + 1 }); return s`;
      const result = await execute.execute({ typescriptCode: code });
      if (!result.success || result.result !== n) throw new Error(`${name}: ${JSON.stringify(result)}`);
    },
    close: async () => {},
  };
}
