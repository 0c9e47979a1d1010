// One model turn of tool calls, dispatched through cordon's pipeline, with every event printed.
// Run: make demo-dispatch
import { Dispatcher } from "cordon";
import { shopTools } from "./shop-tools.js";

const dispatcher = new Dispatcher(shopTools, { maxConcurrency: 4 });

// What a provider sends back: ids, (sometimes sloppy) names, arguments as JSON strings.
const calls = [
  { id: "call_1", name: "get_order", arguments: '{"order_id": "A101"}' },
  { id: "call_2", name: "getOrder", arguments: '{"order_id": "A102",}' },
  { id: "call_3", name: "get_order", arguments: '{"order_id": "Z9"}' },
  { id: "call_4", name: "refund", arguments: '{"order_id": "A101", "amount": "45"}' },
  { id: "call_5", name: "refund", arguments: '{"order_id": "A102", "amount": 11}' },
  { id: "call_6", name: "cancel_order", arguments: "{}" },
];

const handle = dispatcher.dispatch(calls);
for await (const event of handle) {
  const { type, callId, name } = event;
  if (type === "approval_required") {
    console.log(`${callId} ${type} ${name} ${JSON.stringify(event.args)} -> approving`);
    event.approve();
  } else if (type === "completed") {
    console.log(`${callId} ${type} ${name} -> ${event.output}`);
  } else if (type === "failed") {
    console.log(`${callId} ${type} ${name} -> ${event.output.replace(/\n/g, " | ")}`);
  } else {
    console.log(`${callId} ${type} ${name}`);
  }
}
const results = await handle.results();
console.log(
  `\n${results.length} results, ${results.filter((r) => r.ok).length} ok, in completion order: ${results.map((r) => r.callId).join(", ")}`,
);
