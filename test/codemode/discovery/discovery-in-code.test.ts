/**
 * Discovery from inside the code: `codeMode({ discovery })` inlines a small catalog as before and makes
 * a large one searchable, and `tools.$search` / `tools.$describe` answer from the host's index without
 * being tool calls (no approval, no limit, no call record), in the in-process isolate and the sandbox
 * host. (Docker and remote run the same cases in the conformance suite.)
 */

import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../../environments/in-process/index.js";
import { MAX_DISCOVERY_CALLS } from "../../../sandbox/contract/index.js";
import { DEFAULT_INLINE_BUDGET } from "../../../src/codemode/code-mode.js";
import { OBSERVED_RETURNS_PREFIX } from "../../../src/codemode/discovery/tool-declaration.js";
import { DEFAULT_MATCH_LIMIT, MAX_MATCH_LIMIT } from "../../../src/codemode/discovery/tool-index.js";
import { estimateTokens } from "../../../src/entries/discovery.js";
import {
  type CodeMode,
  type CodeModeOptions,
  codeMode,
  Dispatcher,
  Toolset,
  tool,
  UserError,
} from "../../../src/index.js";
import { TEST_ENVIRONMENTS } from "../../isolate/helpers.js";
import { catalogTools } from "./catalog/index.js";

const KEY = "a host secret, 32 bytes at least!";
const opened: CodeMode[] = [];
afterAll(() => Promise.all(opened.map((cm) => cm.close())));

function make(options: CodeModeOptions): CodeMode {
  const cm = codeMode(options);
  opened.push(cm);
  return cm;
}

const add = tool({
  name: "add",
  description: "Add two numbers.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

describe("choosing how the model learns the tools", () => {
  it('"auto" inlines a small catalog exactly as before: the declarations, and no $search in code', async () => {
    const auto = make({ tools: [add], environment: isolateEnvironment() });
    const inline = make({ tools: [add], environment: isolateEnvironment(), discovery: "inline" });
    expect(auto.discovery).toBe("inline");
    expect(auto.tool.description).toBe(inline.tool.description);
    expect(auto.instructions).toBe(inline.instructions);
    expect(auto.tool.description).toContain(auto.declarations);
    expect(auto.tool.description).not.toContain("$search");
    const run = await auto.run("return [typeof tools.$search, typeof tools.$describe];");
    expect(run.value).toEqual(["undefined", "undefined"]);
  });

  it('"auto" searches a catalog whose declarations cost more than the inline budget, and inlines it under a larger one', () => {
    const tools = catalogTools();
    const auto = make({ tools, environment: isolateEnvironment() });
    expect(estimateTokens(auto.declarations)).toBeGreaterThan(DEFAULT_INLINE_BUDGET);
    expect(auto.discovery).toBe("search");
    expect(auto.tool.description).not.toContain(auto.declarations);
    // Even their names cost more than the budget: the index lists the namespaces, with their best-known tools.
    expect(auto.tool.description).toContain(
      "below is each namespace with how many tools it has and a few of them,",
    );
    expect(auto.tool.description).toMatch(/^shop \(22 tools\), e\.g\. shop__\w+, /m);
    const roomier = make({ tools, environment: isolateEnvironment(), discovery: { inlineBudget: 20_000 } });
    expect(roomier.discovery).toBe("search");
    expect(roomier.tool.description).toContain("below is each tool's name and what it does,");
    expect(roomier.tool.description).toContain(
      "\n  shop__list_orders: List orders by customer, status or date range, newest first, with totals.\n",
    );
    const roomy = make({ tools, environment: isolateEnvironment(), discovery: { inlineBudget: 1_000_000 } });
    expect(roomy.discovery).toBe("inline");
    expect(roomy.tool.description).toContain(roomy.declarations);
  });

  it('"search" on a small catalog lists it in the index, and the index is shortened to the budget', () => {
    const cm = make({ tools: [add], environment: isolateEnvironment(), discovery: "search" });
    expect(cm.discovery).toBe("search");
    expect(cm.tool.description).toContain("add: Add two numbers.");
    const tight = make({
      tools: catalogTools(),
      environment: isolateEnvironment(),
      discovery: { inlineBudget: 400 },
    });
    // 340 tools do not fit 400 tokens with their summaries, nor by name: their namespaces do.
    expect(tight.tool.description).toContain("each namespace with how many tools it has");
    expect(tight.tool.description).toMatch(/^shop \(\d+ tools\)/m);
  });

  it("bad options are a UserError that says what is allowed", () => {
    expect(() =>
      codeMode({ tools: [add], environment: isolateEnvironment(), discovery: "lazy" as never }),
    ).toThrow(new UserError('codeMode: discovery must be "auto", "inline" or "search", got "lazy".'));
    expect(() =>
      codeMode({ tools: [add], environment: isolateEnvironment(), discovery: { inlineBudget: 0 } }),
    ).toThrow(/discovery.inlineBudget must be a whole number of tokens, at least 1, got 0/);
  });
});

for (const { name, create } of TEST_ENVIRONMENTS) {
  describe(`[${name}] tools.$search and tools.$describe`, () => {
    it("$search returns the best matches with their declarations, and $describe one declaration", async () => {
      const cm = make({ tools: catalogTools(), environment: create(), discovery: "search" });
      const run = await cm.run(`
        const matches = await tools.$search("open a pull request", { limit: 3 });
        const one = await tools.$describe(matches[0].name);
        const fewer = await tools.$search("unpaid invoices");
        return { matches, one, count: fewer.length };`);
      expect(run.status).toBe("ok");
      const value = run.value as {
        matches: { name: string; description: string; declaration: string }[];
        one: string;
        count: number;
      };
      expect(value.matches).toHaveLength(3);
      expect(value.matches[0]).toMatchObject({ name: "github__create_pull_request" });
      expect(value.matches[0]!.declaration).toMatch(
        /^\/\*\*[\s\S]*\*\/\ngithub__create_pull_request\(args: \{/,
      );
      expect(Object.keys(value.matches[0]!)).toEqual(["name", "description", "declaration"]);
      expect(value.one).toBe(value.matches[0]!.declaration);
      expect(value.count).toBe(DEFAULT_MATCH_LIMIT);
      expect(run.calls).toEqual([]);
      expect(run.discovery).toEqual([
        { kind: "search", query: "open a pull request", results: value.matches.map((m) => m.name) },
        { kind: "describe", name: "github__create_pull_request", results: ["github__create_pull_request"] },
        { kind: "search", query: "unpaid invoices", results: expect.any(Array) },
      ]);
    });

    it("they are not tool calls: no approval, not counted against maxToolCalls, not in calls", async () => {
      const asked: string[] = [];
      const gatedAdd = { ...add, options: { ...add.options, needsApproval: true } };
      const tools = new Toolset([gatedAdd, ...catalogTools()]);
      const cm = make({
        tools,
        environment: create(),
        discovery: "search",
        limits: { maxToolCalls: 1 },
        dispatcher: new Dispatcher(tools, {
          approvalHandler: ({ toolName }) => {
            asked.push(toolName);
            return "allow";
          },
        }),
      });
      const run = await cm.run(`
        for (let i = 0; i < 5; i++) await tools.$search("add numbers " + i);
        await tools.$describe("add");
        return await tools.add({ a: 1, b: 2 });`);
      expect(run).toMatchObject({ status: "ok", value: 3 });
      expect(run.calls.map((call) => call.tool)).toEqual(["add"]);
      expect(run.discovery).toHaveLength(6);
      // The one gated tool call was asked about; the six discovery calls never were.
      expect(asked).toEqual(["add"]);
      // The one tool call allowed was still available after six discovery calls; a second is refused.
      const second = await cm.run(`
        await tools.$search("add");
        await tools.add({ a: 1, b: 2 });
        try { await tools.add({ a: 1, b: 2 }); } catch (e) { return e.kind; }`);
      expect(second).toMatchObject({ status: "ok", value: "limit" });
    });

    it("bad arguments and unknown names are clear errors the code can catch", async () => {
      const cm = make({ tools: catalogTools(), environment: create(), discovery: "search" });
      const run = await cm.run(`
        const errors = [];
        for (const attempt of [
          () => tools.$search(42),
          () => tools.$search("  "),
          () => tools.$search("issues", { limit: 0 }),
          () => tools.$search("issues", { limit: ${MAX_MATCH_LIMIT + 1} }),
          () => tools.$search("issues", { limit: 2.5 }),
          () => tools.$search("issues", "five"),
          () => tools.$describe(7),
          () => tools.$describe("shop__list_order"),
        ]) {
          try { await attempt(); errors.push("no error"); } catch (e) { errors.push([e.name, e.tool, e.kind, e.message]); }
        }
        return errors;`);
      expect(run.status).toBe("ok");
      const errors = run.value as [string, string, string, string][];
      const usage = `tools.$search(query, { limit }) takes the words to look for as a string and an optional limit from 1 to ${MAX_MATCH_LIMIT}`;
      expect(errors.slice(0, 6).map((e) => e.slice(0, 3))).toEqual(
        Array.from({ length: 6 }, () => ["ToolCallError", "$search", "invalid_arguments"]),
      );
      expect(errors[0]![3]).toContain(
        `${usage}, e.g. await tools.$search("refund an order", { limit: 3 }); the query was number.`,
      );
      expect(errors[1]![3]).toContain("the query was a blank string");
      expect(errors[2]![3]).toContain("the limit was 0.");
      expect(errors[3]![3]).toContain(`the limit was ${MAX_MATCH_LIMIT + 1}.`);
      expect(errors[4]![3]).toContain("the limit was 2.5.");
      expect(errors[5]![3]).toContain("the second argument was string, not an object");
      expect(errors[6]!.slice(0, 3)).toEqual(["ToolCallError", "$describe", "invalid_arguments"]);
      expect(errors[6]![3]).toContain(
        'tools.$describe(name) takes one tool\'s name as a string, e.g. await tools.$describe("get_order"); got number.',
      );
      expect(errors[7]!.slice(0, 3)).toEqual(["ToolCallError", "$describe", "invalid_arguments"]);
      expect(errors[7]![3]).toMatch(
        /^There is no tool named "shop__list_order"\. Close names: shop__list_orders, shop__list_order_items, /,
      );
      // Only the calls that reached the host are recorded: the unknown name, with no result.
      expect(run.discovery).toEqual([{ kind: "describe", name: "shop__list_order", results: [] }]);
    });

    it(`a run may make ${MAX_DISCOVERY_CALLS} discovery calls; the next is refused as a limit, and tool calls go on`, async () => {
      const cm = make({ tools: [add], environment: create(), discovery: "search" });
      const run = await cm.run(`
        for (let i = 0; i < ${MAX_DISCOVERY_CALLS}; i++) await tools.$describe("add");
        let refused;
        try { await tools.$search("add"); } catch (e) { refused = [e.kind, e.message]; }
        return { refused, sum: await tools.add({ a: 2, b: 2 }) };`);
      expect(run.status).toBe("ok");
      expect(run.value).toEqual({
        refused: [
          "limit",
          `tools.$search() was refused: this run already made ${MAX_DISCOVERY_CALLS} $search and $describe calls, the most allowed in one run. Keep the declarations you found in a variable instead of searching again.`,
        ],
        sum: 4,
      });
      expect(run.discovery).toHaveLength(MAX_DISCOVERY_CALLS);
    });

    it("the report the model reads says what the code looked up", async () => {
      const cm = make({ tools: catalogTools(), environment: create(), discovery: "search" });
      const [result] = await new Dispatcher(new Toolset([cm.tool]))
        .dispatch([
          {
            id: "c1",
            name: "run_code",
            arguments: { code: 'return (await tools.$search("who is on call", { limit: 2 })).length;' },
          },
        ])
        .results();
      expect(result!.output).toMatch(
        /^status: ok in \d+ ms; no tool calls; discovery: \$search "who is on call" → 2 tools\nresult: 2$/,
      );
    });

    it("a run that paused after a $search resumes by replay: the search is answered again, the effect happens once", async () => {
      const effects: string[] = [];
      const send = tool({
        name: "mail__send",
        description: "Sends a message, once approved.",
        input: z.object({ to: z.string() }),
        needsApproval: true,
        run: ({ to }) => {
          effects.push(`sent to ${to}`);
          return `sent to ${to}`;
        },
      });
      const note = tool({
        name: "notes__append",
        description: "Appends a line to the notes.",
        input: z.object({ line: z.string() }),
        run: ({ line }) => {
          effects.push(line);
          return effects.length;
        },
      });
      const cm = make({
        tools: [note, send, ...catalogTools()],
        environment: create(),
        discovery: "search",
        approval: "pause",
        pause: { key: KEY },
      });
      const code = `
        await tools.notes__append({ line: "before" });
        const [found] = await tools.$search("send a message", { limit: 1 });
        const sent = await tools[found.name]({ to: "ann" });
        const again = await tools.$describe("notes__append");
        return { found: found.name, sent, again: again.length > 0 };`;
      const paused = await cm.run(code);
      expect(paused.status).toBe("paused");
      expect(paused.pending?.map((call) => call.tool)).toEqual(["mail__send"]);
      expect(paused.discovery).toEqual([
        { kind: "search", query: "send a message", results: ["mail__send"] },
      ]);
      expect(effects).toEqual(["before"]);
      const resumed = await cm.resume(paused.checkpoint!, { decisions: { [paused.pending![0]!.id]: true } });
      expect(resumed).toMatchObject({
        status: "ok",
        value: { found: "mail__send", sent: "sent to ann", again: true },
      });
      expect(effects).toEqual(["before", "sent to ann"]);
      expect(resumed.calls.map((call) => [call.tool, call.status])).toEqual([
        ["notes__append", "ok"],
        ["mail__send", "ok"],
      ]);
      expect(resumed.discovery?.map((record) => record.kind)).toEqual(["search", "describe"]);
    });
  });
}

describe("learnt result types in what discovery answers", () => {
  it("$describe and $search show a tool's observed result type as soon as it is learnt, while the prompt stays as it was", async () => {
    const order = tool({
      name: "get_order",
      description: "Look up one order by its id.",
      input: z.object({ id: z.string() }),
      run: ({ id }) => ({ id, total: 42, lines: [{ sku: "A-1", qty: 2 }] }),
    });
    const cm = make({ tools: [order, add], environment: isolateEnvironment(), discovery: "search" });
    const before = cm.tool.description;
    const first = await cm.run(`return await tools.$describe("get_order");`);
    expect(first.status).toBe("ok");
    expect(String(first.value)).not.toContain(OBSERVED_RETURNS_PREFIX);
    const learnt = await cm.run(`
      await tools.get_order({ id: "o-1" });
      const [match] = await tools.$search("order by id", { limit: 1 });
      return { described: await tools.$describe("get_order"), searched: match.declaration };
    `);
    expect(learnt.status).toBe("ok");
    const { described, searched } = learnt.value as { described: string; searched: string };
    expect(described).toContain(
      `${OBSERVED_RETURNS_PREFIX} { id: string; total: number; lines: { sku: string; qty: number }[] }`,
    );
    expect(searched).toBe(described);
    // The add tool never ran, so it has no observed type; the cached prompt did not change.
    expect(cm.tool.description).toBe(before);
  });
});
