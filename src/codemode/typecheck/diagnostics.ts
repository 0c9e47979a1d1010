/**
 * TypeScript's diagnostics of the checked text as the model reads them: only errors in the model's own
 * lines, at its own positions, each with the fix TypeScript suggests. Worker side.
 */

import type ts from "typescript";
import { MAX_DIAGNOSTIC_MESSAGE_CHARS } from "./limits.js";
import type { TypeDiagnostic } from "./types.js";

/** The fix in TypeScript's "Did you mean 'x'?" and "Did you mean to write 'x'?" messages. */
const DID_YOU_MEAN = /Did you mean (?:to write )?'([^']+)'\?/;

/** TypeScript's related message when a Promise is used where its value was meant. */
const FORGOT_AWAIT = "Did you forget to use 'await'?";

/** TS2304: "Cannot find name 'x'." */
const CANNOT_FIND_NAME = 2304;

/**
 * The errors among `diagnostics` that are in the model's code (lines 1 to `codeLines` of it, which are
 * lines 2 on of the checked text), in the order of the code. `toolIdentifier` names the tool a bare name
 * reaches, for code that calls a tool without `tools.`.
 */
export function modelDiagnostics(
  typescript: typeof ts,
  diagnostics: readonly ts.Diagnostic[],
  codeLines: number,
  toolIdentifier: (name: string) => string | undefined,
): TypeDiagnostic[] {
  const found: TypeDiagnostic[] = [];
  for (const diagnostic of diagnostics) {
    if (diagnostic.category !== typescript.DiagnosticCategory.Error) continue;
    if (diagnostic.file === undefined || diagnostic.start === undefined) continue;
    const position = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    // Line 0 is what the check added before the code; the line after the code closes the wrapper.
    if (position.line < 1) continue;
    const line = Math.min(position.line, codeLines);
    const column = position.line > codeLines ? 1 : position.character + 1;
    let message = typescript.flattenDiagnosticMessageText(diagnostic.messageText, " ");
    const related = diagnostic.relatedInformation ?? [];
    if (
      related.some((info) => typescript.flattenDiagnosticMessageText(info.messageText, " ") === FORGOT_AWAIT)
    ) {
      message += ` ${FORGOT_AWAIT}`;
    }
    let fix = DID_YOU_MEAN.exec(message)?.[1];
    if (diagnostic.code === CANNOT_FIND_NAME) {
      const name = /^Cannot find name '([^']+)'/.exec(message)?.[1];
      const tool = name === undefined ? undefined : toolIdentifier(name);
      if (tool !== undefined) {
        message += ` It is a tool: call it on the tools object, tools.${tool}(args).`;
        fix = `tools.${tool}`;
      }
    }
    if (message.length > MAX_DIAGNOSTIC_MESSAGE_CHARS) {
      message = `${message.slice(0, MAX_DIAGNOSTIC_MESSAGE_CHARS)}…`;
    }
    found.push({ line, column, message, code: diagnostic.code, ...(fix === undefined ? {} : { fix }) });
  }
  return found.sort((a, b) => a.line - b.line || a.column - b.column);
}
