/**
 * A code mode's tools are given once, as `tools` or as a dispatcher's, and what the model reads about
 * them stays what its calls run: the declarations are made when the code mode is, and a run after a
 * declared tool left the dispatcher's toolset, or was replaced there, is refused.
 */

import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { type CodeMode, codeMode, Dispatcher, Toolset, tool, UserError } from "../../src/index.js";

const opened: CodeMode[] = [];
afterAll(() => Promise.all(opened.map((cm) => cm.close())));

function shop() {
  const getOrder = tool({
    name: "get_order",
    description: "Look up an order.",
    input: z.object({ id: z.string() }),
    run: ({ id }) => ({ id, status: "shipped" }),
  });
  const refund = tool({
    name: "refund",
    description: "Refund an order.",
    input: z.object({ id: z.string() }),
    needsApproval: true,
    run: ({ id }) => `refunded ${id}`,
  });
  return { getOrder, refund, toolset: new Toolset([getOrder, refund]) };
}

function made(cm: CodeMode): CodeMode {
  opened.push(cm);
  return cm;
}

describe("codeMode({ dispatcher })", () => {
  it("declares the dispatcher's tools, and its calls go through that dispatcher's approval handler", async () => {
    const { toolset } = shop();
    const asked: string[] = [];
    const dispatcher = new Dispatcher(toolset, {
      approvalHandler: ({ toolName }) => {
        asked.push(toolName);
        return "deny";
      },
    });
    const cm = made(codeMode({ dispatcher, environment: isolateEnvironment() }));
    expect(cm.declarations).toContain("get_order(");
    expect(cm.declarations).toContain("refund(");
    const result = await cm.run(`
      const order = await tools.get_order({ id: "A1" });
      try { await tools.refund({ id: "A1" }); } catch (e) { return [order.status, e.kind]; }`);
    expect(result).toMatchObject({ status: "ok", value: ["shipped", "denied"] });
    expect(asked).toEqual(["refund"]);
  });

  it("with the same tools given as well, works the same", async () => {
    const { getOrder, refund, toolset } = shop();
    const dispatcher = new Dispatcher(toolset);
    const cm = made(codeMode({ tools: [refund, getOrder], dispatcher, environment: isolateEnvironment() }));
    expect((await cm.run(`return (await tools.get_order({ id: "B2" })).id`)).value).toBe("B2");
  });

  it("with other tools given as well, is a UserError at creation naming the difference", () => {
    const { getOrder, toolset } = shop();
    const dispatcher = new Dispatcher(toolset);
    expect(() => codeMode({ tools: [getOrder], dispatcher, environment: isolateEnvironment() })).toThrow(
      UserError,
    );
    expect(() => codeMode({ tools: [getOrder], dispatcher, environment: isolateEnvironment() })).toThrow(
      /only in the dispatcher: refund/,
    );
  });
});

describe("a dispatcher's toolset that changes after the code mode was made", () => {
  it("a tool added later is not declared, and the code cannot call it", async () => {
    const { toolset } = shop();
    const dispatcher = new Dispatcher(toolset);
    const cm = made(codeMode({ dispatcher, environment: isolateEnvironment() }));
    const declarations = cm.declarations;
    toolset.add(
      tool({ name: "wipe", description: "Wipe everything.", input: z.object({}), run: () => "wiped" }),
    );
    const result = await cm.run(`try { return await tools.wipe({}); } catch (e) { return e.message; }`);
    expect(result).toMatchObject({ status: "ok", value: "tools.wipe is not a function", calls: [] });
    expect(cm.declarations).toBe(declarations);
  });

  it("a run after a declared tool was removed or replaced is refused with a UserError naming it", async () => {
    const { toolset } = shop();
    const dispatcher = new Dispatcher(toolset);
    const cm = made(codeMode({ dispatcher, environment: isolateEnvironment() }));
    toolset.remove("refund");
    await expect(cm.run("return 1")).rejects.toThrow(
      /^codeMode: the dispatcher's tools changed after this code mode was made \(removed: refund\)/,
    );
    const another = tool({
      name: "get_order",
      description: "Look up an order.",
      input: z.object({ id: z.string() }),
      run: () => "another",
    });
    toolset.add(another, { replace: true });
    await expect(cm.run("return 1")).rejects.toThrow(
      /\(removed: refund; replaced by another tool object: get_order\).*make a new code mode/,
    );
  });
});
