/**
 * The type check across runs: in a session, what earlier runs declared is known to later ones (and only
 * what they really left); a paused run resumes without being checked again.
 */

import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { type CodeMode, codeMode, tool } from "../../src/index.js";
import { countingShop } from "./typecheck-fixtures.js";

const opened: CodeMode[] = [];
afterAll(() => Promise.all(opened.map((mode) => mode.close())));

describe("a session's variables", () => {
  const shop = countingShop();
  const mode = codeMode({
    tools: shop.tools,
    environment: isolateEnvironment(),
    typecheck: "block",
    state: "session",
  });
  opened.push(mode);

  it("are declared for later runs: values, functions, classes and type names", async () => {
    const first = await mode.run(`const order = await tools.get_order({ order_id: "A1" });
let seen = 1;
function double(n: number) { return n * 2; }
class Box { constructor(public n: number) {} }
type Row = { id: string };
const { status, amount: cents } = order;
order.id`);
    expect(first.value).toBe("A1");
    const second = await mode.run(`seen += 1;
const row: Row = { id: order.id };
return [double(cents), new Box(seen).n, status, row.id];`);
    expect(second.error).toBeUndefined();
    expect(second.value).toEqual([80, 2, "paid", "A1"]);
  });

  it("a run the check stopped left nothing: its names stay unknown", async () => {
    const stopped = await mode.run(`const ghost: number = "boo";`);
    expect(stopped.error?.name).toBe("TypeCheckError");
    const after = await mode.run("return ghost;");
    expect(after.diagnostics).toEqual([expect.objectContaining({ line: 1, code: 2304 })]);
  });

  it("a restarted session's sandbox starts without them", async () => {
    const restarted = await mode.run("return seen;", { restart: true });
    expect(restarted.error?.name).toBe("TypeCheckError");
    expect(restarted.diagnostics?.[0]?.message).toBe("Cannot find name 'seen'.");
  });

  it("sessions do not see each other's names", async () => {
    await mode.run("const mine = 1;", { session: "a" });
    const other = await mode.run("return mine;", { session: "b" });
    expect(other.diagnostics?.[0]?.code).toBe(2304);
    const same = await mode.run("return mine;", { session: "a" });
    expect(same.value).toBe(1);
  });
});

describe("a paused run", () => {
  it("resumes without a second check: a run that went on in report mode is not stopped on resume by block mode", async () => {
    const effects: string[] = [];
    const tools = [
      tool({
        name: "note",
        description: "Writes a note.",
        input: z.object({ text: z.string() }),
        output: z.number(),
        run: ({ text }) => {
          effects.push(text);
          return effects.length;
        },
      }),
      tool({
        name: "send",
        description: "Sends a message, once approved.",
        input: z.object({ to: z.string() }),
        needsApproval: true,
        run: ({ to }) => {
          effects.push(`sent to ${to}`);
          return "sent";
        },
      }),
    ];
    const key = "a host secret, 32 bytes at least!";
    const settings = { tools, approval: "pause", pause: { key } } as const;
    const reporting = codeMode({ ...settings, environment: isolateEnvironment(), typecheck: "report" });
    const blocking = codeMode({ ...settings, environment: isolateEnvironment(), typecheck: "block" });
    opened.push(reporting, blocking);
    // `count` is a number: adding it to a string array is a type error, harmless at run time.
    const code = `const count = await tools.note({ text: "first" });
const labels: string[] = [];
labels.push(count);
await tools.send({ to: "ops" });
return labels;`;
    const paused = await reporting.run(code);
    expect(paused.status).toBe("paused");
    expect(paused.diagnostics?.map((d) => d.line)).toEqual([3]);
    expect((await blocking.run(code)).error?.name).toBe("TypeCheckError");
    const resumed = await blocking.resume(paused.checkpoint!, {
      decisions: { [paused.pending![0]!.id]: true },
    });
    expect(resumed.status).toBe("ok");
    expect(resumed.value).toEqual([1]);
    expect(effects).toEqual(["first", "sent to ops"]);
  });
});
