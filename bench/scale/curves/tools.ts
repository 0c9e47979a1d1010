// The tool every curve's code calls: cheap and synchronous, so that what grows is cordon's own cost.

import { tool } from "cordon";
import { z } from "zod";

/** `add(a, b)`: a + b. */
export const add = tool({
  name: "add",
  description: "Add.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

/** `n` calls of `add`, each awaited; the run's value is `n`. */
export const sequential = (n: number) =>
  `let s = 0; for (let i = 0; i < ${n}; i++) s = await tools.add({ a: s, b: 1 }); return s`;
