import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type CodeMode, type CodeRunResult, codeMode, Dispatcher, Toolset, tool } from "../../src/index.js";
import { TEST_ENVIRONMENTS } from "../isolate/helpers.js";

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function refunds() {
  const done: string[] = [];
  const refund = tool({
    name: "refund",
    description: "Refund an order.",
    input: z.object({ id: z.string() }),
    needsApproval: true,
    run: ({ id }) => {
      done.push(id);
      return { refunded: id };
    },
  });
  return { toolset: new Toolset([refund]), done };
}

const opened: CodeMode[] = [];
afterAll(async () => {
  await Promise.all(opened.map((cm) => cm.close()));
});

for (const { name, create } of TEST_ENVIRONMENTS) {
  describe(`[${name}] approvals of calls made from code`, () => {
    it("time a human takes to approve does not count against the run's wall clock", async () => {
      const { toolset, done } = refunds();
      // A person answers after 600 ms; the run may take 300 ms of its own time.
      const dispatcher = new Dispatcher(toolset, {
        approvalHandler: async () => {
          await wait(600);
          return "allow" as const;
        },
      });
      const cm = codeMode({ tools: toolset, dispatcher, environment: create(), limits: { timeoutMs: 300 } });
      opened.push(cm);
      const result = await cm.run('const r = await tools.refund({ id: "A9" }); return r;');
      expect(result.status).toBe("ok");
      expect(result.value).toEqual({ refunded: "A9" });
      expect(done).toEqual(["A9"]);
    });

    it("the run's clock runs again once the call is decided", async () => {
      const { toolset } = refunds();
      const dispatcher = new Dispatcher(toolset, { approvalHandler: () => "allow" });
      const cm = codeMode({ tools: toolset, dispatcher, environment: create(), limits: { timeoutMs: 300 } });
      opened.push(cm);
      const result = await cm.run('await tools.refund({ id: "A1" }); for (;;) { await null; }');
      expect(result.status).toBe("timeout");
    });

    it("an approval nobody answers is denied after approvalTimeoutMs, saying so, and the code can go on", async () => {
      const { toolset, done } = refunds();
      const dispatcher = new Dispatcher(toolset, {
        approvalHandler: () => new Promise(() => {}),
        approvalTimeoutMs: 200,
      });
      const cm = codeMode({
        tools: toolset,
        dispatcher,
        environment: create(),
        limits: { timeoutMs: 5_000 },
      });
      opened.push(cm);
      const result = await cm.run(
        'try { await tools.refund({ id: "A2" }); } catch (e) { return [e.kind, e.message]; }',
      );
      expect(result.value).toEqual([
        "denied",
        "refund was not run: the call was denied: nobody answered the approval request within 200 ms (approvalTimeoutMs)",
      ]);
      expect(done).toEqual([]);
    });

    it("through a dispatched run_code call, the stream consumer's late approval still lands", async () => {
      const { toolset, done } = refunds();
      const cm = codeMode({ tools: toolset, environment: create(), limits: { timeoutMs: 300 } });
      opened.push(cm);
      const handle = new Dispatcher(new Toolset([cm.tool])).dispatch([
        { id: "rc", name: "run_code", arguments: { code: 'await tools.refund({ id: "A3" })' } },
      ]);
      for await (const event of handle) {
        // The consumer asks its human and waits for the answer before reading on.
        if (event.type === "approval_required") {
          await wait(600);
          event.approve();
        }
      }
      const [result] = await handle.results();
      expect(result?.ok).toBe(true);
      expect((result!.value as CodeRunResult).value).toEqual({ refunded: "A3" });
      expect(done).toEqual(["A3"]);
    });
  });
}
