// A small shop backend and its tools, shared by the examples.

import { ToolError, Toolset, tool } from "cordon";
import { z } from "zod";

const orders = new Map(
  Array.from({ length: 50 }, (_, i) => {
    const id = `A${100 + i}`;
    return [
      id,
      {
        id,
        customer: i % 3 === 0 ? "c-7" : `c-${i % 5}`,
        status: i % 4 === 0 ? "refunded" : "shipped",
        amount: 10 + i,
      },
    ];
  }),
);

export const listOrders = tool({
  name: "list_orders",
  description: "List the ids of a customer's orders (at most 50).",
  input: z.object({ customer_id: z.string().describe("Customer id, e.g. c-7") }),
  output: z.array(z.string()),
  readOnly: true,
  run: ({ customer_id }) => [...orders.values()].filter((o) => o.customer === customer_id).map((o) => o.id),
});

export const getOrder = tool({
  name: "get_order",
  description:
    "Look up one order by its full id (for example A123). Returns id, customer, status and amount.",
  input: z.object({ order_id: z.string().describe("Full order id, e.g. A123") }),
  output: z.object({
    id: z.string(),
    customer: z.string(),
    status: z.enum(["shipped", "refunded"]),
    amount: z.number(),
  }),
  readOnly: true,
  run: async ({ order_id }) => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    const order = orders.get(order_id);
    if (!order)
      throw new ToolError(`Order ${order_id} does not exist.`, { hint: "Order ids look like A123." });
    return order;
  },
});

export const refund = tool({
  name: "refund",
  description: "Refund an order in full. Amounts over 40 need a human's approval.",
  input: z.object({ order_id: z.string(), amount: z.number().positive() }),
  needsApproval: ({ amount }) => amount > 40,
  parallel: false,
  run: ({ order_id, amount }) => ({ order_id, refunded: amount }),
});

/** The shop's tools. */
export const shopTools = new Toolset([listOrders, getOrder, refund]);
export default shopTools;
