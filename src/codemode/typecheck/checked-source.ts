/**
 * The model's code as TypeScript checks it: the body of an async function, as code mode runs it, so
 * top-level `await` and `return` are accepted, and the value of the last expression (or a lone async
 * arrow function) needs nothing more. Everything the check adds goes on one line before the code, so
 * line N + 1 of the checked text is line N of the model's code, column for column.
 */

import { CHECKED_TOOLS_INTERFACE } from "../declarations.js";
import type { DeclaredNames } from "./types.js";

/** The function the code is checked inside (a name no model would write). */
const CHECKED_FUNCTION = "__cordon_checked__";

/** The checked text, and the number of lines of the model's code in it. */
export interface CheckedSource {
  text: string;
  codeLines: number;
}

/**
 * Wraps `code` for the check. `aliases` are names the code reaches tools by that the dispatcher
 * repairs (`getOrder` for the declared `get_order`): they join the `Tools` interface with the declared
 * tool's signature. `session` names what earlier runs of the session left: values are declared `any`,
 * types as `any` too (their shapes were not kept).
 */
export function checkedSource(
  code: string,
  aliases: readonly (readonly [string, string])[],
  session: DeclaredNames,
): CheckedSource {
  const prefix: string[] = [];
  if (aliases.length > 0) {
    const members = aliases.map(
      ([name, declared]) =>
        `${JSON.stringify(name)}: ${CHECKED_TOOLS_INTERFACE}[${JSON.stringify(declared)}];`,
    );
    prefix.push(`interface ${CHECKED_TOOLS_INTERFACE} { ${members.join(" ")} }`);
  }
  for (const name of session.values) if (isIdentifier(name)) prefix.push(`declare var ${name}: any;`);
  for (const name of session.types) if (isIdentifier(name)) prefix.push(`type ${name} = any;`);
  prefix.push(`async function ${CHECKED_FUNCTION}() {`);
  return { text: `${prefix.join(" ")}\n${code}\n}\n`, codeLines: code.split("\n").length };
}

function isIdentifier(name: string): boolean {
  return /^[A-Za-z_$][\w$]*$/.test(name);
}
