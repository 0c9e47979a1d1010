/**
 * The host's side of a replay the sandbox does itself: the sandbox says how many of the code's calls it
 * answered from the journal, and the host numbers them and shows their records. A sandbox cannot use
 * the count to skip past a call the journal has no result for (one that waited for a person).
 */

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { RunBridge } from "../../src/codemode/bridge.js";
import { DEFAULT_CODE_MODE_LIMITS } from "../../src/codemode/limits.js";
import {
  type JournalState,
  MAX_SANDBOX_REPLAY_BYTES,
  Replay,
  sandboxReplay,
} from "../../src/codemode/pause/journal.js";
import { Dispatcher, Toolset, tool } from "../../src/index.js";

/** How many times `append` really ran. */
let appended = 0;
const append = tool({
  name: "append",
  description: "Appends a line.",
  input: z.object({ line: z.string() }),
  run: ({ line }) => {
    appended++;
    return line;
  },
});

/** A journal of two calls: the first ended, the second waited for a person. */
function journal(): JournalState {
  return {
    entries: [
      {
        tool: "append",
        args: '{"line":"a"}',
        outcome: { ok: true, valueJson: '"a"' },
        record: { callId: "run.1", tool: "append", status: "ok", durationMs: 1 },
        after: 1,
      },
      { tool: "append", args: '{"line":"b"}', pending: { kind: "approval", args: { line: "b" } } },
    ],
    order: [0],
    values: { now: [], random: [] },
    logCount: 0,
  };
}

function bridgeFor(state: JournalState | undefined) {
  const dispatcher = new Dispatcher(new Toolset([append]));
  const ended = new AbortController();
  const run = dispatcher.openRun({ signal: ended.signal, callId: "run", toolName: "run_code", code: "" });
  const replay = state ? new Replay(state) : undefined;
  const bridge = new RunBridge({
    dispatcher,
    limits: { ...DEFAULT_CODE_MODE_LIMITS },
    context: run.context,
    signal: ended.signal,
    callIdPrefix: "run",
    runId: "run-1",
    ...(replay ? { replay } : {}),
  });
  return { bridge, replay, close: () => run.close() };
}

describe("a sandbox that replays calls itself", () => {
  it("a count of replayed calls numbers them and shows their records, as if they had crossed", () => {
    const { bridge, replay, close } = bridgeFor(journal());
    bridge.replayed(1);
    expect(bridge.stop).toBeUndefined();
    expect(replay?.matched).toBe(1);
    expect(bridge.calls.map((call) => call.callId)).toEqual(["run.1"]);
    close();
  });

  it("claiming to have replayed a call that waited for a person ends the run as diverged, and nothing runs", () => {
    const { bridge, replay, close } = bridgeFor(journal());
    bridge.replayed(2);
    expect(bridge.stop).toMatchObject({ reason: "diverged" });
    expect(bridge.stop?.reason === "diverged" && bridge.stop.divergence.message).toContain(
      "the sandbox said it replayed call 2",
    );
    // The first call was borne out; the second was not, and is not counted as made.
    expect(replay?.matched).toBe(1);
    close();
  });

  it("a run that replays nothing ignores a sandbox's count of replayed calls: no call is numbered, nothing stops", () => {
    const { bridge, close } = bridgeFor(undefined);
    bridge.replayed(3);
    expect(bridge.stop).toBeUndefined();
    expect(bridge.calls).toEqual([]);
    close();
  });

  it("claiming more replayed calls than the journal has ends the run as diverged", () => {
    const { bridge, close } = bridgeFor({ ...journal(), entries: journal().entries.slice(0, 1) });
    bridge.replayed(Number.MAX_SAFE_INTEGER);
    expect(bridge.stop).toMatchObject({ reason: "diverged" });
    close();
  });

  // The wire and the isolate engine check the count too; a bridge takes no environment's word for it.
  for (const hostile of [-1, 0.5, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 3, "1", null]) {
    const label = typeof hostile === "string" ? JSON.stringify(hostile) : String(hostile);
    it(`a sandbox claiming ${label} replayed calls is refused as a divergence, not trusted: no call is numbered, none runs`, async () => {
      const { bridge, replay, close } = bridgeFor(journal());
      bridge.replayed(hostile as number);
      expect(bridge.stop).toMatchObject({ reason: "diverged" });
      expect(bridge.stop?.reason === "diverged" && bridge.stop.divergence.message).toContain(
        "not a number of calls the checkpoint has left to replay (2)",
      );
      expect(replay?.matched).toBe(0);
      expect(bridge.calls).toEqual([]);
      // Nothing the sandbox asks next runs: not the call that waited for a person, nor more calls than
      // the cap (a NaN count once made every later index NaN, past both the replay and maxToolCalls).
      const runs = appended;
      for (let i = 0; i < DEFAULT_CODE_MODE_LIMITS.maxToolCalls + 1; i++) {
        const next = await bridge.callTool("append", '{"line":"b"}');
        expect(next).toMatchObject({ ok: false, error: { kind: "cancelled" } });
      }
      expect(appended).toBe(runs);
      expect(bridge.calls).toEqual([]);
      close();
    });
  }

  it("a count past the calls the host already matched is refused: the journal's end is counted from where the run is", () => {
    const { bridge, replay, close } = bridgeFor(journal());
    bridge.replayed(1);
    bridge.replayed(2);
    expect(bridge.stop).toMatchObject({ reason: "diverged" });
    expect(replay?.matched).toBe(1);
    close();
  });
});

describe("a resume whose sandbox sees another time zone or locale", () => {
  const zoned = (): JournalState => ({ ...journal(), zone: { timeZone: "Asia/Tokyo", locale: "ja-JP" } });

  it("ends as diverged when the sandbox reports another zone, naming both, before any call", async () => {
    const { bridge, close } = bridgeFor(zoned());
    bridge.record({ zone: { timeZone: "America/New_York", locale: "ja-JP" } });
    expect(bridge.stop).toMatchObject({ reason: "diverged" });
    const divergence = bridge.stop?.reason === "diverged" ? bridge.stop.divergence : undefined;
    expect(divergence?.message).toBe(
      "the paused run's code saw the time zone Asia/Tokyo and the locale ja-JP, and this sandbox's code sees America/New_York and ja-JP",
    );
    expect(divergence?.remedy).toContain("Resume it where the sandbox sees the time zone Asia/Tokyo");
    expect(await bridge.callTool("append", '{"line":"a"}')).toMatchObject({ ok: false });
    expect(bridge.calls).toEqual([]);
    close();
  });

  it("ends as diverged when the locale alone differs", () => {
    const { bridge, close } = bridgeFor(zoned());
    bridge.record({ zone: { timeZone: "Asia/Tokyo", locale: "en-US" } });
    expect(bridge.stop).toMatchObject({ reason: "diverged" });
    close();
  });

  it("goes on when the sandbox reports the same zone; a later report cannot change it", () => {
    const { bridge, replay, close } = bridgeFor(zoned());
    bridge.record({ zone: { timeZone: "Asia/Tokyo", locale: "ja-JP" } });
    bridge.record({ zone: { timeZone: "UTC", locale: "en-US" } });
    bridge.replayed(1);
    expect(bridge.stop).toBeUndefined();
    expect(replay?.matched).toBe(1);
    close();
  });

  it("a sandbox that says nothing of its zone and replays, or calls, ends as diverged: its zone cannot be told", async () => {
    const silent = bridgeFor(zoned());
    silent.bridge.replayed(1);
    expect(silent.bridge.stop?.reason === "diverged" && silent.bridge.stop.divergence.message).toContain(
      "the sandbox did not say which time zone and locale its code sees",
    );
    expect(silent.replay?.matched).toBe(0);
    silent.close();
    const calling = bridgeFor(zoned());
    expect(await calling.bridge.callTool("append", '{"line":"a"}')).toMatchObject({ ok: false });
    expect(calling.bridge.stop).toMatchObject({ reason: "diverged" });
    expect(calling.replay?.matched).toBe(0);
    calling.close();
  });

  it("a journal that recorded no zone (made before zones were recorded) checks none", () => {
    const { bridge, close } = bridgeFor(journal());
    bridge.record({ zone: { timeZone: "UTC", locale: "en-US" } });
    bridge.replayed(1);
    expect(bridge.stop).toBeUndefined();
    close();
  });
});

describe("a journal too large for the run's request", () => {
  const withArgs = (chars: number, calls: number): JournalState => ({
    entries: Array.from({ length: calls }, (_, index) => ({
      tool: "append",
      args: JSON.stringify({ line: "x".repeat(chars) }),
      outcome: { ok: true, valueJson: String(index + 1) },
      after: index + 1,
    })),
    order: Array.from({ length: calls }, (_, index) => index),
    values: { now: [], random: [] },
    logCount: 0,
  });

  it("is not sent to the sandbox over MAX_SANDBOX_REPLAY_BYTES of JSON, and is just under it", () => {
    const calls = 8;
    const over = Math.ceil(MAX_SANDBOX_REPLAY_BYTES / calls);
    expect(sandboxReplay(withArgs(over, calls))).toBeUndefined();
    const under = Math.floor(MAX_SANDBOX_REPLAY_BYTES / calls) - 200;
    expect(sandboxReplay(withArgs(under, calls))?.tools).toHaveLength(calls);
  });
});
