// task: Ada says one of her orders is late. Which one is it, and what was in it?
// expect: ok
// returns: "Ada Lovelace's late order is A109 (kettle)"
const customers = await tools.find_customers({ query: "ada" });
const ada = customers.find((c) => c.email === "ada@example.com");
const orders = await tools.list_orders({ customer_id: ada.id });
const late = orders.find((o) => o.status === "late");
return `${ada.name}'s late order is ${late.id} (${late.item})`;
