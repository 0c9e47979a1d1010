// A small shop's tools, as a tools module for the cordon command:
//   cordon run examples/shop/task.ts --tools examples/shop/tools.ts
//   cordon mcp --tools examples/shop/tools.ts
// The default export is what cordon loads: a Toolset (an array of tools works too).

import { ToolError, Toolset, tool } from "cordon";
import { z } from "zod";

/** Refunds above this amount need a person's approval. */
const APPROVAL_ABOVE = 50;

interface Customer {
  id: string;
  name: string;
  email: string;
  tier: "standard" | "gold";
}

interface Order {
  id: string;
  customer_id: string;
  item: string;
  amount: number;
  status: "delivered" | "shipped" | "late" | "cancelled" | "refunded";
}

const customers: Customer[] = [
  { id: "c-1", name: "Ada Lovelace", email: "ada@example.com", tier: "gold" },
  { id: "c-2", name: "Grace Hopper", email: "grace@example.com", tier: "standard" },
  { id: "c-3", name: "Dana Smith", email: "dana@example.com", tier: "standard" },
  { id: "c-4", name: "Alan Turing", email: "alan@example.com", tier: "gold" },
];

const ITEMS = ["kettle", "teapot", "mug set", "grinder", "scale", "filters", "tray", "tin"];
const STATUSES: Order["status"][] = ["delivered", "shipped", "late", "delivered", "cancelled", "late"];

const orders = new Map<string, Order>(
  Array.from({ length: 24 }, (_, i): [string, Order] => {
    const id = `A${101 + i}`;
    return [
      id,
      {
        id,
        customer_id: `c-${(i % 4) + 1}`,
        item: ITEMS[i % ITEMS.length]!,
        amount: 12 + ((i * 13) % 70),
        status: STATUSES[i % STATUSES.length]!,
      },
    ];
  }),
);

const refunds: { refund_id: string; order_id: string; amount: number; reason: string }[] = [];

const customerShape = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  tier: z.enum(["standard", "gold"]),
});
const orderShape = z.object({
  id: z.string(),
  customer_id: z.string(),
  item: z.string(),
  amount: z.number(),
  status: z.enum(["delivered", "shipped", "late", "cancelled", "refunded"]),
});
const refundShape = z.object({ refund_id: z.string(), order_id: z.string(), amount: z.number() });

const findCustomers = tool({
  name: "find_customers",
  description: "Find customers whose name or email contains the query (case-insensitive).",
  input: z.object({ query: z.string().min(1).describe("Part of a name or an email, e.g. dana@example.com") }),
  output: z.array(customerShape),
  readOnly: true,
  run: ({ query }) => {
    const needle = query.toLowerCase();
    return customers.filter((c) => `${c.name} ${c.email}`.toLowerCase().includes(needle));
  },
});

const listOrders = tool({
  name: "list_orders",
  description: "List a customer's orders, optionally only those with one status.",
  input: z.object({
    customer_id: z.string().describe("Customer id, e.g. c-3"),
    status: orderShape.shape.status.optional().describe("Only orders with this status"),
  }),
  output: z.array(orderShape),
  readOnly: true,
  run: ({ customer_id, status }) => {
    if (!customers.some((c) => c.id === customer_id)) {
      throw new ToolError(`There is no customer ${customer_id}.`, {
        hint: "Find the id with find_customers.",
      });
    }
    return [...orders.values()].filter(
      (o) => o.customer_id === customer_id && (status === undefined || o.status === status),
    );
  },
});

const getOrder = tool({
  name: "get_order",
  description: "Look up one order by its id (for example A107).",
  input: z.object({ order_id: z.string().describe("Order id, e.g. A107") }),
  output: orderShape,
  readOnly: true,
  run: ({ order_id }) => {
    const order = orders.get(order_id);
    if (!order)
      throw new ToolError(`Order ${order_id} does not exist.`, { hint: "Order ids look like A107." });
    return order;
  },
});

const refundOrder = tool({
  name: "refund_order",
  description: `Refund an order in full. Refunds above ${APPROVAL_ABOVE} need a person's approval; cancelled and already refunded orders cannot be refunded.`,
  input: z.object({
    order_id: z.string().describe("Order id, e.g. A107"),
    reason: z.string().min(3).describe("Why, in a few words (kept with the refund)"),
  }),
  output: refundShape,
  // The one gated tool: a person decides refunds above the limit (cordon run --approve ask|all|none).
  needsApproval: ({ order_id }) => (orders.get(order_id)?.amount ?? 0) > APPROVAL_ABOVE,
  parallel: false,
  run: ({ order_id, reason }) => {
    const order = orders.get(order_id);
    if (!order) throw new ToolError(`Order ${order_id} does not exist.`);
    if (order.status === "cancelled" || order.status === "refunded") {
      throw new ToolError(`Order ${order_id} is ${order.status}: there is nothing to refund.`);
    }
    order.status = "refunded";
    const refund = { refund_id: `R${refunds.length + 1}`, order_id, amount: order.amount, reason };
    refunds.push(refund);
    return { refund_id: refund.refund_id, order_id, amount: refund.amount };
  },
});

const listRefunds = tool({
  name: "list_refunds",
  description: "List the refunds made so far for a customer's orders.",
  input: z.object({ customer_id: z.string().describe("Customer id, e.g. c-3") }),
  output: z.array(refundShape.extend({ reason: z.string() })),
  readOnly: true,
  run: ({ customer_id }) => refunds.filter((r) => orders.get(r.order_id)?.customer_id === customer_id),
});

export default new Toolset([findCustomers, listOrders, getOrder, refundOrder, listRefunds]);
