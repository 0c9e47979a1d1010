/**
 * The lib the model's code is checked against: what the sandbox's global scope holds, no more. The
 * sandbox is a bare V8 isolate with cordon's prelude (sandbox/guest/prelude/): the ES2023 built-ins,
 * minus the few the prelude removes, plus `tools`, `console`, `ToolCallError` and `queueMicrotask`. There
 * is no DOM and no Node: no timers, `fetch`, `structuredClone`, `TextEncoder`, `URL` or `process`, so
 * none of them is declared, and code that uses them fails the check as it would fail the run.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";

/** TypeScript's lib the checker starts from (its `lib.<name>.d.ts` and every lib that one references). */
const SANDBOX_LIB = "es2023";

/**
 * Built-in globals the prelude deletes from the sandbox: their `declare var` is taken out of the lib, so
 * using one as a value is an error (the types of the same names stay, and harm nothing).
 */
const REMOVED_GLOBALS: readonly string[] = ["SharedArrayBuffer", "FinalizationRegistry"];

/** A lib file's text without the `declare var` of the globals the sandbox removes. */
function withoutRemovedGlobals(text: string): string {
  let out = text;
  for (const name of REMOVED_GLOBALS) {
    out = out.replace(new RegExp(`^declare var ${name}: [A-Za-z]+;$`, "m"), "");
  }
  return out;
}

/** The names of the libs `lib.<name>.d.ts` references through `/// <reference lib="..." />`. */
function referencedLibs(text: string): string[] {
  return [...text.matchAll(/^\/\/\/\s*<reference\s+lib="([^"]+)"\s*\/>/gm)].map((match) => match[1]!);
}

/**
 * The lib files of the check, read from `libDirectory` (the folder of TypeScript's main module): file name
 * (`lib.es2023.d.ts`, ...) to text, {@link SANDBOX_LIB} and every lib it references, each without the
 * globals the sandbox removes. Also what bench/ts7 gives TypeScript 7, so both compilers see this text.
 */
export function sandboxLibFiles(libDirectory: string): Map<string, string> {
  const files = new Map<string, string>();
  const pending = [SANDBOX_LIB];
  while (pending.length > 0) {
    const name = pending.pop()!;
    const fileName = `lib.${name}.d.ts`;
    if (files.has(fileName)) continue;
    const text = readFileSync(join(libDirectory, fileName), "utf8");
    pending.push(...referencedLibs(text));
    files.set(fileName, withoutRemovedGlobals(text));
  }
  return files;
}

/**
 * The globals the prelude adds, as declarations. `console` has the methods the sandbox's console has;
 * `ToolCallError` is what a failed tool call rejects with.
 */
export const SANDBOX_GLOBALS = `interface Console {
  log(...data: any[]): void;
  info(...data: any[]): void;
  warn(...data: any[]): void;
  error(...data: any[]): void;
  debug(...data: any[]): void;
  trace(...data: any[]): void;
  dir(...data: any[]): void;
  table(...data: any[]): void;
}
declare const console: Console;
/** A failed tools.* call: the real tool name, the kind of failure, and a message. */
declare class ToolCallError extends Error {
  readonly tool: string;
  readonly kind: string;
  constructor(tool: string, kind: string, message: string);
}
declare function queueMicrotask(callback: () => void): void;
`;
