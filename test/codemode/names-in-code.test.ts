/**
 * Names in the model's code: `tools.<name>` resolves like the dispatcher resolves a direct call's name,
 * and a name that does not exist gets the closest names that do (the code's own, the tools, the globals).
 */

import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { resolveToolName } from "../../src/dispatch/names.js";
import { type CodeMode, type CodeModeOptions, codeMode, Dispatcher, Toolset, tool } from "../../src/index.js";
import { TEST_ENVIRONMENTS } from "../isolate/helpers.js";

/** A tool that answers with its own name. */
const named = (name: string) =>
  tool({ name, description: `The ${name} tool.`, input: z.object({}), run: () => name });

/** Registered names with the shapes the rule folds: snake, kebab, dotted, camel, acronyms, a Tool suffix. */
const REGISTERED = [
  "get_order",
  "list-orders",
  "http.get",
  "fetchURL",
  "HTTPServer_status",
  "runTool",
  "search_tool_tool",
  "v2_lookup",
  "aB",
  "a_b_c",
  "x",
];

/** What models write instead, and names that must stay unknown. */
const REQUESTED = [
  "get_order",
  "getOrder",
  "GetOrder",
  "GET_ORDER",
  "get-order",
  "getOrderTool",
  "get_order_tool",
  " get_order ",
  "get order",
  "get\u00a0order",
  "get\u2003order",
  "listOrders",
  "list_orders",
  "ListOrdersTool",
  "httpGet",
  "http_get",
  "HTTP.GET",
  "fetchUrl",
  "fetch_url",
  "FETCH-URL",
  "fetchURLTool",
  "httpServerStatus",
  "HttpServerStatus",
  "http_server_status",
  "run",
  "runTool",
  "run_tool",
  "RunToolTool",
  "searchToolTool",
  "search_tool",
  "search",
  "v2Lookup",
  "V2Lookup",
  "v2lookup",
  "AB",
  "a_b",
  "ab",
  "aBC",
  "a-b-c",
  "ABC",
  "X",
  "xTool",
  "tool",
  "getOrders",
  "order",
  "",
  "__",
  "get__order",
  "ge_torder",
];

const opened: CodeMode[] = [];
afterAll(async () => {
  await Promise.all(opened.map((cm) => cm.close()));
});

for (const { name, create } of TEST_ENVIRONMENTS) {
  describe(`[${name}] names in code`, () => {
    const make = (options: Omit<CodeModeOptions, "environment">) => {
      const cm = codeMode({ environment: create(), ...options });
      opened.push(cm);
      return cm;
    };

    it("tools.getOrder(...) in code reaches get_order, as a direct call would, and the call record says both names", async () => {
      const getOrder = tool({
        name: "get_order",
        description: "Get one order.",
        input: z.object({ id: z.string() }),
        run: ({ id }) => ({ id, status: "shipped" }),
      });
      const cm = make({ tools: [getOrder] });
      const result = await cm.run('return await tools.getOrder({ id: "A1" });');
      expect(result.status).toBe("ok");
      expect(result.value).toEqual({ id: "A1", status: "shipped" });
      expect(result.calls).toMatchObject([{ tool: "get_order", requested: "getOrder", status: "ok" }]);
      // A declared name is recorded as it is.
      const direct = await cm.run('return await tools.get_order({ id: "A2" });');
      expect(direct.calls[0]).not.toHaveProperty("requested");
      // The model reads the real name in the run's report.
      const dispatcher = new Dispatcher(new Toolset([cm.tool]));
      const [report] = await dispatcher
        .dispatch([{ id: "r1", name: "run_code", arguments: { code: 'await tools.getOrder({ id: "A3" })' } }])
        .results();
      expect(report!.output).toContain("tools.getOrder → get_order");
    });

    it("the guest resolves tool names exactly as the dispatcher does, over a table of names", async () => {
      const cm = make({ tools: REGISTERED.map(named), limits: { maxToolCalls: REQUESTED.length } });
      const code = `
        const requested = ${JSON.stringify(REQUESTED)};
        const out = {};
        for (const name of requested) {
          const fn = tools[name];
          out[name] = typeof fn === "function" ? await fn({}) : null;
        }
        return out;`;
      const result = await cm.run(code);
      expect(result.status).toBe("ok");
      const expected = Object.fromEntries(
        REQUESTED.map((requested) => [requested, resolveToolName(requested, REGISTERED) ?? null]),
      );
      expect(result.value).toEqual(expected);
      // The table exercises both outcomes.
      expect(Object.values(expected).filter((v) => v === null).length).toBeGreaterThan(5);
      expect(Object.values(expected).filter((v) => v !== null).length).toBeGreaterThan(20);
    });

    it("an ambiguous name stays unknown, and names the object has anyway stay what they are", async () => {
      const cm = make({ tools: [named("aB"), named("a_b"), named("then_tool"), named("to_string")] });
      const result = await cm.run(
        "return [typeof tools.A_B, typeof tools.then, typeof tools.toString, String(tools), typeof tools.toJSON];",
      );
      expect(result.value).toEqual(["undefined", "undefined", "function", "[object Object]", "undefined"]);
    });

    it("a ReferenceError for a typo of the code's own variable suggests it", async () => {
      const cm = make({ tools: [named("get_order")] });
      const result = await cm.run("const first = [1, 2];\nreturn frist.length;");
      expect(result.error).toMatchObject({
        name: "ReferenceError",
        message: "frist is not defined. Did you mean `first`?",
        line: 2,
      });
    });

    it("a ReferenceError suggests a function's parameters, a global or a tool, closest first, at most three", async () => {
      const cm = make({ tools: [named("get_order"), named("count")] });
      const inner = await cm.run("function total(orders) { return ordrs.length; }\nreturn total([]);");
      expect(inner.error?.message).toBe("ordrs is not defined. Did you mean `orders`?");
      const global = await cm.run("return Mathh.max(1, 2);");
      expect(global.error?.message).toBe("Mathh is not defined. Did you mean `Math`?");
      const tool = await cm.run("const coin = 1;\nreturn coun;");
      expect(tool.error?.message).toBe("coun is not defined. Did you mean `coin` or `tools.count`?");
      const many = await cm.run("const ab1 = 1, ab2 = 2, ab3 = 3, ab4 = 4;\nreturn ab;");
      expect(many.error?.message).toBe("ab is not defined. Did you mean `ab1`, `ab2` or `ab3`?");
    });

    it("a tool called without tools. is told how to call it", async () => {
      const cm = make({ tools: [named("get_order")] });
      const result = await cm.run("return await getOrder({});");
      expect(result.error?.message).toBe(
        "getOrder is not defined: it is a tool, and tools are called on the tools object: tools.get_order(args).",
      );
    });

    it("tools.<typo> suggests the closest tool instead of listing them all", async () => {
      const tools = ["get_order", ...Array.from({ length: 30 }, (_, i) => `other_${i}`)].map(named);
      const cm = make({ tools });
      const typo = await cm.run("return await tools.get_ordr({});");
      expect(typo.error?.message).toBe(
        "tools.get_ordr is not a function: there is no tool named get_ordr. Did you mean `tools.get_order`?",
      );
      const unknown = await cm.run("return await tools.refund({});");
      expect(unknown.error?.message).toMatch(
        /^tools\.refund is not a function: there is no tool named refund\. The tools are: tools\.get_order, tools\.other_0, .* and 11 more\.$/,
      );
    });

    it("a typo of a variable an earlier run of the session declared suggests it", async () => {
      const cm = make({ tools: [named("get_order")], state: "session" });
      await cm.run("const customers = ['c1'];", { session: "s" });
      const result = await cm.run("return customer.length;", { session: "s" });
      expect(result.error?.message).toBe("customer is not defined. Did you mean `customers`?");
    });
  });
}
