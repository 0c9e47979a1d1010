/**
 * One check of code against a tool set, without a code mode: what `cordon check` prints. The code is
 * read as run_code reads it (markdown fences, top-level await and return), then checked as a run would
 * be, in a worker thread that ends afterwards.
 */

import type { Toolset } from "../../tools/toolset.js";
import { toolDeclarations } from "../declarations.js";
import { declaredToolsOf } from "../declared-tools.js";
import { prepareCode } from "../transpile.js";
import { DEFAULT_TYPECHECK_LIMITS } from "./limits.js";
import {
  resolveTypeScriptFromCordon,
  type TypeScriptResolver,
  typescriptPath,
} from "./resolve-typescript.js";
import { TypeChecker } from "./type-checker.js";
import type { RepairedToolName, TypeCheckLimits, TypeDiagnostic } from "./types.js";

/** What one check found. */
export type CheckOnceResult =
  | {
      status: "checked";
      diagnostics: TypeDiagnostic[];
      errorCount: number;
      repaired: RepairedToolName[];
      /** The code that was checked (a fenced block's content, or the whole text). */
      source: string;
    }
  /** The code does not parse: run_code would refuse it before any check. */
  | { status: "syntax"; message: string; line?: number; column?: number }
  /** The check did not finish (its budget, its memory cap, or a failure). */
  | { status: "unchecked"; message: string };

/** Checks `code` against `tools` once. Throws a UserError when typescript cannot be found. */
export async function checkOnce(
  tools: Toolset,
  code: string,
  options: { limits?: Partial<TypeCheckLimits>; resolveTypeScript?: TypeScriptResolver } = {},
): Promise<CheckOnceResult> {
  const path = typescriptPath(options.resolveTypeScript ?? resolveTypeScriptFromCordon, "cordon check");
  const prepared = await prepareCode(code);
  if ("error" in prepared) {
    const { message, line, column } = prepared.error;
    return {
      status: "syntax",
      message,
      ...(line === undefined ? {} : { line }),
      ...(column === undefined ? {} : { column }),
    };
  }
  const { identifiers, declared } = declaredToolsOf(tools);
  const checker = new TypeChecker({
    typescriptPath: path,
    declarations: toolDeclarations(declared, { forChecking: true }),
    toolNames: identifiers,
    limits: { ...DEFAULT_TYPECHECK_LIMITS, ...options.limits },
    // One check, one client: one thread.
    workers: 1,
  });
  try {
    const outcome = await checker.check(prepared.source, { values: [], types: [] });
    if (outcome.status === "unchecked") return { status: "unchecked", message: outcome.message };
    const { diagnostics, errorCount, repaired } = outcome;
    return { status: "checked", diagnostics, errorCount, repaired, source: prepared.source };
  } finally {
    await checker.close();
  }
}
