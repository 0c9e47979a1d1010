// task: What did order A107 contain and how much was it?
// expect: ok
// returns: "A107: tray, 20"
const order = await tools.getOrder({ order_id: "A107" });
return `${order.id}: ${order.item}, ${order.amount}`;
