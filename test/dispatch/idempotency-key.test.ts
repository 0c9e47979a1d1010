/** Every call's context carries an idempotency key: the caller's, else the call's id; the same on every attempt. */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Dispatcher, tool, UserError } from "../../src/index.js";
import type { RunContext } from "../../src/tools/types.js";
import { toolsetOf } from "./helpers.js";

function keyRecorder() {
  const seen: { key: string; attempt: number }[] = [];
  const flaky = tool({
    name: "flaky",
    description: "Fails its first attempt.",
    input: z.object({}),
    retries: 1,
    idempotent: true,
    run: (_args, ctx: RunContext) => {
      seen.push({ key: ctx.idempotencyKey, attempt: ctx.attempt });
      if (ctx.attempt === 1) throw new Error("first attempt fails");
      return "ok";
    },
  });
  return { seen, flaky };
}

describe("ctx.idempotencyKey", () => {
  it("is the call's id for a direct call, the same on every attempt", async () => {
    const { seen, flaky } = keyRecorder();
    const dispatcher = new Dispatcher(toolsetOf(flaky), { retryDelay: 1 });
    const [result] = await dispatcher.dispatch([{ id: "call_7", name: "flaky", arguments: "{}" }]).results();
    expect(result?.ok).toBe(true);
    expect(seen).toEqual([
      { key: "call_7", attempt: 1 },
      { key: "call_7", attempt: 2 },
    ]);
  });

  it("is the one runCall is given, on every attempt", async () => {
    const { seen, flaky } = keyRecorder();
    const dispatcher = new Dispatcher(toolsetOf(flaky), { retryDelay: 1 });
    const run = dispatcher.openRun({ callId: "run-1" });
    await dispatcher.runCall(
      { id: "run-1.1", name: "flaky", arguments: "{}" },
      { parent: run.context, idempotencyKey: "run-42:0" },
    );
    run.close();
    expect(seen.map((s) => s.key)).toEqual(["run-42:0", "run-42:0"]);
  });

  it("tool() takes idempotent: true and refuses anything but a boolean", () => {
    expect(keyRecorder().flaky.options.idempotent).toBe(true);
    expect(() =>
      tool({
        name: "bad",
        description: "A tool.",
        input: z.object({}),
        idempotent: "yes" as unknown as boolean,
        run: () => 1,
      }),
    ).toThrow(UserError);
  });
});
