// cordon as a bench-peers executor, on any environment, in Node (peers.mjs) and in the workerd Worker
// (workerd/worker.mjs) alike: the model's code is the body of a function whose last expression is
// returned, and its tools go through cordon's whole pipeline (zod validation, dispatcher, events).

import { codeMode, Toolset, tool } from "cordon";
import { z } from "zod";

const sleep10 = () => new Promise((resolve) => setTimeout(() => resolve(10), 10));

/**
 * cordon on one environment. Up to 100 calls of a run may be in flight at once, as for every peer
 * that has such a limit (cordon's default is 16): the fan-out task puts 100 calls in one Promise.all.
 * `limits` replaces any of those limits (a loop of more than 1,000 calls needs a higher maxToolCalls).
 */
export function cordonExecutor(name, environment, limits = {}) {
  const tools = new Toolset([
    tool({ name: "echo", description: "Echo.", input: z.object({ n: z.number() }), run: ({ n }) => n }),
    tool({ name: "sleep", description: "Sleep 10 ms.", input: z.object({}), run: sleep10 }),
  ]);
  const cm = codeMode({
    tools,
    environment,
    limits: { maxToolCalls: 1_000, maxConcurrentCalls: 100, ...limits },
  });
  return {
    name,
    run: async (code, expected) => {
      const result = await cm.run(code);
      if (result.status !== "ok" || result.value !== expected) {
        throw new Error(`${name}: run of ${code.slice(0, 60)}: ${JSON.stringify(result)?.slice(0, 400)}`);
      }
    },
    code: {
      trivial: "1 + 1",
      loop: (n) => `let s = 0; for (let i = 0; i < ${n}; i++) s = await tools.echo({ n: s + 1 }); s`,
      fan: "(await Promise.all(Array.from({ length: 100 }, () => tools.sleep({})))).length",
    },
    close: () => cm.close(),
  };
}
