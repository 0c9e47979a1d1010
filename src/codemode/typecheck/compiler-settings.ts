/**
 * The compiler settings for the model's code. Worker side: it is given the loaded `typescript` module.
 *
 * The aim is no false alarm on code that runs: `strict` for the sound parts (function types, `this`,
 * bind/call/apply), without the parts that flag working model code:
 * - `noImplicitAny` off: a parameter without a type (`items.map((x) => ...)` is contextually typed anyway;
 *   a helper function's untyped parameters are common and harmless).
 * - `strictNullChecks` off: with it on, `orders.find(...).total` and every optional field read from a
 *   tool's result is an error, though the data usually has it; models write such code constantly, and
 *   blocking it would stop runs that work. A missing value still fails at run time, with its line.
 * - `useUnknownInCatchVariables` off: `catch (e) { e.message }` is the most common catch a model writes.
 * - Unused variables, labels and unreachable code are allowed: they are not mistakes that break a run.
 */

import type ts from "typescript";

/** The compiler options of a check. */
export function compilerOptions(typescript: typeof ts): ts.CompilerOptions {
  return {
    strict: true,
    noImplicitAny: false,
    strictNullChecks: false,
    useUnknownInCatchVariables: false,
    noUnusedLocals: false,
    noUnusedParameters: false,
    allowUnreachableCode: true,
    allowUnusedLabels: true,
    noImplicitReturns: false,
    noFallthroughCasesInSwitch: false,
    exactOptionalPropertyTypes: false,
    noUncheckedIndexedAccess: false,
    // The lib is given file by file (see sandbox-lib.ts), never looked up.
    noLib: true,
    noResolve: true,
    types: [],
    // The lib and the declarations are trusted: only the model's code is checked.
    skipLibCheck: true,
    noEmit: true,
    target: typescript.ScriptTarget.ES2022,
    module: typescript.ModuleKind.None,
  };
}
