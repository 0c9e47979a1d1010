import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type DispatchEvent, Dispatcher, tool } from "../../src/index.js";
import { toolsetOf } from "./helpers.js";

function gatedWorld() {
  const ran: unknown[] = [];
  const send = tool({
    name: "send",
    description: "Sends, after approval.",
    input: z.object({ to: z.string() }),
    needsApproval: true,
    run: ({ to }) => {
      ran.push(to);
      return `sent to ${to}`;
    },
  });
  const ask = tool({
    name: "ask",
    description: "Asks a person.",
    input: z.object({ question: z.string() }),
    waitsForHuman: true,
    run: () => {
      ran.push("asked live");
      return "live answer";
    },
  });
  return { ran, toolset: toolsetOf(send, ask) };
}

describe("Dispatcher.runCall with a person policy: calls that need a person pause instead of waiting", () => {
  it("a gated call with no handler pauses: not asked, not run, its validated arguments given back", async () => {
    const { ran, toolset } = gatedWorld();
    const dispatcher = new Dispatcher(toolset);
    const run = dispatcher.openRun({ callId: "run-1" });
    const events: DispatchEvent[] = [];
    const outcome = await dispatcher.runCall(
      { id: "c1", name: "send", arguments: '{"to": "ann"}' },
      { parent: run.context, person: { pause: true }, onEvent: (event) => events.push(event) },
    );
    run.close();
    expect(outcome.result.ok).toBe(false);
    expect(outcome.result.error?.kind).toBe("paused");
    expect(outcome.paused).toEqual({ kind: "approval", args: { to: "ann" } });
    expect(ran).toEqual([]);
    expect(events.some((event) => event.type === "approval_required")).toBe(false);
  });

  it("a handler that allows or denies on the spot decides; one that asks pauses", async () => {
    for (const [answer, expected] of [
      ["allow", "ok"],
      ["deny", "denied"],
      ["ask", "paused"],
    ] as const) {
      const { toolset } = gatedWorld();
      const dispatcher = new Dispatcher(toolset, { approvalHandler: () => answer });
      const run = dispatcher.openRun({ callId: "run-1" });
      const { result, paused } = await dispatcher.runCall(
        { id: "c1", name: "send", arguments: '{"to": "bo"}' },
        { parent: run.context, person: { pause: true } },
      );
      run.close();
      expect(result.ok ? "ok" : result.error?.kind).toBe(expected);
      expect(paused !== undefined).toBe(expected === "paused");
    }
  });

  it("a decision made earlier is applied without asking anyone: approved runs, denied is denied with the reason", async () => {
    const { ran, toolset } = gatedWorld();
    let asked = 0;
    const dispatcher = new Dispatcher(toolset, {
      approvalHandler: () => {
        asked++;
        return "deny";
      },
    });
    const run = dispatcher.openRun({ callId: "run-1" });
    const approved = await dispatcher.runCall(
      { id: "c1", name: "send", arguments: '{"to": "cy"}' },
      { parent: run.context, person: { decision: { approved: true } } },
    );
    const denied = await dispatcher.runCall(
      { id: "c2", name: "send", arguments: '{"to": "di"}' },
      { parent: run.context, person: { decision: { approved: false, reason: "not today" } } },
    );
    run.close();
    expect(approved.result).toMatchObject({ ok: true, value: "sent to cy" });
    expect(denied.result.error?.kind).toBe("denied");
    expect(denied.result.error?.message).toContain("not today");
    expect(ran).toEqual(["cy"]);
    expect(asked).toBe(0);
  });

  it("a tool that waits for a person pauses as a question, and resumes with the answer as its value without running", async () => {
    const { ran, toolset } = gatedWorld();
    const dispatcher = new Dispatcher(toolset);
    const run = dispatcher.openRun({ callId: "run-1" });
    const paused = await dispatcher.runCall(
      { id: "c1", name: "ask", arguments: '{"question": "which colour?"}' },
      { parent: run.context, person: { pause: true } },
    );
    const answered = await dispatcher.runCall(
      { id: "c2", name: "ask", arguments: '{"question": "which colour?"}' },
      { parent: run.context, person: { answer: "blue" } },
    );
    run.close();
    expect(paused.result.error?.kind).toBe("paused");
    expect(paused.paused).toEqual({ kind: "question", args: { question: "which colour?" } });
    expect(answered.result).toMatchObject({ ok: true, value: "blue" });
    expect(ran).toEqual([]);
  });

  it("invalid arguments fail as usual before anything pauses", async () => {
    const { toolset } = gatedWorld();
    const dispatcher = new Dispatcher(toolset);
    const run = dispatcher.openRun({ callId: "run-1" });
    const { result, paused } = await dispatcher.runCall(
      { id: "c1", name: "send", arguments: '{"to": 5}' },
      { parent: run.context, person: { pause: true } },
    );
    run.close();
    expect(result.error?.kind).toBe("invalid_arguments");
    expect(paused).toBeUndefined();
  });
});
