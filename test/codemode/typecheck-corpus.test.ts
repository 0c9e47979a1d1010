// The corpus of issue 27: realistic programs a model writes against two catalogs (the shop example and an
// MCP-style namespaced workspace), correct ones and ones with the mistakes models make, run through code
// mode with each type-check mode. "off" is today's behaviour: it shows what faulty programs do unchecked.
// "block" and "report" measure the checker: no correct program blocked or flagged, and at least 90% of the
// faulty ones stopped before any tool ran, with a diagnostic on the line of the mistake.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CorpusProgram, loadCorpus, MISTAKE_KINDS } from "./typecheck-corpus/corpus.js";
import {
  blockedOnMarkedLine,
  diagnosedOnMarkedLine,
  openCorpusRunner,
  type ProgramRun,
  runtimeOutcome,
  stoppedBeforeAnyCall,
  TYPE_CHECK_ERROR,
  type TypecheckMode,
} from "./typecheck-corpus/runner.js";

/** The share of faulty programs a blocking check must stop before any effect (issue 27). */
const MIN_CATCH_RATE = 0.9;
const RUN_ALL_MS = 60_000;

const corpus = loadCorpus();
const correct = corpus.filter((p) => p.expect === "ok");
const faulty = corpus.filter((p) => p.expect === "error");

/** Runs every program with `mode`, one after another (each from fresh fixtures). */
function runsWith(mode: TypecheckMode): { runs: ProgramRun[] } {
  const state = { runs: [] as ProgramRun[] };
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const runner = await openCorpusRunner(mode);
    close = () => runner.close();
    for (const program of corpus) state.runs.push(await runner.run(program));
  }, RUN_ALL_MS);
  afterAll(() => close?.());
  return state;
}

/** What is wrong with a correct program's run, if anything: it must run ok and return what it says. */
function correctRunProblem({ program, result }: ProgramRun): string | undefined {
  if (result.status !== "ok") {
    return `${program.id}: ${result.status} ${result.error?.name}: ${result.error?.message} (line ${result.error?.line})`;
  }
  if (program.expect === "ok" && program.returns && !isDeepStrictEqual(result.value, program.returns.value)) {
    return `${program.id}: returned ${JSON.stringify(result.value)}, expected ${JSON.stringify(program.returns.value)}`;
  }
  return undefined;
}

function diagnosticsOf(run: ProgramRun): string {
  return (run.result.diagnostics ?? [])
    .map((d) => `${d.line}:${d.column} TS${d.code} ${d.message}`)
    .join(" | ");
}

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;
const faultyRuns = (runs: ProgramRun[]) => runs.filter((r) => r.program.expect === "error");
const correctRuns = (runs: ProgramRun[]) => runs.filter((r) => r.program.expect === "ok");

describe("the corpus", () => {
  it("has at least 30 correct and 30 faulty programs, over both catalogs and every kind of mistake", () => {
    const count = (programs: CorpusProgram[], catalog: string) =>
      programs.filter((p) => p.catalog === catalog).length;
    console.log(
      `corpus: ${corpus.length} programs; shop ${count(correct, "shop")} correct + ${count(faulty, "shop")} faulty, ` +
        `workspace ${count(correct, "workspace")} correct + ${count(faulty, "workspace")} faulty`,
    );
    expect(correct.length).toBeGreaterThanOrEqual(30);
    expect(faulty.length).toBeGreaterThanOrEqual(30);
    for (const catalog of ["shop", "workspace"]) {
      expect(count(correct, catalog)).toBeGreaterThanOrEqual(10);
      expect(count(faulty, catalog)).toBeGreaterThanOrEqual(10);
    }
    const kinds = new Set(faulty.map((p) => (p.expect === "error" ? p.mistake : undefined)));
    expect([...MISTAKE_KINDS].filter((kind) => !kinds.has(kind))).toEqual([]);
  });
});

describe("typecheck off (today's behaviour)", () => {
  const state = runsWith("off");

  it("runs every correct program ok, returning what its header says", () => {
    expect(correctRuns(state.runs).map(correctRunProblem).filter(Boolean)).toEqual([]);
  });

  it("runs the faulty programs: their mistakes are type errors, not syntax errors, so only a check stops them", () => {
    const runs = faultyRuns(state.runs);
    const failedAfterEffect = runs.filter((r) => r.result.status !== "ok" && r.counts.effects > 0);
    const failedBeforeEffect = runs.filter((r) => r.result.status !== "ok" && r.counts.effects === 0);
    const endedOk = runs.filter((r) => r.result.status === "ok");
    console.log(
      `typecheck off: of ${runs.length} faulty programs, ${failedAfterEffect.length} failed after taking an effect, ` +
        `${failedBeforeEffect.length} failed before any effect, ${endedOk.length} ended ok with a wrong or partial result ` +
        `(${endedOk.filter((r) => r.counts.effects > 0).length} of them after effects); ` +
        `${runs.filter((r) => r.counts.effects > 0).length} took an effect in all`,
    );
    console.log(runs.map((r) => `  ${r.program.id}: ${runtimeOutcome(r)}`).join("\n"));
    // Code that does not parse ends before its first call with a SyntaxError; JSON.parse(undefined) in
    // one program is a SyntaxError at run time, after its calls.
    const unparsed = runs.filter((r) => r.result.error?.name === "SyntaxError" && stoppedBeforeAnyCall(r));
    expect(unparsed.map((r) => r.program.id)).toEqual([]);
  });
});

describe("typecheck block", () => {
  const state = runsWith("block");

  it("blocks no correct program: each runs ok, returns what it says, and has no diagnostics", () => {
    const problems = correctRuns(state.runs).flatMap((run) => {
      const problem = correctRunProblem(run);
      const diagnostics = diagnosticsOf(run);
      return [problem, diagnostics ? `${run.program.id}: diagnostics ${diagnostics}` : undefined].filter(
        Boolean,
      );
    });
    expect(problems).toEqual([]);
  });

  it(`stops at least ${MIN_CATCH_RATE * 100}% of the faulty programs before any tool runs, on the marked line`, () => {
    const runs = faultyRuns(state.runs);
    const caught = runs.filter(blockedOnMarkedLine);
    const missed = runs.filter((r) => !blockedOnMarkedLine(r));
    const falseBlocks = correctRuns(state.runs).filter((r) => r.result.error?.name === TYPE_CHECK_ERROR);
    console.log(
      `typecheck block: ${falseBlocks.length} of ${correct.length} correct programs falsely blocked; ` +
        `${caught.length} of ${runs.length} faulty programs (${percent(caught.length, runs.length)}) stopped before any tool call with a diagnostic on the line of the mistake`,
    );
    if (missed.length > 0) {
      console.log(
        `not caught:\n${missed
          .map((r) => {
            const line = r.program.expect === "error" ? r.program.line : 0;
            return `  ${r.program.id} (line ${line}): ${r.result.status} ${r.result.error?.name ?? ""}; calls ${r.result.calls.length}; ${diagnosticsOf(r) || "no diagnostics"}`;
          })
          .join("\n")}`,
      );
    }
    expect(caught.length / runs.length).toBeGreaterThanOrEqual(MIN_CATCH_RATE);
    // The README quotes these figures: they must be the ones this corpus gives.
    const readme = readFileSync(join(import.meta.dirname, "../../README.md"), "utf8").replace(/\s+/g, " ");
    expect(readme).toContain(
      `${falseBlocks.length} of ${correct.length} correct programs falsely blocked, ${caught.length} of ${runs.length} faulty programs stopped before any tool call`,
    );
  });
});

describe("typecheck report", () => {
  const state = runsWith("report");

  it("reports nothing about any correct program, and runs each ok", () => {
    const problems = correctRuns(state.runs).flatMap((run) => {
      const diagnostics = diagnosticsOf(run);
      return [
        correctRunProblem(run),
        diagnostics ? `${run.program.id}: diagnostics ${diagnostics}` : undefined,
      ].filter(Boolean);
    });
    expect(problems).toEqual([]);
  });

  it(`reports the mistake of at least ${MIN_CATCH_RATE * 100}% of the faulty programs on the marked line, and runs them anyway`, () => {
    const runs = faultyRuns(state.runs);
    const reported = runs.filter(diagnosedOnMarkedLine);
    console.log(
      `typecheck report: ${reported.length} of ${runs.length} faulty programs (${percent(reported.length, runs.length)}) reported on the line of the mistake`,
    );
    expect(reported.length / runs.length).toBeGreaterThanOrEqual(MIN_CATCH_RATE);
    expect(runs.filter((r) => r.result.error?.name === TYPE_CHECK_ERROR).map((r) => r.program.id)).toEqual(
      [],
    );
  });
});
