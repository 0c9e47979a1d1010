/**
 * The comparer of the conformance suite's results with test/mcp/conformance/expected.json
 * (scripts/conformance-compare.ts): every kind of difference fails with a message naming the scenario
 * and what to change; the checked-in expectations are well formed.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  compare,
  EXPECTED_CLIENT_PATH,
  EXPECTED_PATH,
  type Expectations,
  parseExpectations,
  parseScenarioList,
  readClientResults,
  readResults,
  type ScenarioResult,
} from "../../../scripts/conformance-compare.js";
import { root } from "../../cli/helpers.js";

const expectations: Expectations = {
  suite: "@modelcontextprotocol/conformance@0.1.16",
  scenarios: {
    ping: "pass",
    "prompts-list": { notApplicable: "cordon offers no prompts." },
    "server-sse-polling": {
      notApplicable: "No test_reconnection tool.",
      warnings: { "server-sse-retry-field": "Old protocol version." },
    },
  },
};
const listed = ["ping", "prompts-list", "server-sse-polling"];
const pass = (scenario: string): ScenarioResult => ({ scenario, failures: [], warnings: [] });
const fail = (scenario: string, message = "Method not found"): ScenarioResult => ({
  scenario,
  failures: [{ check: scenario, message }],
  warnings: [],
});
const polling = (warnings: string[]): ScenarioResult => ({
  ...fail("server-sse-polling", "Tool call failed"),
  warnings: warnings.map((check) => ({ check, message: "Server did not send it." })),
});
const asExpected = [pass("ping"), fail("prompts-list"), polling(["server-sse-retry-field"])];

describe("conformance comparer: results against the expectation list", () => {
  it("results as expected make no difference, and the table marks each scenario ok", () => {
    const { table, differences } = compare(expectations, listed, asExpected);
    expect(differences).toEqual([]);
    expect(table).toHaveLength(3);
    expect(table.every((line) => line.startsWith("  ok"))).toBe(true);
  });

  it("a listed pass that fails is a difference naming the failed checks", () => {
    const { differences, table } = compare(expectations, listed, [
      fail("ping", "timed out"),
      ...asExpected.slice(1),
    ]);
    expect(differences).toEqual(['"ping": expected to pass, but it failed: ping: timed out.']);
    expect(table[0]).toMatch(/^ {2}CHANGED ping/);
  });

  it("a not-applicable scenario that now passes asks for its entry to become pass", () => {
    const { differences } = compare(expectations, listed, [
      pass("ping"),
      pass("prompts-list"),
      asExpected[2]!,
    ]);
    expect(differences).toEqual([
      `"prompts-list": listed as not applicable (cordon offers no prompts.), but it now passes. If cordon now does this, change its entry in ${EXPECTED_PATH} to "pass".`,
    ]);
  });

  it("a new scenario, one the suite no longer has, and one without results are differences", () => {
    const { differences } = compare(
      expectations,
      ["ping", "prompts-list", "server-sse-polling", "new-scenario", "silent"],
      [...asExpected.slice(0, 2), pass("new-scenario")],
    );
    expect(differences).toEqual([
      '"server-sse-polling": the suite lists it but saved no results for it (did it crash? see its log above).',
      `"new-scenario": a scenario ${EXPECTED_PATH} does not list; it passed. Add it to "scenarios" as "pass" or { "notApplicable": "<why cordon does not offer this>" }.`,
      '"silent": the suite lists it but saved no results for it (did it crash? see its log above).',
    ]);
    const without = compare(expectations, ["ping", "prompts-list"], asExpected.slice(0, 2));
    expect(without.differences).toEqual([
      `"server-sse-polling": listed in ${EXPECTED_PATH}, but the suite has no such scenario: remove it from "scenarios".`,
    ]);
  });

  it("a SHOULD warning not listed, and a listed one no longer raised, are differences", () => {
    const { differences } = compare(expectations, listed, [
      ...asExpected.slice(0, 2),
      polling(["server-sse-priming-event"]),
    ]);
    expect(differences).toEqual([
      `"server-sse-polling": a new SHOULD-level warning, server-sse-priming-event: Server did not send it. Fix it, or list it in ${EXPECTED_PATH} under this scenario's "warnings" with the reason.`,
      `"server-sse-polling": the warning server-sse-retry-field is listed in ${EXPECTED_PATH} but no longer raised: remove it from this scenario's "warnings".`,
    ]);
    const warnedPass = compare(expectations, listed, [
      { ...pass("ping"), warnings: [{ check: "x", message: "y" }] },
      ...asExpected.slice(1),
    ]);
    expect(warnedPass.differences).toHaveLength(1);
  });

  it("a known failure that fails is as expected, and one that now passes asks for its entry to become pass", () => {
    const known: Expectations = {
      suite: expectations.suite,
      scenarios: { "auth/scope-step-up": { knownFailure: "cordon does not step up." } },
    };
    const failing = compare(
      known,
      ["auth/scope-step-up"],
      [fail("auth/scope-step-up")],
      EXPECTED_CLIENT_PATH,
    );
    expect(failing.differences).toEqual([]);
    expect(failing.table[0]).toContain("expected: known failure");
    const passing = compare(
      known,
      ["auth/scope-step-up"],
      [pass("auth/scope-step-up")],
      EXPECTED_CLIENT_PATH,
    );
    expect(passing.differences).toEqual([
      `"auth/scope-step-up": listed as a known failure (cordon does not step up.), but it now passes. If cordon now does this, change its entry in ${EXPECTED_CLIENT_PATH} to "pass".`,
    ]);
  });

  it("a malformed entry is refused with a message naming the scenario and the forms allowed", () => {
    for (const entry of [
      "passes",
      { pass: "" },
      { notApplicable: "x", pass: "y" },
      { notApplicable: "x", warnings: { a: 1 } },
    ]) {
      expect(() => parseExpectations({ suite: "s", scenarios: { ping: entry } })).toThrow(
        /scenario "ping" must be "pass", \{ "pass": "<note>" \}, \{ "notApplicable": "<reason>" \} or \{ "knownFailure": "<reason>" \}/,
      );
    }
    expect(() => parseExpectations({ scenarios: {} })).toThrow(/"suite" must name the suite/);
  });

  it("the checked-in expectations are well formed, and each not-applicable scenario has a reason", () => {
    const file = parseExpectations(JSON.parse(readFileSync(join(root, EXPECTED_PATH), "utf8")));
    expect(file.suite).toBe("@modelcontextprotocol/conformance@0.1.16");
    expect(Object.keys(file.scenarios).length).toBeGreaterThan(0);
  });

  it("the checked-in client expectations are well formed, and docs/mcp.md states their counts", () => {
    const file = parseExpectations(
      JSON.parse(readFileSync(join(root, EXPECTED_CLIENT_PATH), "utf8")),
      EXPECTED_CLIENT_PATH,
    );
    expect(file.suite).toBe("@modelcontextprotocol/conformance@0.1.16");
    const entries = Object.values(file.scenarios);
    const count = (kind: string) =>
      entries.filter((entry) => typeof entry === "object" && kind in entry).length;
    const passing = entries.length - count("notApplicable") - count("knownFailure");
    const guide = readFileSync(join(root, "docs/mcp.md"), "utf8").replace(/\s+/g, " ");
    expect(guide).toContain(
      `${passing} client auth scenarios pass, ${count("knownFailure")} are listed as known failures and ${count("notApplicable")} as not applicable`,
    );
  });

  it("docs/mcp.md states the counts of passing and not-applicable scenarios that the checked-in list has", () => {
    const file = parseExpectations(JSON.parse(readFileSync(join(root, EXPECTED_PATH), "utf8")));
    const entries = Object.values(file.scenarios);
    const notApplicable = entries.filter((entry) => typeof entry === "object" && "notApplicable" in entry);
    const passing = entries.length - notApplicable.length;
    const guide = readFileSync(join(root, "docs/mcp.md"), "utf8").replace(/\s+/g, " ");
    expect(guide).toContain(
      `${passing} scenarios pass and ${notApplicable.length} are listed as not applicable`,
    );
  });

  it("reads the suite's saved checks and its scenario list", () => {
    const dir = mkdtempSync(join(tmpdir(), "cordon-conformance-"));
    try {
      const save = (name: string, checks: unknown[]) => {
        mkdirSync(join(dir, name));
        writeFileSync(join(dir, name, "checks.json"), JSON.stringify(checks));
      };
      save("server-ping-2026-01-02T03-04-05-678Z", [{ id: "ping", status: "SUCCESS" }]);
      save("server-server-sse-polling-2026-01-02T03-04-05-999Z", [
        { id: "incoming-sse-event", status: "FAILURE", errorMessage: "Tool call failed" },
        { id: "server-sse-retry-field", status: "WARNING", errorMessage: "No retry." },
        { id: "stream-closed", status: "INFO", description: "closed" },
      ]);
      expect(readResults(dir)).toEqual([
        pass("ping"),
        {
          scenario: "server-sse-polling",
          failures: [{ check: "incoming-sse-event", message: "Tool call failed" }],
          warnings: [{ check: "server-sse-retry-field", message: "No retry." }],
        },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const clientDir = mkdtempSync(join(tmpdir(), "cordon-conformance-client-"));
    try {
      mkdirSync(join(clientDir, "auth", "metadata-var1-2026-01-02T03-04-05-678Z"), { recursive: true });
      writeFileSync(
        join(clientDir, "auth", "metadata-var1-2026-01-02T03-04-05-678Z", "checks.json"),
        JSON.stringify([{ id: "token-request", status: "SUCCESS" }]),
      );
      expect(readClientResults(clientDir)).toEqual([pass("auth/metadata-var1")]);
    } finally {
      rmSync(clientDir, { recursive: true, force: true });
    }
    expect(
      parseScenarioList(
        "Server scenarios (test against a server):\n  - ping [2025-06-18,2025-11-25]\n  - dns-rebinding-protection [2025-11-25]\n",
      ),
    ).toEqual(["ping", "dns-rebinding-protection"]);
  });
});
