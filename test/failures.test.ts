/**
 * The failure vocabulary (common/failures.ts): every kind, status and name maps onto the next layer,
 * nothing is left unmapped, a sandbox's ending takes the status its name gives, and docs/failures.md
 * names every word.
 */

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CALL_RECORD_STATUSES,
  CODE_MODE_ERROR_STATUS,
  FAILURE_KINDS,
  isRunFailureName,
  KIND_IN_CODE,
  RUN_FAILURE_NAMES,
  RUN_FAILURE_STATUS,
  RUN_STATUSES,
  TOOL_CALL_ERROR_KINDS,
} from "../common/failures.js";
import { runEnding } from "../sandbox/contract/index.js";

describe("one failure vocabulary", () => {
  it("every call's kind has its kind in code, which is both a ToolCallError kind and a record status", () => {
    expect(Object.keys(KIND_IN_CODE).sort()).toEqual([...FAILURE_KINDS].sort());
    for (const kind of FAILURE_KINDS) {
      expect(TOOL_CALL_ERROR_KINDS, kind).toContain(KIND_IN_CODE[kind]);
      expect(CALL_RECORD_STATUSES, kind).toContain(KIND_IN_CODE[kind]);
    }
  });

  it("every record status is reached: by a kind in code, or as ok, paused, planned or abandoned", () => {
    const reached = new Set<string>([...Object.values(KIND_IN_CODE), "ok", "paused", "planned", "abandoned"]);
    expect([...reached].sort()).toEqual([...CALL_RECORD_STATUSES].sort());
  });

  it("every run failure name and code mode error name gives a run status, and every failed status is given by one", () => {
    expect([...RUN_FAILURE_NAMES].sort()).toEqual(Object.keys(RUN_FAILURE_STATUS).sort());
    const given = new Set<string>([
      ...Object.values(RUN_FAILURE_STATUS),
      ...Object.values(CODE_MODE_ERROR_STATUS),
    ]);
    for (const status of given) expect(RUN_STATUSES).toContain(status);
    // ok, paused and planned carry no error; every other status has a name that ends a run with it.
    expect([...given, "ok", "paused", "planned"].sort()).toEqual([...RUN_STATUSES].sort());
    for (const name of Object.keys(CODE_MODE_ERROR_STATUS)) expect(isRunFailureName(name)).toBe(false);
  });

  it("a sandbox's ending takes the status its failure name gives", () => {
    for (const name of RUN_FAILURE_NAMES) {
      expect(runEnding(name, "why")).toEqual({
        status: RUN_FAILURE_STATUS[name],
        error: { name, message: "why" },
      });
      expect(isRunFailureName(name)).toBe(true);
    }
    expect(isRunFailureName("TypeError")).toBe(false);
    expect(isRunFailureName("toString")).toBe(false);
  });

  it("docs/failures.md names every kind, status and name", () => {
    const table = readFileSync(resolve(import.meta.dirname, "../docs/failures.md"), "utf8");
    const words = [
      ...FAILURE_KINDS,
      ...TOOL_CALL_ERROR_KINDS,
      ...CALL_RECORD_STATUSES,
      ...RUN_STATUSES,
      ...RUN_FAILURE_NAMES,
      ...Object.keys(CODE_MODE_ERROR_STATUS),
    ];
    for (const word of words) expect(table, word).toContain(`\`${word}\``);
    for (const [name, status] of [
      ...Object.entries(RUN_FAILURE_STATUS),
      ...Object.entries(CODE_MODE_ERROR_STATUS),
    ]) {
      expect(table, name).toContain(`| \`${name}\` | \`${status}\` |`);
    }
    for (const [kind, inCode] of Object.entries(KIND_IN_CODE)) {
      expect(table, kind).toMatch(new RegExp(`^\\| \`${kind}\` \\|.*\\| \`${inCode}\``, "m"));
    }
  });
});
