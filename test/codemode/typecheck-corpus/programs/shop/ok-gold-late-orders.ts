// task: Which of our gold customers have late orders right now? List them with the order ids.
// expect: ok
// returns: [{"name":"Ada Lovelace","email":"ada@example.com","orders":["A109","A121"]},{"name":"Alan Turing","email":"alan@example.com","orders":["A112","A124"]}]
const everyone = await tools.find_customers({ query: "example.com" });
const gold = everyone.filter(({ tier }) => tier === "gold");

const withLate = await Promise.all(
  gold.map(async ({ id, name, email }) => {
    const late = await tools.list_orders({ customer_id: id, status: "late" });
    return { name, email, orders: late.map((o) => o.id) };
  }),
);

return withLate.filter((entry) => entry.orders.length > 0);
