/**
 * Learnt result types in code mode: recorded from the successful results of calls from code and of
 * direct calls through the code mode's dispatcher, for tools without an output schema that did not opt
 * out; shown in the declarations only once `refreshDeclarations()` makes them again.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { sandboxHostEnvironment } from "../../environments/sandbox-host/index.js";
import { OBSERVED_RETURNS_PREFIX } from "../../src/codemode/discovery/tool-declaration.js";
import {
  MAX_OBSERVED_TOOLS,
  OBSERVE_EVERY_NTH_RESULT,
  OBSERVE_FIRST_RESULTS,
} from "../../src/codemode/observed/store.js";
import { renderObservedType } from "../../src/entries/discovery.js";
import {
  type CodeMode,
  codeMode,
  Dispatcher,
  ObservedTypes,
  ToolError,
  Toolset,
  tool,
  UserError,
} from "../../src/index.js";

function notesTools() {
  const getNote = tool({
    name: "get_note",
    description: "One note by id.",
    input: z.object({ id: z.number() }),
    run: ({ id }) => {
      if (id === 0) throw new ToolError("There is no note 0.");
      return id === 2 ? { id, text: "call Ada", tags: ["work"] } : { id, text: "buy milk" };
    },
  });
  const typed = tool({
    name: "count_notes",
    description: "How many notes there are.",
    input: z.object({}),
    output: z.object({ count: z.number() }),
    run: () => ({ count: 2 }),
  });
  const secret = tool({
    name: "read_vault",
    description: "Read the vault.",
    input: z.object({}),
    observeResults: false,
    run: () => ({ pin: "1234" }),
  });
  const gated = tool({
    name: "delete_note",
    description: "Delete a note.",
    input: z.object({ id: z.number() }),
    needsApproval: true,
    run: ({ id }) => ({ deleted: id }),
  });
  const dashed = tool({
    name: "notes-search",
    description: "Search notes.",
    input: z.object({ q: z.string() }),
    run: ({ q }) => [{ id: 1, match: q }],
  });
  return new Toolset([getNote, typed, secret, gated, dashed]);
}

const open: CodeMode[] = [];
function make(options: Partial<Parameters<typeof codeMode>[0]> = {}) {
  const tools = notesTools();
  const dispatcher = new Dispatcher(tools);
  const cm = codeMode({ dispatcher, environment: isolateEnvironment(), ...options });
  open.push(cm);
  return { cm, dispatcher, tools };
}
afterAll(async () => {
  await Promise.all(open.map((cm) => cm.close()));
});

const shown = (cm: CodeMode, name: string) => {
  const type = cm.observedTypeOf(name);
  return type && renderObservedType(type);
};

describe("recording", () => {
  it("learns from calls made from code: keys seen in some results only are optional", async () => {
    const { cm } = make();
    const run = await cm.run("return [await tools.get_note({ id: 1 }), await tools.get_note({ id: 2 })]");
    expect(run.status).toBe("ok");
    expect(shown(cm, "get_note")).toBe("{ id: number; text: string; tags?: string[] }");
    expect(cm.observedTypes.resultsOf("get_note")).toBe(2);
  });

  it("learns from direct calls through the code mode's dispatcher too, once per call", async () => {
    const { cm, dispatcher } = make();
    const results = await dispatcher
      .dispatch([
        { id: "a", name: "get_note", arguments: { id: 1 } },
        { id: "b", name: "notes-search", arguments: { q: "milk" } },
      ])
      .results();
    expect(results.every((r) => r.ok)).toBe(true);
    expect(shown(cm, "get_note")).toBe("{ id: number; text: string }");
    // By its name, or by its name in code.
    expect(shown(cm, "notes-search")).toBe("{ id: number; match: string }[]");
    expect(shown(cm, "notes_search")).toBe("{ id: number; match: string }[]");
    expect(cm.observedTypes.resultsOf("get_note")).toBe(1);
  });

  it("never observes a tool with an output schema, nor one that opted out", async () => {
    const { cm } = make();
    const run = await cm.run("return [await tools.count_notes(), await tools.read_vault()]");
    expect(run.status).toBe("ok");
    expect(cm.observedTypeOf("count_notes")).toBeUndefined();
    expect(cm.observedTypeOf("read_vault")).toBeUndefined();
    expect(cm.observedTypes.tools()).toEqual([]);
  });

  it("never observes a failure: a tool error, invalid arguments, a denied call", async () => {
    const { cm } = make();
    const run = await cm.run(`
      const outcomes = [];
      for (const call of [() => tools.get_note({ id: 0 }), () => tools.get_note({ id: "x" }), () => tools.delete_note({ id: 1 })]) {
        try { await call(); outcomes.push("ok"); } catch (e) { outcomes.push(e.kind); }
      }
      return outcomes;`);
    expect(run.value).toEqual(["error", "invalid_arguments", "denied"]);
    expect(cm.observedTypes.tools()).toEqual([]);
  });

  it("a result unlike those seen before is never refused: the type only widens", async () => {
    const odd = tool({
      name: "shape_shifter",
      description: "Returns what it likes.",
      input: z.object({ n: z.number() }),
      run: ({ n }) => [{ a: 1 }, "text", 42, null, [1]][n],
    });
    const tools = new Toolset([odd]);
    const cm = codeMode({ tools, environment: isolateEnvironment() });
    open.push(cm);
    const run = await cm.run(
      "const out = []; for (let n = 0; n < 5; n++) out.push(await tools.shape_shifter({ n })); return out;",
    );
    expect(run.status).toBe("ok");
    expect(run.value).toEqual([{ a: 1 }, "text", 42, null, [1]]);
    expect(shown(cm, "shape_shifter")).toBe("unknown");
  });

  it("observes only the code mode's own tools, not the run_code calls on a shared dispatcher", async () => {
    const tools = notesTools();
    const dispatcher = new Dispatcher(tools);
    const cm = codeMode({ tools, dispatcher, environment: isolateEnvironment() });
    open.push(cm);
    tools.add(cm.tool);
    const [result] = await dispatcher
      .dispatch([
        { id: "r", name: "run_code", arguments: { code: "return await tools.get_note({ id: 1 })" } },
      ])
      .results();
    expect(result?.ok).toBe(true);
    expect(cm.observedTypes.tools()).toEqual(["get_note"]);
  });

  it("observe.results false turns it off entirely, even with a store that knows the tools", async () => {
    const known = new ObservedTypes();
    known.record("get_note", { id: 1 });
    const { cm } = make({ observe: { results: false, store: known } });
    await cm.run("return await tools.get_note({ id: 2 })");
    expect(cm.observedTypeOf("get_note")).toBeUndefined();
    expect(known.resultsOf("get_note")).toBe(1);
    expect(cm.declarations).not.toContain(OBSERVED_RETURNS_PREFIX);
  });

  it("closing the code mode stops its recording", async () => {
    const { cm, dispatcher } = make();
    await cm.close();
    await dispatcher.dispatch([{ id: "a", name: "get_note", arguments: { id: 1 } }]).results();
    expect(cm.observedTypes.tools()).toEqual([]);
  });

  it("bad options are refused with what they take", () => {
    const tools = notesTools();
    expect(() =>
      codeMode({
        tools,
        environment: isolateEnvironment(),
        observe: { results: "yes" as unknown as boolean },
      }),
    ).toThrow(/observe.results must be true or false/);
    expect(() =>
      codeMode({
        tools,
        environment: isolateEnvironment(),
        observe: { store: {} as unknown as ObservedTypes },
      }),
    ).toThrow(UserError);
    expect(() =>
      tool({ name: "t", description: "T.", observeResults: 1 as unknown as boolean, run: () => 1 }),
    ).toThrow(/observeResults must be true or false/);
  });
});

describe("what the model reads", () => {
  it("stays the same after calls; refreshDeclarations() makes it show the learnt types", async () => {
    const { cm } = make();
    const before = {
      description: cm.tool.description,
      declarations: cm.declarations,
      instructions: cm.instructions,
    };
    await cm.run("await tools.get_note({ id: 1 }); return await tools.get_note({ id: 2 })");
    expect(cm.observedTypeOf("get_note")).toBeDefined();
    expect({
      description: cm.tool.description,
      declarations: cm.declarations,
      instructions: cm.instructions,
    }).toEqual(before);

    expect(cm.refreshDeclarations()).toBe(true);
    const line = `${OBSERVED_RETURNS_PREFIX} { id: number; text: string; tags?: string[] }`;
    expect(cm.declarations).toContain(line);
    expect(cm.tool.description).toContain(line);
    expect(cm.tool.description).toContain(cm.declarations);
    // The hint is in the JSDoc; the signature still promises nothing.
    expect(cm.declarations).toMatch(/get_note\(args: \{ id: number \}\): Promise<unknown>;/);
    // Only observed tools get one.
    expect(
      cm.declarations.match(new RegExp(OBSERVED_RETURNS_PREFIX.replace(/[()]/g, "\\$&"), "g")),
    ).toHaveLength(1);
    // Nothing new learnt: nothing changes.
    expect(cm.refreshDeclarations()).toBe(false);
  });

  it("with discovery.declarationsIn instructions, the instructions show them after a refresh", async () => {
    const { cm } = make({ discovery: { declarationsIn: "instructions" } });
    await cm.run("return await tools.get_note({ id: 1 })");
    expect(cm.instructions).not.toContain(OBSERVED_RETURNS_PREFIX);
    cm.refreshDeclarations();
    expect(cm.instructions).toContain(`${OBSERVED_RETURNS_PREFIX} { id: number; text: string }`);
    expect(cm.tool.description).not.toContain(OBSERVED_RETURNS_PREFIX);
  });

  it("a code mode made over a store that knows types declares them from the start, and shares what it learns", async () => {
    const store = new ObservedTypes();
    const first = make({ observe: { store } });
    await first.cm.run("return await tools.get_note({ id: 2 })");
    const second = make({ observe: { store } });
    expect(second.cm.declarations).toContain(
      `${OBSERVED_RETURNS_PREFIX} { id: number; text: string; tags: string[] }`,
    );
    await second.cm.run("return await tools.get_note({ id: 1 })");
    expect(shown(first.cm, "get_note")).toBe("{ id: number; text: string; tags?: string[] }");
  });
});

describe("in the default sandbox-host environment", () => {
  it("learns from calls made from code in a sandbox process", async () => {
    const tools = notesTools();
    const cm = codeMode({ tools, environment: sandboxHostEnvironment({ processes: 1 }) });
    open.push(cm);
    const run = await cm.run(
      "const notes = await Promise.all([1, 2].map((id) => tools.get_note({ id }))); return notes.length",
    );
    expect(run.status).toBe("ok");
    expect(run.value).toBe(2);
    expect(shown(cm, "get_note")).toBe("{ id: number; text: string; tags?: string[] }");
  });
});

describe("the documentation", () => {
  it("states the sampling and the bound as the code has them", () => {
    const root = join(import.meta.dirname, "../..");
    const guide = readFileSync(join(root, "docs/code-mode.md"), "utf8");
    expect(guide.replace(/\s+/g, " ")).toContain(
      `A tool's first ${OBSERVE_FIRST_RESULTS} results are all observed, then one in ${OBSERVE_EVERY_NTH_RESULT}`,
    );
    expect(guide).toContain(`a tool's first ${OBSERVE_FIRST_RESULTS} results (\`OBSERVE_FIRST_RESULTS\`)`);
    expect(guide).toContain(`then one in ${OBSERVE_EVERY_NTH_RESULT}`);
    expect(guide).toContain(`${MAX_OBSERVED_TOOLS.toLocaleString("en-US")} tools (\`MAX_OBSERVED_TOOLS\`)`);
  });
});
