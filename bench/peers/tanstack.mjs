// TanStack ai-code-mode (its isolated-vm driver) as a bench-peers executor, with the same two tools as
// cordon's (cordon.mjs): every tool call one `applySyncPromise` from its isolate to the host.

import { toolDefinition } from "@tanstack/ai";
import { createCodeModeTool } from "@tanstack/ai-code-mode";
import { createNodeIsolateDriver } from "@tanstack/ai-isolate-node";
import { z } from "zod";

const sleep10 = () => new Promise((resolve) => setTimeout(() => resolve(10), 10));

/** TanStack's code mode; its run checks the value, as every executor's does. */
export function tanstackExecutor(name = "TanStack ai-code-mode (isolated-vm)") {
  const echo = toolDefinition({
    name: "echo",
    description: "Echo.",
    inputSchema: z.object({ n: z.number() }),
    outputSchema: z.number(),
  }).server(async ({ n }) => n);
  const sleep = toolDefinition({
    name: "sleep",
    description: "Sleep 10 ms.",
    inputSchema: z.object({}),
    outputSchema: z.number(),
  }).server(sleep10);
  const executeTool = createCodeModeTool({ driver: createNodeIsolateDriver(), tools: [echo, sleep] });
  return {
    name,
    run: async (code, expected) => {
      const result = await executeTool.execute({ typescriptCode: code });
      if (!result.success || result.result !== expected) {
        throw new Error(`${name}: run of ${code.slice(0, 60)}: ${JSON.stringify(result)?.slice(0, 400)}`);
      }
    },
    code: {
      trivial: "return 1 + 1",
      loop: (n) =>
        `let s = 0; for (let i = 0; i < ${n}; i++) s = await external_echo({ n: s + 1 }); return s`,
      fan: "return (await Promise.all(Array.from({ length: 100 }, () => external_sleep({})))).length",
    },
    close: async () => {},
  };
}
