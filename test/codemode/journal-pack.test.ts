/**
 * A checkpoint keeps its journal packed (a row per call, what can be rebuilt left out); unpacked, it is
 * the journal that was packed, whatever its calls were: ended, failed, waiting for a person, never
 * started, called by another name.
 */

import { describe, expect, it } from "vitest";
import { type JournalState, packJournal, unpackJournal } from "../../src/codemode/pause/journal.js";

const PREFIX = "code-1234abcd";

function journal(): JournalState {
  return {
    entries: [
      {
        tool: "add",
        args: '{"a":1,"b":2}',
        outcome: { ok: true, valueJson: "3" },
        record: { callId: `${PREFIX}.1`, tool: "add", status: "ok", durationMs: 4 },
        after: 1,
      },
      {
        tool: "get_order",
        args: '{"id":"A1"}',
        requested: "getOrder",
        outcome: { ok: false, error: { tool: "get_order", kind: "denied", message: 'no "A1" here' } },
        record: {
          callId: `${PREFIX}.2`,
          tool: "get_order",
          requested: "getOrder",
          status: "denied",
          durationMs: 0,
        },
        after: 3,
      },
      { tool: "send", args: '{"to":"ann"}', pending: { kind: "approval", args: { to: "ann" } } },
      { tool: "add", args: "{}" },
      {
        tool: "add",
        args: '{"a":0,"b":0}',
        outcome: { ok: true, valueJson: "" },
        record: { callId: "elsewhere.9", tool: "plus", status: "ok", durationMs: 12 },
        after: 5,
      },
    ],
    order: [0, 1, 4],
    values: { now: [1_700_000_000_000], random: [0.25] },
    logCount: 2,
  };
}

describe("a packed journal", () => {
  it("unpacks to the journal that was packed, through JSON", () => {
    const packed = JSON.parse(JSON.stringify(packJournal(journal(), PREFIX)));
    expect(unpackJournal(packed, PREFIX)).toEqual(journal());
  });

  it("leaves out what it can rebuild: a row per call, no record ids or tools that follow from its place", () => {
    const packed = packJournal(journal(), PREFIX);
    expect(packed.calls[0]).toEqual(["add", '{"a":1,"b":2}', "o3", 1, ["ok", 4]]);
    expect(packed.calls[3]).toEqual(["add", "{}"]);
    expect(JSON.stringify(packed).length).toBeLessThan(JSON.stringify(journal()).length / 1.5);
  });

  it("is refused when it is not one: a row that is not a call, an outcome of no known form, an order naming a call that did not end", () => {
    const packed = packJournal(journal(), PREFIX);
    expect(unpackJournal({ ...packed, calls: [["add"]] }, PREFIX)).toBeUndefined();
    expect(unpackJournal({ ...packed, calls: [["add", "{}", "x1"]] }, PREFIX)).toBeUndefined();
    expect(unpackJournal({ ...packed, order: [2] }, PREFIX)).toBeUndefined();
    expect(unpackJournal({ ...packed, values: undefined }, PREFIX)).toBeUndefined();
    expect(unpackJournal("a journal", PREFIX)).toBeUndefined();
  });

  it("keeps the time zone and locale the run saw, and is refused with a zone that is not one", () => {
    const zoned = { ...journal(), zone: { timeZone: "Europe/Paris", locale: "fr-FR" } };
    const packed = JSON.parse(JSON.stringify(packJournal(zoned, PREFIX)));
    expect(unpackJournal(packed, PREFIX)).toEqual(zoned);
    expect(unpackJournal({ ...packed, zone: { timeZone: "Europe/Paris" } }, PREFIX)).toBeUndefined();
    expect(unpackJournal({ ...packed, zone: "Europe/Paris" }, PREFIX)).toBeUndefined();
    // A journal made before zones were recorded has none, and checks none.
    expect(unpackJournal(packJournal(journal(), PREFIX), PREFIX)?.zone).toBeUndefined();
  });
});
