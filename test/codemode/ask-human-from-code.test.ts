/**
 * ask_human from run_code: the time a person takes to answer does not count against the run's wall
 * clock, as for an approval, and the wait stays bounded (the tool's own timeout, else approvalTimeoutMs).
 */

import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { askHuman, HumanChannel } from "../../src/entries/builtins.js";
import { type CodeMode, codeMode, Dispatcher, Toolset, tool } from "../../src/index.js";
import { TEST_ENVIRONMENTS } from "../isolate/helpers.js";

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Answers every question with `answer` after `delayMs`, until the channel closes. */
async function answerAfter(channel: HumanChannel, delayMs: number, answer: string): Promise<void> {
  for await (const question of channel.questions()) {
    await wait(delayMs);
    channel.answer(question.id, answer);
  }
}

const opened: CodeMode[] = [];
const channels: HumanChannel[] = [];
afterAll(async () => {
  for (const channel of channels) channel.close();
  await Promise.all(opened.map((cm) => cm.close()));
});

for (const { name, create } of TEST_ENVIRONMENTS) {
  describe(`[${name}] ask_human from code`, () => {
    const setup = (options: { timeout?: number; approvalTimeoutMs?: number; timeoutMs: number }) => {
      const channel = new HumanChannel();
      channels.push(channel);
      const tools = new Toolset([
        askHuman(channel, options.timeout === undefined ? {} : { timeout: options.timeout }),
      ]);
      const dispatcher = new Dispatcher(
        tools,
        options.approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs: options.approvalTimeoutMs },
      );
      const cm = codeMode({
        tools,
        dispatcher,
        environment: create(),
        limits: { timeoutMs: options.timeoutMs },
      });
      opened.push(cm);
      return { channel, cm };
    };

    it("the time a person takes to answer does not count against the run's wall clock", async () => {
      // The person answers after 600 ms; the run may take 300 ms of its own time.
      const { channel, cm } = setup({ timeoutMs: 300 });
      void answerAfter(channel, 600, "eu-west-1");
      const result = await cm.run('return await tools.ask_human({ question: "Which region?" });');
      expect(result.status).toBe("ok");
      expect(result.value).toBe("eu-west-1");
      channel.close();
    });

    it("the run's clock runs again once the person has answered", async () => {
      const { channel, cm } = setup({ timeoutMs: 300 });
      void answerAfter(channel, 0, "yes");
      const result = await cm.run('await tools.ask_human({ question: "Go on?" }); for (;;) { await null; }');
      expect(result.status).toBe("timeout");
      channel.close();
    });

    it("the tool's own timeout still ends a wait nobody answers, and the code can go on", async () => {
      // Without the pause the run would end at 100 ms; the call ends at its own 400 ms instead.
      const { channel, cm } = setup({ timeout: 400, timeoutMs: 100 });
      const result = await cm.run(
        'try { await tools.ask_human({ question: "Anyone?" }); } catch (e) { return [e.kind, e.message]; }',
      );
      expect(result.status).toBe("ok");
      expect(result.value).toEqual(["timeout", "ask_human timed out after 400 ms."]);
      channel.close();
    });

    it("without a tool timeout the pause lasts at most approvalTimeoutMs, then the run's clock runs", async () => {
      const { channel, cm } = setup({ approvalTimeoutMs: 200, timeoutMs: 300 });
      // Nobody ever answers: the run must still end, at its own limit.
      const result = await cm.run('return await tools.ask_human({ question: "Anyone?" });');
      expect(result.status).toBe("timeout");
      channel.close();
    });

    it("a tool marked waitsForHuman pauses the clock; the same tool without the mark does not", async () => {
      const make = (waitsForHuman: boolean) => {
        const confirm = tool({
          name: "confirm",
          description: "Waits for a person's confirmation.",
          input: z.object({}),
          waitsForHuman,
          run: async () => {
            await wait(500);
            return "confirmed";
          },
        });
        const cm = codeMode({ tools: [confirm], environment: create(), limits: { timeoutMs: 250 } });
        opened.push(cm);
        return cm;
      };
      const marked = await make(true).run("return await tools.confirm();");
      expect(marked).toMatchObject({ status: "ok", value: "confirmed" });
      const unmarked = await make(false).run("return await tools.confirm();");
      expect(unmarked.status).toBe("timeout");
    });
  });
}
