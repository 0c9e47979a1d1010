/**
 * The prelude's side of the call protocol, driven directly in an isolate: which calls the guest offers
 * to `syncCall` (one crossing, answered within it or settled later) and which it reports with `send`
 * and gets settled later.
 */

import ivm from "isolated-vm";
import { afterEach, describe, expect, it } from "vitest";
import type { GuestEntry, GuestRunConfig } from "../../sandbox/guest/interface.js";
import { preludeSource } from "../../sandbox/guest/prelude.js";
import { AnswerSlot, alwaysSpin } from "../../sandbox/isolate/answer-slot.js";

const CONFIG: GuestRunConfig = {
  toolNames: { echo: "echo" },
  maxLogChars: 1_000,
  maxResultChars: 10_000,
  maxToolCalls: 100,
  maxArgsChars: 10_000,
  maxIcuChars: 1_000_000,
  final: true,
};

let isolate: ivm.Isolate | undefined;
afterEach(() => {
  isolate?.dispose();
  isolate = undefined;
});

/**
 * The host's side of one drive, in a fresh isolate: the routes the calls took, `done` (called with the
 * guest's report), `settleLater` (settles a call through the entry after `ms`), and `run`, which installs
 * the prelude with the given links, runs `body` (the inside of an async function) and returns its value.
 */
async function driveHost() {
  isolate = new ivm.Isolate({ memoryLimit: 32 });
  const context = await isolate.createContext();
  const routes: string[] = [];
  let entry: ivm.Reference<GuestEntry> | undefined;
  let finished: (report: string) => void = () => {};
  const reported = new Promise<string>((resolve) => {
    finished = resolve;
  });
  const settleLater = (runId: number, id: number, argsJson: string, ms = 5) =>
    setTimeout(() => entry?.applyIgnored(undefined, ["settle", runId, id, argsJson]), ms);
  const run = async (links: unknown[], body: string, config: GuestRunConfig = CONFIG) => {
    const install = (await context.eval(`"use strict"; ${preludeSource()}`, {
      reference: true,
    })) as ivm.Reference<(...links: unknown[]) => GuestEntry>;
    entry = (await install.apply(undefined, links as never[], {
      result: { reference: true },
    })) as ivm.Reference<GuestEntry>;
    const main = (await context.evalClosure(`return async () => { ${body} };`, [], {
      result: { reference: true },
    })) as ivm.Reference;
    await entry.apply(undefined, ["start", 1, main.derefInto(), JSON.stringify(config)]);
    const report = JSON.parse(await reported) as { status: string; valueJson?: string };
    expect(report.status).toBe("ok");
    return { value: report.valueJson === undefined ? undefined : JSON.parse(report.valueJson), routes };
  };
  return { routes, done: (report: string) => finished(report), settleLater, run };
}

/**
 * Runs `body` with the prelude installed; every call echoes its arguments: a call offered to `syncCall`
 * within the call (`answer: "now"`) or by a settle 5 ms later (`"later"`), a call sent with `send` by a
 * settle 5 ms later. Returns the run's result and how each call reached the host: `sync` (answered within
 * the call), `sync, later` or `send`.
 */
async function drive(
  body: string,
  config: GuestRunConfig = CONFIG,
  answer: "now" | "later" = "now",
): Promise<{ value: unknown; routes: string[] }> {
  const host = await driveHost();
  const send = new ivm.Callback(
    (type: string, runId: number, id: number, _a: string, b: string) => {
      if (type === "call") {
        host.routes.push("send");
        host.settleLater(runId, id, b);
      } else if (type === "done") host.done(b);
    },
    { ignored: true },
  );
  const syncCall = new ivm.Reference((runId: number, id: number, _tool: string, argsJson: string) => {
    if (answer === "now") {
      host.routes.push("sync");
      return `o${argsJson}`;
    }
    host.routes.push("sync, later");
    host.settleLater(runId, id, argsJson);
    return "";
  });
  return host.run([send, syncCall], body, config);
}

/**
 * Like {@link drive}, with an answer slot (in-process sandboxes): every call awaited alone comes as a
 * `now` message, and the host answers it in the slot at once (`"slot"`), says it comes later and
 * settles it 5 ms on (`"later"`), or keeps quiet for 50 ms, long after the guest gave up, then tries the
 * slot (which refuses) and settles it (`"quiet"`). Returns the run's result and each call's route.
 */
async function driveWithSlot(
  body: string,
  answer: "slot" | "later" | "quiet",
): Promise<{ value: unknown; routes: string[] }> {
  const host = await driveHost();
  // Answered at once, the guest waits as long as it takes; kept quiet, it gives up as in cordon.
  const slot = new AnswerSlot(answer === "slot" ? () => 2 ** 30 : alwaysSpin);
  const send = new ivm.Callback(
    (type: string, runId: number, id: number, _a: string, b: string, _c: string, ticket: number) => {
      if (type === "call") {
        host.routes.push("send");
        host.settleLater(runId, id, b);
      } else if (type === "now" && answer === "slot") {
        host.routes.push(slot.answer(ticket, `o${b}`) ? "slot" : "slot refused");
      } else if (type === "now" && answer === "later") {
        slot.later(ticket);
        host.routes.push("later");
        host.settleLater(runId, id, b);
      } else if (type === "now") {
        setTimeout(
          () => host.routes.push(slot.answer(ticket, `o${b}`) ? "slot after giving up" : "gave up"),
          50,
        );
        host.settleLater(runId, id, b, 50);
      } else if (type === "done") host.done(b);
    },
    { ignored: true },
  );
  return host.run([send, undefined, new ivm.ExternalCopy(slot.guestSide()).copyInto()], body);
}

describe("prelude: calls answered in the answer slot", () => {
  const loop = "let s = 0; for (let i = 0; i < 5; i++) s = (await tools.echo({ n: s + 1 })).n; return s;";

  it("reads each answer the host wrote in the slot while the guest waited", async () => {
    const { value, routes } = await driveWithSlot(loop, "slot");
    expect(value).toBe(5);
    expect(routes).toEqual(Array(5).fill("slot"));
  });

  it("stops waiting when the host says the answer comes later, and takes the settle", async () => {
    const { value, routes } = await driveWithSlot(loop, "later");
    expect(value).toBe(5);
    expect(routes).toEqual(Array(5).fill("later"));
  });

  it("gives up after its looks, so the slot refuses the late answer and the settle delivers it", async () => {
    const { value, routes } = await driveWithSlot(loop, "quiet");
    expect(value).toBe(5);
    expect(routes).toEqual(Array(5).fill("gave up"));
  });

  it("sends calls awaited together as usual, with the slot idle", async () => {
    const { value, routes } = await driveWithSlot(
      "return (await Promise.all([tools.echo({ n: 1 }), tools.echo({ n: 2 })])).map((r) => r.n);",
      "slot",
    );
    expect(value).toEqual([1, 2]);
    expect(routes).toEqual(["send", "send"]);
  });
});

describe("prelude: how calls reach the host", () => {
  it("offers each call awaited alone to syncCall, which answers it within the call", async () => {
    const { value, routes } = await drive(
      "const a = await tools.echo({ n: 1 }); const b = await tools.echo({ n: a.n + 1 }); return b;",
    );
    expect(value).toEqual({ n: 2 });
    expect(routes).toEqual(["sync", "sync"]);
  });

  it("takes a settle later for a call offered to syncCall whose outcome was not ready", async () => {
    const { value, routes } = await drive(
      "let s = 0; for (let i = 0; i < 5; i++) s = (await tools.echo({ n: s + 1 })).n; return s;",
      CONFIG,
      "later",
    );
    expect(value).toBe(5);
    expect(routes).toEqual(Array(5).fill("sync, later"));
  });

  it("sends calls awaited together, and a call awaited while another is in flight", async () => {
    const { value, routes } = await drive(`
      const both = await Promise.all([tools.echo({ n: 1 }), tools.echo({ n: 2 })]);
      const early = tools.echo({ n: 3 });
      await null;
      const late = await tools.echo({ n: 4 });
      return [...both, await early, late];`);
    expect(value).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    expect(routes).toEqual(["send", "send", "send", "send"]);
  });

  it("sends a call of a tool that may wait for a person, so no thread waits minutes inside it", async () => {
    const { value, routes } = await drive("return (await tools.echo({ n: 6 })).n;", {
      ...CONFIG,
      waitingTools: ["echo"],
    });
    expect(value).toBe(6);
    expect(routes).toEqual(["send"]);
  });

  it("sends a call chained with .then in the statement that made it", async () => {
    const { value, routes } = await drive("return await tools.echo({ n: 5 }).then((r) => r.n);");
    expect(value).toBe(5);
    expect(routes).toEqual(["send"]);
  });
});
