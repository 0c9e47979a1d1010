// What the durable examples share: the shop's tools (a refund over 40 needs a person's approval, and
// says when it really runs), the scripted model's turns, and how the first process hands the paused
// conversation to a second one, as a web app's next request would be served by another process.

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Toolset, tool } from "cordon";
import { runCodeTurn, type ScriptStep } from "cordon/testing";
import { z } from "zod";
import { getOrder, listOrders } from "./shop-tools.js";

/** The user's request. */
export const QUESTION = "Please refund order A145 in full.";

/** A refund that prints when it really runs: the output shows it happens once, in the second process. */
export const refund = tool({
  name: "refund",
  description: "Refund an order in full. Amounts over 40 need a person's approval.",
  input: z.object({ order_id: z.string(), amount: z.number().positive() }),
  needsApproval: ({ amount }) => amount > 40,
  run: ({ order_id, amount }) => {
    console.log(`  [shop] refund of ${amount} for ${order_id} done (pid ${process.pid})`);
    return { order_id, refunded: amount };
  },
});

/** The shop's tools for the durable examples. */
export const durableShopTools = new Toolset([listOrders, getOrder, refund]);

/** The code the scripted model sends as run_code's `code`. */
export const REFUND_CODE = `
const order = await tools.get_order({ order_id: "A145" });
console.log("refunding " + order.id + ": " + order.amount);
const done = await tools.refund({ order_id: order.id, amount: order.amount });
return { order: done.order_id, refunded: done.refunded };
`;

/** The scripted model: ask for run_code, then answer from what it returned. */
export const DURABLE_SCRIPT: ScriptStep[] = [
  runCodeTurn(REFUND_CODE, "I'll check the order and refund it."),
  ({ toolResults }) => {
    const line = (toolResults[0]?.output ?? "").split("\n").find((l) => l.startsWith("result: "));
    if (!line) return { text: `The refund did not go through:\n${toolResults[0]?.output}` };
    const { order, refunded } = JSON.parse(line.slice("result: ".length));
    return { text: `Order ${order} was refunded ${refunded}.` };
  },
];

/**
 * The key checkpoints are sealed with: every process that pauses or resumes runs needs the same one
 * (in production, a secret from your configuration). The example makes one and hands it down.
 */
export function checkpointKey(): string {
  process.env.CORDON_CHECKPOINT_KEY ??= randomBytes(32).toString("hex");
  return process.env.CORDON_CHECKPOINT_KEY;
}

/** A directory for the conversation the first process stores and the second one reads. */
export function stateDirectory(): string {
  return mkdtempSync(join(tmpdir(), "cordon-durable-"));
}

/**
 * Runs this example again in a new process, with `args`: the later request, with the person's answer.
 * Resolves when it has exited (this process keeps serving the scripted model meanwhile).
 */
export function inAnotherProcess(file: string, args: string[]): Promise<void> {
  const child = spawn(process.execPath, [...process.execArgv, file, ...args], {
    stdio: "inherit",
    env: process.env,
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`the second process exited with ${code}`)),
    );
  });
}
