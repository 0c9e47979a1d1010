/**
 * Runs corpus programs through code mode with a type-check mode, one code mode per catalog, in the
 * in-process isolate environment (fast; the corpus is trusted code). Each run starts from fresh fixtures
 * and records what the catalog's tools did, so a caller can tell whether a run was stopped before any tool
 * ran. Written against the API contract of issue 27: `codeMode({ typecheck })`, a blocked run ends with
 * `error.name === "TypeCheckError"`, and `result.diagnostics` lists what the checker found.
 */

import { isolateEnvironment } from "../../../src/entries/in-process.js";
import {
  type CodeMode,
  type CodeModeOptions,
  type CodeRunResult,
  codeMode,
  Dispatcher,
} from "../../../src/index.js";
import type { CatalogCounts, CatalogName, CorpusCatalog } from "./catalogs/catalog.js";
import { shopCatalog } from "./catalogs/shop.js";
import { workspaceCatalog } from "./catalogs/workspace.js";
import type { CorpusProgram } from "./corpus.js";

/** How code mode checks the model's code before it runs (issue 27). */
export type TypecheckMode = "block" | "report" | "off";

/** One problem the checker found, as issue 27's contract defines it. */
interface CorpusDiagnostic {
  /** 1-based, in the code as sent. */
  line: number;
  column: number;
  message: string;
  /** TypeScript's error code. */
  code: number;
  fix?: string;
}

/** A run's result, with the diagnostics a checked run adds. */
type CheckedRunResult = CodeRunResult & { diagnostics?: CorpusDiagnostic[] };

/** One program's run: its result and what the catalog's tools did meanwhile. */
export interface ProgramRun {
  program: CorpusProgram;
  result: CheckedRunResult;
  counts: CatalogCounts;
}

/** Runs programs with one type-check mode. */
export interface CorpusRunner {
  readonly mode: TypecheckMode;
  run(program: CorpusProgram): Promise<ProgramRun>;
  close(): Promise<void>;
}

/** The name a run blocked by the check ends with. */
export const TYPE_CHECK_ERROR = "TypeCheckError";

/** A runner whose code modes (one per catalog) check code with `mode`; every gated call is approved. */
export async function openCorpusRunner(mode: TypecheckMode): Promise<CorpusRunner> {
  const catalogs = await Promise.all([shopCatalog(), workspaceCatalog()]);
  const modes = new Map<CatalogName, { catalog: CorpusCatalog; cm: CodeMode }>(
    catalogs.map((catalog) => {
      // `typecheck` is the option issue 27 adds; until then code mode ignores it and runs unchecked.
      const options: CodeModeOptions & { typecheck: TypecheckMode } = {
        tools: catalog.tools,
        // The corpus measures effects, not approvals: every refund goes through.
        dispatcher: new Dispatcher(catalog.tools, { approvalHandler: () => true }),
        environment: isolateEnvironment(),
        typecheck: mode,
      };
      return [catalog.name, { catalog, cm: codeMode(options) }];
    }),
  );
  return {
    mode,
    async run(program) {
      const entry = modes.get(program.catalog);
      if (!entry) throw new Error(`There is no catalog ${program.catalog} for ${program.id}.`);
      await entry.catalog.reset();
      const result: CheckedRunResult = await entry.cm.run(program.code);
      return { program, result, counts: entry.catalog.counts() };
    },
    async close() {
      await Promise.all([...modes.values()].map(({ cm }) => cm.close()));
    },
  };
}

/** The run ended before any tool was called: no call recorded, no tool ran, no effect. */
export function stoppedBeforeAnyCall({ result, counts }: ProgramRun): boolean {
  return result.calls.length === 0 && counts.calls === 0 && counts.effects === 0;
}

/** A diagnostic names the line a faulty program marks as its mistake. */
export function diagnosedOnMarkedLine({ program, result }: ProgramRun): boolean {
  if (program.expect !== "error") return false;
  const { line } = program;
  return (result.diagnostics ?? []).some((d) => d.line === line);
}

/** The checker blocked the run before any tool ran, and named the line of the mistake. */
export function blockedOnMarkedLine(run: ProgramRun): boolean {
  const { result } = run;
  return (
    result.status === "error" &&
    result.error?.name === TYPE_CHECK_ERROR &&
    stoppedBeforeAnyCall(run) &&
    diagnosedOnMarkedLine(run)
  );
}

/** How a faulty program ended without a check: the status, and whether it took effects first. */
export function runtimeOutcome({ result, counts }: ProgramRun): string {
  const effects =
    counts.effects === 0 ? "no effect" : `${counts.effects} effect${counts.effects > 1 ? "s" : ""}`;
  const ending =
    result.status === "ok"
      ? "ended ok (wrong or partial result)"
      : `${result.status}: ${result.error?.name ?? "?"}`;
  return `${ending}, after ${effects}`;
}
