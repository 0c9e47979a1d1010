/**
 * Compares a run of the official MCP conformance suite's server scenarios against cordon with the
 * checked-in expectations (test/mcp/conformance/expected.json), and fails when any scenario's result
 * differs from its expectation. Run by scripts/conformance.sh:
 *
 *   node --import tsx scripts/conformance-compare.ts <results dir> <scenario list file> <installed suite version>
 *
 * How a result is counted: a scenario passes when none of its checks is a FAILURE (as the suite counts
 * it). A WARNING check (a SHOULD the server does not meet) does not fail the scenario, but every warning
 * must be listed, by check id and with the reason, under the scenario's "warnings": a new warning, or a
 * listed one no longer raised, is a difference too.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** Where the expectations live, from the repository root. */
export const EXPECTED_PATH = "test/mcp/conformance/expected.json";

/** Where the expectations of the client `auth/*` scenarios (run against cordon's OAuth client) live. */
export const EXPECTED_CLIENT_PATH = "test/mcp/conformance/expected-client.json";

/** Accepted SHOULD-level warnings of a scenario: check id → why cordon does not meet it. */
export type AcceptedWarnings = Record<string, string>;

/**
 * What a scenario is expected to do: `"pass"`; `{ pass: note }` (passes, with a note, e.g. why a pass
 * proves little); `{ notApplicable: reason }` (fails, because it tests something cordon does not offer); or
 * `{ knownFailure: reason }` (fails, because cordon does not yet do what it checks: a known gap, named).
 */
export type Expectation =
  | "pass"
  | { pass: string; warnings?: AcceptedWarnings }
  | { notApplicable: string; warnings?: AcceptedWarnings }
  | { knownFailure: string; warnings?: AcceptedWarnings };

/** The expectations file. */
export interface Expectations {
  /** The suite these expectations are for, `@modelcontextprotocol/conformance@<version>`. */
  suite: string;
  scenarios: Record<string, Expectation>;
}

/** One check of a scenario that did not succeed. */
export interface CheckOutcome {
  check: string;
  message: string;
}

/** What one scenario reported. */
export interface ScenarioResult {
  scenario: string;
  failures: CheckOutcome[];
  warnings: CheckOutcome[];
}

/** The comparison: a line per scenario for the log, and the differences that fail the build. */
export interface Comparison {
  table: string[];
  differences: string[];
}

/** Checks the expectations file's shape; throws an error naming what is wrong. */
export function parseExpectations(json: unknown, where = EXPECTED_PATH): Expectations {
  if (typeof json !== "object" || json === null) throw new Error(`${where}: must be a JSON object.`);
  const { suite, scenarios } = json as Record<string, unknown>;
  if (typeof suite !== "string") throw new Error(`${where}: "suite" must name the suite and its version.`);
  if (typeof scenarios !== "object" || scenarios === null)
    throw new Error(`${where}: "scenarios" must map scenario ids to expectations.`);
  for (const [id, expectation] of Object.entries(scenarios)) {
    if (expectation === "pass") continue;
    const fields = typeof expectation === "object" && expectation !== null ? expectation : {};
    const keys = Object.keys(fields).filter((key) => key !== "warnings");
    const reason = (fields as Record<string, unknown>)[keys[0] ?? ""];
    const warnings = (fields as Record<string, unknown>).warnings;
    const goodWarnings =
      warnings === undefined ||
      (typeof warnings === "object" &&
        warnings !== null &&
        Object.values(warnings).every((why) => typeof why === "string" && why !== ""));
    if (
      keys.length !== 1 ||
      !["pass", "notApplicable", "knownFailure"].includes(keys[0]!) ||
      typeof reason !== "string" ||
      reason === "" ||
      !goodWarnings
    ) {
      throw new Error(
        `${where}: scenario "${id}" must be "pass", { "pass": "<note>" }, { "notApplicable": "<reason>" } or { "knownFailure": "<reason>" }, optionally with "warnings": { "<check id>": "<reason>" }.`,
      );
    }
  }
  return json as Expectations;
}

/** The scenario ids in the output of `conformance list --server` (lines `  - <id> [versions]`). */
export function parseScenarioList(text: string): string[] {
  return [...text.matchAll(/^\s*-\s+(\S+)/gm)].map((match) => match[1]!);
}

/** The results the suite saved with `-o <dir>`: one `server-<id>-<timestamp>/checks.json` per scenario. */
export function readResults(dir: string): ScenarioResult[] {
  const results: ScenarioResult[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    if (!match) continue;
    results.push(resultOf(match[1]!, join(dir, entry, "checks.json")));
  }
  return results;
}

/**
 * The results the suite saved with `client -o <dir>`: a scenario `auth/<name>` is saved as
 * `auth/<name>-<timestamp>/checks.json`, so its folder's path below `dir` gives its id.
 */
export function readClientResults(dir: string): ScenarioResult[] {
  const results: ScenarioResult[] = [];
  for (const group of readdirSync(dir).sort()) {
    for (const entry of readdirSync(join(dir, group)).sort()) {
      const match = /^(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
      if (!match) continue;
      results.push(resultOf(`${group}/${match[1]!}`, join(dir, group, entry, "checks.json")));
    }
  }
  return results;
}

function resultOf(scenario: string, checksFile: string): ScenarioResult {
  const checks = JSON.parse(readFileSync(checksFile, "utf8")) as {
    id: string;
    status: string;
    errorMessage?: string;
    description?: string;
  }[];
  const outcomes = (status: string) =>
    checks
      .filter((check) => check.status === status)
      .map((check) => ({ check: check.id, message: check.errorMessage ?? check.description ?? "" }));
  return { scenario, failures: outcomes("FAILURE"), warnings: outcomes("WARNING") };
}

/** Compares results with expectations: every scenario the suite lists must have one, and match it. */
export function compare(
  expectations: Expectations,
  listed: readonly string[],
  results: readonly ScenarioResult[],
  where = EXPECTED_PATH,
): Comparison {
  const table: string[] = [];
  const differences: string[] = [];
  const byId = new Map(results.map((result) => [result.scenario, result]));
  const ids = [...new Set([...listed, ...byId.keys()])];
  const width = Math.max(...ids.map((id) => id.length));
  for (const id of ids) {
    const result = byId.get(id);
    const expectation = expectations.scenarios[id];
    const found: string[] = [];
    if (!result) {
      found.push(
        `"${id}": the suite lists it but saved no results for it (did it crash? see its log above).`,
      );
    } else if (expectation === undefined) {
      found.push(
        `"${id}": a scenario ${where} does not list; it ${describe(result)}. Add it to "scenarios" as "pass" or { "notApplicable": "<why cordon does not offer this>" }.`,
      );
    } else {
      found.push(...differencesOf(id, expectation, result, where));
    }
    differences.push(...found);
    const warned = result?.warnings.length ? `, ${result.warnings.length} warning(s)` : "";
    const shown = result ? `${result.failures.length === 0 ? "passed" : "failed"}${warned}` : "no results";
    const expected =
      expectation === undefined
        ? "(not listed)"
        : expectation === "pass" || "pass" in expectation
          ? "pass"
          : "knownFailure" in expectation
            ? "known failure"
            : "not applicable";
    table.push(
      `${found.length === 0 ? "  ok     " : "  CHANGED"} ${id.padEnd(width)}  ${shown}; expected: ${expected}`,
    );
  }
  for (const id of Object.keys(expectations.scenarios)) {
    if (!ids.includes(id)) {
      differences.push(
        `"${id}": listed in ${where}, but the suite has no such scenario: remove it from "scenarios".`,
      );
    }
  }
  return { table, differences };
}

function differencesOf(
  id: string,
  expectation: Expectation,
  result: ScenarioResult,
  where: string,
): string[] {
  const found: string[] = [];
  const passed = result.failures.length === 0;
  if (expectation === "pass" || "pass" in expectation) {
    if (!passed) found.push(`"${id}": expected to pass, but it failed: ${listed(result.failures)}.`);
  } else if (passed) {
    const listedAs =
      "knownFailure" in expectation
        ? `a known failure (${expectation.knownFailure})`
        : `not applicable (${expectation.notApplicable})`;
    found.push(
      `"${id}": listed as ${listedAs}, but it now passes. If cordon now does this, change its entry in ${where} to "pass".`,
    );
  }
  const accepted = expectation === "pass" ? {} : (expectation.warnings ?? {});
  for (const warning of result.warnings) {
    if (!(warning.check in accepted)) {
      found.push(
        `"${id}": a new SHOULD-level warning, ${warning.check}: ${warning.message.replace(/\.$/, "")}. Fix it, or list it in ${where} under this scenario's "warnings" with the reason.`,
      );
    }
  }
  for (const check of Object.keys(accepted)) {
    if (!result.warnings.some((warning) => warning.check === check)) {
      found.push(
        `"${id}": the warning ${check} is listed in ${where} but no longer raised: remove it from this scenario's "warnings".`,
      );
    }
  }
  return found;
}

function describe(result: ScenarioResult): string {
  const warned =
    result.warnings.length === 0
      ? ""
      : ` with ${result.warnings.length} warning(s) (${result.warnings.map((w) => w.check).join(", ")})`;
  return result.failures.length === 0 ? `passed${warned}` : `failed (${listed(result.failures)})${warned}`;
}

function listed(outcomes: readonly CheckOutcome[]): string {
  return outcomes.map((outcome) => `${outcome.check}: ${outcome.message}`).join("; ");
}

function main(args: readonly string[]): number {
  const [resultsDir, listFile, installedVersion, mode] = args;
  const client = mode === "client";
  if (!resultsDir || !listFile || !installedVersion || (mode !== undefined && !client)) {
    process.stderr.write(
      "usage: conformance-compare.ts <results dir> <scenario list file> <installed suite version> [client]\n",
    );
    return 2;
  }
  const where = client ? EXPECTED_CLIENT_PATH : EXPECTED_PATH;
  const expectations = parseExpectations(JSON.parse(readFileSync(resolve(where), "utf8")), where);
  const installed = `@modelcontextprotocol/conformance@${installedVersion}`;
  if (expectations.suite !== installed) {
    process.stderr.write(
      `conformance: ${where} holds the expectations for ${expectations.suite}, but ${installed} ran: run the new version's scenarios, update the expectations, and change "suite".\n`,
    );
    return 1;
  }
  const listed = parseScenarioList(readFileSync(listFile, "utf8"));
  const results = existsSync(resultsDir) ? (client ? readClientResults : readResults)(resultsDir) : [];
  const { table, differences } = compare(expectations, listed, results, where);
  const against = client
    ? "client auth scenarios against cordon mcp's OAuth client for remote upstreams"
    : "server scenarios against cordon mcp --http";
  process.stdout.write(`conformance: ${installed}, ${against}\n${table.join("\n")}\n`);
  if (differences.length > 0) {
    process.stderr.write(
      `conformance: ${differences.length} result(s) differ from ${where}:\n${differences.map((line) => `  - ${line}`).join("\n")}\n`,
    );
    return 1;
  }
  const kinds = Object.values(expectations.scenarios);
  const passing = kinds.filter((e) => e === "pass" || "pass" in e).length;
  const failing = kinds.filter((e) => e !== "pass" && "knownFailure" in e).length;
  const known = failing === 0 ? "" : `, ${failing} known failure(s)`;
  process.stdout.write(
    `conformance: every scenario as expected (${passing} pass${known}, ${listed.length - passing - failing} not applicable)\n`,
  );
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = main(process.argv.slice(2));
