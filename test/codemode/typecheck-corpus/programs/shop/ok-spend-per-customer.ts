// task: Who are our biggest customers? Rank everyone by what they spent, leaving out cancelled orders.
// expect: ok
// returns: [{"name":"Grace Hopper","spent":300},{"name":"Alan Turing","spent":246},{"name":"Ada Lovelace","spent":148},{"name":"Dana Smith","spent":148}]
const customers = await tools.find_customers({ query: "@example.com" });
const orderLists = await Promise.all(customers.map((c) => tools.list_orders({ customer_id: c.id })));

const ranking = customers
  .map((customer, i) => ({
    name: customer.name,
    spent: orderLists[i].filter((o) => o.status !== "cancelled").reduce((sum, o) => sum + o.amount, 0),
  }))
  .sort((a, b) => b.spent - a.spent);

return ranking;
