/**
 * What the model reads about code mode: the declarations of `tools`, the run_code tool's description and
 * schema, and the instructions. Each says true things, once, without schema noise.
 */

import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { DEFAULT_MATCH_LIMIT, MAX_MATCH_LIMIT } from "../../src/codemode/discovery/tool-index.js";
import { renderCodeRunResult } from "../../src/codemode/result.js";
import { askHuman, HumanChannel } from "../../src/entries/builtins.js";
import { type CodeMode, type CodeModeOptions, codeMode, Toolset, tool } from "../../src/index.js";
import { checkUsage } from "./typescript-check.js";

const open: CodeMode[] = [];
function make(options: Omit<CodeModeOptions, "environment">): CodeMode {
  const cm = codeMode({ environment: isolateEnvironment(), ...options });
  open.push(cm);
  return cm;
}
afterAll(async () => {
  await Promise.all(open.map((cm) => cm.close()));
});

const search = tool({
  name: "search",
  description: "Search the customers.",
  strict: true,
  input: z.object({
    query: z.string(),
    limit: z.number().int().optional(),
    filters: z.object({ country: z.string() }).optional(),
    tags: z.array(z.string()).optional(),
  }),
  run: ({ query, limit, filters, tags }) => ({ query, limit, filters, tags }),
});

const contact = tool({
  name: "contact",
  description: "Write to a customer.",
  input: z.object({
    email: z.string().email().min(2).describe("an email"),
    count: z.number().int().describe("How many messages"),
    page: z.number().int().min(1).max(20),
  }),
  output: z.object({ sent: z.number().int(), to: z.string().email() }),
  run: ({ email, count }) => ({ sent: count, to: email }),
});

describe("strict tools in code", () => {
  it("a strict tool's optional fields stay optional in the declarations, so code that leaves them out type-checks", async () => {
    const cm = make({ tools: new Toolset([search]) });
    // The model's direct-call schema is still OpenAI-strict...
    expect(search.parameters.required).toEqual(["query", "limit", "filters", "tags"]);
    // ...but code is declared from the loose side.
    expect(cm.declarations).toContain("limit?: number");
    expect(cm.declarations).not.toContain("| null");
    expect(checkUsage(cm.declarations, 'await tools.search({ query: "bob" });')).toEqual([]);
    expect(checkUsage(cm.declarations, 'await tools.search({ query: "bob", limit: "3" });')).not.toEqual([]);
    const result = await cm.run('return await tools.search({ query: "bob" });');
    expect(result.status).toBe("ok");
    expect(result.value).toEqual({ query: "bob" });
  });
});

describe("schema noise", () => {
  it("zod's safe-integer bounds are dropped from the JSON Schema and the declarations", () => {
    const cm = make({ tools: new Toolset([contact]) });
    const json = JSON.stringify(contact.parameters);
    expect(json).not.toContain("9007199254740991");
    expect(JSON.stringify(contact.outputSchema)).not.toContain("9007199254740991");
    expect(contact.parameters.properties).toMatchObject({
      count: { type: "integer" },
      page: { type: "integer", minimum: 1, maximum: 20 },
    });
    expect(cm.declarations).not.toContain("9007199254740991");
    expect(cm.declarations).toContain("/** integer, minimum 1, maximum 20 */");
  });

  it("a format is named, not spelled out as its regex, and validation still checks it", async () => {
    const cm = make({ tools: new Toolset([contact]) });
    expect(contact.parameters.properties).toMatchObject({ email: { type: "string", format: "email" } });
    expect(JSON.stringify(contact.parameters)).not.toContain("pattern");
    expect(cm.declarations).toContain("@format email");
    expect(cm.declarations).not.toContain("A-Za-z0-9");
    const checked = await contact.validate({ email: "not-an-email", count: 1, page: 1 });
    expect(checked.ok).toBe(false);
  });

  it("a description and its constraints are kept apart", () => {
    const cm = make({ tools: new Toolset([contact]) });
    expect(cm.declarations).toContain("/** an email (min length 2) @format email */");
    expect(cm.declarations).toContain("/** How many messages (integer) */");
    expect(cm.declarations).not.toContain("an email min length");
  });
});

describe("where the declarations go", () => {
  const count = (text: string) => text.split("declare const tools").length - 1;

  it("declarations reach the model once: in the run_code description by default", () => {
    const cm = make({ tools: new Toolset([search, contact]) });
    expect(count(cm.tool.description)).toBe(1);
    expect(count(cm.instructions)).toBe(0);
    expect(cm.tool.description).toContain(cm.declarations);
    expect(cm.instructions).toContain("declared in the description of the run_code tool");
  });

  it('with discovery.declarationsIn "instructions" they are in the instructions only', () => {
    const cm = make({ tools: new Toolset([search, contact]), discovery: { declarationsIn: "instructions" } });
    expect(count(cm.tool.description)).toBe(0);
    expect(count(cm.instructions)).toBe(1);
    expect(cm.instructions).toContain(cm.declarations);
    expect(cm.tool.description).toContain("declared in the instructions");
  });

  it("an unknown place is a UserError at codeMode()", () => {
    expect(() =>
      codeMode({
        tools: [search],
        environment: isolateEnvironment(),
        discovery: { declarationsIn: "prompt" as "tool" },
      }),
    ).toThrow(/declarationsIn must be "tool" or "instructions"/);
  });
});

describe("discovery by search", () => {
  const count = (text: string) => text.split("declare const tools").length - 1;
  const tools = new Toolset([search, contact]);

  it("the run_code description carries the index and the two sentences instead of the declarations", () => {
    const cm = make({ tools, discovery: "search" });
    expect(count(cm.tool.description)).toBe(0);
    expect(count(cm.instructions)).toBe(0);
    expect(cm.tool.description).toContain(
      `There are 2 tools, too many to declare here: below is each tool's name and what it does, and inside your code \`await tools.$search("words", { limit })\` returns the best matches (${DEFAULT_MATCH_LIMIT} unless you ask for up to ${MAX_MATCH_LIMIT}) as \`{ name, description, declaration }\``,
    );
    expect(cm.tool.description).toContain(
      `Searching and describing are not tool calls: they need no approval and do not count against the ${cm.limits.maxToolCalls} tool calls of a run.`,
    );
    expect(cm.tool.description).toContain(
      'For example, `return (await tools.$search("refund an order")).map((m) => m.declaration)`',
    );
    expect(
      cm.tool.description.endsWith(
        "The tools:\nsearch: Search the customers.\ncontact: Write to a customer.",
      ),
    ).toBe(true);
    expect(cm.instructions).toContain(
      "listed (and how to find them from your code is explained) in the description of the run_code tool",
    );
  });

  it('with discovery.declarationsIn "instructions" the index and the sentences are in the instructions only', () => {
    const cm = make({ tools, discovery: { mode: "search", declarationsIn: "instructions" } });
    expect(cm.tool.description).not.toContain("$search");
    expect(cm.tool.description).toContain(
      "The tools object is explained in the instructions about this tool.",
    );
    expect(cm.instructions).toContain("Finding the tools: There are 2 tools");
    expect(cm.instructions).toContain(
      "```\nsearch: Search the customers.\ncontact: Write to a customer.\n```",
    );
  });

  it("the numbers follow the limits: another maxToolCalls is the one the model reads", () => {
    const cm = make({ tools, discovery: "search", limits: { maxToolCalls: 7 } });
    expect(cm.tool.description).toContain("do not count against the 7 tool calls of a run");
  });

  it("code that uses $search and $describe type-checks against what the model was told", async () => {
    const cm = make({ tools, discovery: "search", typecheck: "block" });
    const run = await cm.run(`
      const [match] = await tools.$search("customers", { limit: 1 });
      const text: string = await tools.$describe(match.name);
      return [match.name, match.description, text.length > 0];`);
    expect(run.status).toBe("ok");
    expect(run.value).toEqual(["search", "Search the customers.", true]);
    const wrong = await cm.run("await tools.$search(42);");
    expect(wrong.error?.name).toBe("TypeCheckError");
  });
});

describe("restart", () => {
  it('run_code offers restart only with state: "session"', () => {
    const fresh = make({ tools: [search] });
    expect(Object.keys(fresh.tool.parameters.properties as object)).toEqual(["code"]);
    expect(`${fresh.tool.description}\n${fresh.instructions}`).not.toMatch(/restart/);
    const session = make({ tools: [search], state: "session" });
    expect(Object.keys(session.tool.parameters.properties as object)).toEqual(["code", "restart"]);
    expect(session.tool.description).toContain("restart: true");
  });
});

describe("waits for a person", () => {
  it("the instructions say which waits for a person the wall clock leaves out", () => {
    const plain = make({ tools: [search] });
    expect(plain.instructions).toContain(
      "30 s wall-clock time (time a call waits for a person's approval does not count)",
    );
    const asking = make({ tools: [search, askHuman(new HumanChannel())] });
    expect(asking.instructions).toContain(
      "30 s wall-clock time (time a call waits for a person's approval, or for a person's answer in tools.ask_human, does not count)",
    );
  });
});

describe("a forgotten await", () => {
  const listOrders = tool({
    name: "list_orders",
    description: "List the orders.",
    input: z.object({}),
    run: () => [{ amount: 2 }, { amount: 3 }],
  });

  it("reads as a forgotten await of the tool the code called, not as `orders.reduce is not a function`", async () => {
    const cm = make({ tools: new Toolset([listOrders]) });
    const result = await cm.run(
      "const orders = tools.list_orders({});\norders.reduce((sum, order) => sum + order.amount, 0)",
    );
    const text = renderCodeRunResult(result, 10_000);
    expect(text).toContain("tools.list_orders(...) returns a Promise: did you forget `await`?");
    expect(text).toContain("line 2");
    expect(text).not.toContain("is not a function");
  });
});
