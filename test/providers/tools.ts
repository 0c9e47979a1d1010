// Tools shared by the provider tests: a tiny order book, a slow tool and a gated one.
import { z } from "zod";
import { ToolError, tool } from "../../src/index.js";

const ORDERS: Record<string, { amount: number; status: "shipped" | "refunded" }> = {
  A1: { amount: 10, status: "refunded" },
  A2: { amount: 25, status: "shipped" },
  A3: { amount: 7, status: "refunded" },
};

/** Records every order id looked up, to prove the tool really ran. */
export const lookedUp: string[] = [];

export const listOrders = tool({
  name: "list_orders",
  description: "List every order id.",
  input: z.object({}),
  run: () => Object.keys(ORDERS),
});

export const getOrder = tool({
  name: "get_order",
  description: "Look up one order by id.",
  input: z.object({ order_id: z.string() }),
  strict: true,
  run: ({ order_id }) => {
    lookedUp.push(order_id);
    const order = ORDERS[order_id];
    if (!order) throw new ToolError(`Order ${order_id} does not exist.`);
    return { id: order_id, ...order };
  },
});

export const refund = tool({
  name: "refund",
  description: "Refund an order. Needs a human's approval.",
  input: z.object({ order_id: z.string() }),
  needsApproval: true,
  run: ({ order_id }) => ({ refunded: order_id }),
});

/** Waits until its call is cancelled (or 5 s). */
export const waitForever = tool({
  name: "wait_forever",
  description: "Waits.",
  input: z.object({}),
  run: (_args, ctx) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve("waited"), 5_000);
      ctx.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve("stopped");
      });
    }),
});

/** The code a scripted model sends to run_code: totals the refunded orders through two tools. */
export const REFUND_TOTAL_CODE = `
const ids = await tools.list_orders({});
const orders = await Promise.all(ids.map((order_id) => tools.get_order({ order_id })));
return orders.filter((o) => o.status === "refunded").reduce((sum, o) => sum + o.amount, 0);
`;
