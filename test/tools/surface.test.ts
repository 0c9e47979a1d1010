// The host shapes the tool surface (agentao): read-only views for plan modes, sub-agent toolsets of
// copies, read-only-ness in code mode's declarations, and a host's own tool in a built-in's place.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { READ_ONLY_NOTE, toolDeclarations } from "../../src/codemode/declarations.js";
import { now, webFetch } from "../../src/entries/builtins.js";
import { isolateEnvironment } from "../../src/entries/in-process.js";
import { type AnyTool, codeMode, Dispatcher, Toolset, tool, UserError } from "../../src/index.js";

const make = (name: string, options: { readOnly?: boolean; copiesToSubagents?: boolean } = {}) =>
  tool({ name, description: `The ${name} tool.`, input: z.object({}), run: () => name, ...options });

const readFile = make("read_file", { readOnly: true });
const search = make("search", { readOnly: true });
const writeFile = make("write_file");
const deploy = make("deploy", { copiesToSubagents: true });
const sessionGoal = make("update_goal", { readOnly: true, copiesToSubagents: false });
const all = new Toolset([readFile, writeFile, search, deploy, sessionGoal]);

describe("readOnly and copiesToSubagents options", () => {
  it("are checked like the other options", () => {
    expect(() => make("x", { copiesToSubagents: "yes" as never })).toThrow(
      /copiesToSubagents must be true or false/,
    );
    expect(deploy.options.copiesToSubagents).toBe(true);
  });
});

describe("Toolset.readOnly()", () => {
  it("keeps only read-only tools, in order, as a new Toolset", () => {
    const plan = all.readOnly();
    expect(plan).not.toBe(all);
    expect(plan.names()).toEqual(["read_file", "search", "update_goal"]);
    expect(all.size).toBe(5);
  });

  it("makes a plan mode: a dispatcher over it cannot reach a writing tool", async () => {
    const dispatcher = new Dispatcher(all.readOnly());
    const [result] = await dispatcher.dispatch([{ id: "1", name: "write_file", arguments: {} }]).results();
    expect(result!.error?.kind).toBe("unknown_tool");
  });
});

describe("Toolset.forSubagent()", () => {
  it("hands over read-only tools by default, and others only when they declare copiesToSubagents", () => {
    expect(all.forSubagent().names()).toEqual(["read_file", "search", "deploy"]);
  });

  it("gives each sub-agent its own copies, so it cannot change the parent's tools", () => {
    const first = all.forSubagent();
    const second = all.forSubagent();
    const copy = first.get("read_file")!;
    expect(copy).not.toBe(readFile);
    expect(second.get("read_file")).not.toBe(copy);
    expect(copy.run).toBe(readFile.run);
    (copy as { description: string }).description = "changed by the sub-agent";
    (copy.options as { timeout?: number }).timeout = 1;
    expect(readFile.description).toBe("The read_file tool.");
    expect(readFile.options.timeout).toBeUndefined();
  });

  it("keeps a class-based tool's prototype in the copy", async () => {
    class Counter implements AnyTool {
      readonly name = "counter";
      readonly description = "Counts calls.";
      readonly parameters = { type: "object", properties: {} };
      readonly outputSchema = undefined;
      readonly options = { readOnly: true };
      calls = 0;
      validate(args: unknown) {
        return { ok: true as const, value: args };
      }
      run() {
        return ++this.calls;
      }
    }
    const original = new Counter();
    const copy = new Toolset([original]).forSubagent().get("counter") as Counter;
    expect(copy).toBeInstanceOf(Counter);
    const dispatcher = new Dispatcher(new Toolset([copy]));
    await dispatcher.dispatch([{ id: "1", name: "counter", arguments: {} }]).results();
    expect(copy.calls).toBe(1);
    expect(original.calls).toBe(0);
  });

  it("applies the sub-agent's own whitelist on top, and refuses names the set does not have", () => {
    expect(all.forSubagent(["read_file", "write_file"]).names()).toEqual(["read_file"]);
    expect(() => all.forSubagent(["nope"])).toThrow(UserError);
  });
});

describe("read-only tools in code mode's declarations", () => {
  it("marks read-only tools in their JSDoc and leaves others unmarked", () => {
    const text = toolDeclarations([
      {
        name: "read_file",
        description: "Read a file.",
        parameters: { type: "object", properties: {} },
        readOnly: true,
      },
      { name: "write_file", description: "Write a file.", parameters: { type: "object", properties: {} } },
    ]);
    expect(text).toContain(`/**\n   * Read a file.\n   * ${READ_ONLY_NOTE}\n   */\n  read_file(`);
    expect(text).toContain("/** Write a file. */\n  write_file(");
  });

  it("shows up in codeMode's declarations from the tools' own options", async () => {
    const cm = codeMode({ tools: new Toolset([readFile, writeFile]), environment: isolateEnvironment() });
    expect(cm.declarations.split(READ_ONLY_NOTE)).toHaveLength(2);
    expect(cm.declarations.indexOf(READ_ONLY_NOTE)).toBeLessThan(cm.declarations.indexOf("write_file("));
    await cm.close();
  });
});

describe("replacing a built-in with the host's own implementation", () => {
  it("puts the host's tool under the built-in's name, and calls reach it", async () => {
    const tools = new Toolset([webFetch(), now]);
    const hostFetch = tool({
      name: "web_fetch",
      description: "Fetch a page through the company proxy.",
      input: z.object({ url: z.string() }),
      readOnly: true,
      run: ({ url }) => `proxied ${url}`,
    });
    expect(() => tools.add(hostFetch)).toThrow(/already in this toolset/);
    tools.add(hostFetch, { replace: true });
    expect(tools.names()).toEqual(["web_fetch", "now"]);
    const [result] = await new Dispatcher(tools)
      .dispatch([{ id: "1", name: "web_fetch", arguments: { url: "https://example.com/" } }])
      .results();
    expect(result!.output).toBe("proxied https://example.com/");
  });
});
