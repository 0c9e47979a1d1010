// What the scripted model does in the agent examples: one run_code call whose code totals a customer's
// refunded orders through the shop's tools, then an answer written from the result it was sent back.
import { runCodeTurn, type ScriptStep } from "cordon/testing";

/** The user's question in the agent examples. */
export const QUESTION = "How much has customer c-7 been refunded so far, and over how many orders?";

/** The TypeScript the scripted model sends as run_code's `code`. */
export const MODEL_CODE = `
const ids = await tools.list_orders({ customer_id: "c-7" });
const orders = await Promise.all(ids.map((order_id) => tools.get_order({ order_id })));
const refunded = orders.filter((o) => o.status === "refunded");
return { orders: orders.length, refunded: refunded.length, total: refunded.reduce((sum, o) => sum + o.amount, 0) };
`;

/** The scripted model's two turns: ask for run_code, then answer from what run_code returned. */
export const REFUND_SCRIPT: ScriptStep[] = [
  runCodeTurn(MODEL_CODE, "I'll look that up with one run of code."),
  ({ toolResults }) => {
    const output = toolResults[0]?.output ?? "";
    const line = output.split("\n").find((l) => l.startsWith("result: "));
    if (!line) return { text: `The code did not return a result:\n${output}` };
    const { orders, refunded, total } = JSON.parse(line.slice("result: ".length));
    return { text: `Customer c-7 has ${orders} orders; ${refunded} were refunded, ${total} in total.` };
  },
];
