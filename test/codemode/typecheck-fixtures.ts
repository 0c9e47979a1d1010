/** A small shop whose tools count their calls, for the type-check tests. */

import { z } from "zod";
import { tool } from "../../src/index.js";

/** The shop's tools and how many times each one ran. */
export function countingShop() {
  const ran = { get_order: 0, refund_order: 0, list_orders: 0, notes: 0 };
  const order = z.object({
    id: z.string(),
    status: z.enum(["open", "paid", "shipped"]),
    amount: z.number(),
    email: z.string().optional(),
  });
  const tools = [
    tool({
      name: "get_order",
      description: "Get one order by its id.",
      input: z.object({ order_id: z.string() }),
      output: order,
      run: ({ order_id }) => {
        ran.get_order++;
        return { id: order_id, status: "paid" as const, amount: 40 };
      },
    }),
    tool({
      name: "refund_order",
      description: "Refund an order, in part or in full.",
      input: z.object({ order_id: z.string(), amount: z.number(), reason: z.string().optional() }),
      output: z.object({ refunded: z.number() }),
      run: ({ amount }) => {
        ran.refund_order++;
        return { refunded: amount };
      },
    }),
    tool({
      name: "list_orders",
      description: "The ids of a customer's orders.",
      input: z.object({ customer: z.string(), status: z.enum(["open", "paid", "shipped"]).optional() }),
      output: z.array(z.string()),
      run: () => {
        ran.list_orders++;
        return ["A1", "A2"];
      },
    }),
    // No output schema: the check lets the code use the value freely.
    tool({
      name: "notes",
      description: "Free-form notes about a customer.",
      input: z.object({ customer: z.string() }),
      run: ({ customer }) => {
        ran.notes++;
        return { customer, lines: ["likes tea"] };
      },
    }),
  ];
  return { tools, ran };
}
