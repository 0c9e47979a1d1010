/**
 * Wraps the body of the model's code into a script the isolate compiles, without moving any of its
 * lines: the wrapper takes a line of its own before the code (compiled with `lineOffset: -1`), so line N
 * of the code is line N in every stack trace and syntax error.
 */

import type {
  CatchClause,
  Class,
  Function as FunctionNode,
  Node,
  Pattern,
  Program,
  Statement,
  VariableDeclarator,
} from "acorn";
import { parse } from "acorn";
import { PERSIST_PARAMETER, RESTORE_PARAMETER } from "../guest/interface.js";

/** The snapshot function's own variable (a name no model would declare). */
const VALUES = "__cordon_values__";

/** A script ready for `compileScript`, and the origin that keeps the code's own line numbers. */
export interface WrappedCode {
  source: string;
  lineOffset: number;
  /**
   * The names the code declares anywhere (variables, functions, classes, parameters, catch bindings),
   * at most {@link MAX_DECLARED_NAMES}: what a ReferenceError's "did you mean" draws on.
   */
  names: string[];
  /**
   * Whether the code parsed as the body of an async function. Only then is it certain to stay inside
   * the wrapper: code that does not parse may close it early and run outside it.
   */
  parsed: boolean;
}

/**
 * Parameters of a function around the wrapper that shadow the launch closure's own (`$0`, `$1`, `$2`: the
 * prelude's entry, the run id and the run's config), so the code never sees them. Around it, not on it:
 * the code may declare those names itself.
 */
const SHADOWED = "$0, $1, $2";

/** Declared names handed to the prelude for suggestions, at most. */
const MAX_DECLARED_NAMES = 500;

/**
 * Wraps `code` (the body of an async function) as an async function expression. When the code parses,
 * its top-level declarations are registered with the prelude (through the `__cordon_persist__`
 * parameter) so that a session copies them onto `globalThis` when the run ends, and top-level `var`s
 * start from the value an earlier run left (read through the `__cordon_restore__` parameter, which
 * takes only own data properties of the global object, so no getter an earlier run left runs here).
 */
export function wrapCode(code: string): WrappedCode {
  const program = parseBody(code);
  const declared = program && topLevelDeclarations(program);
  let header = `(function (${SHADOWED}) { return async function (${PERSIST_PARAMETER}, ${RESTORE_PARAMETER}) {`;
  if (declared) {
    if (declared.strict) header += ' "use strict";';
    const names = [...declared.lets, ...declared.vars, ...declared.functions].filter(isPlainName);
    const restored = declared.vars.filter((name) => isPlainName(name) && !declared.functions.includes(name));
    if (restored.length > 0) {
      header += ` var ${restored.map((name) => `${name} = ${RESTORE_PARAMETER}(${JSON.stringify(name)})`).join(", ")};`;
    }
    if (names.length > 0) {
      const reads = [...new Set(names)]
        .map((name) => `try { ${VALUES}[${JSON.stringify(name)}] = ${name}; } catch {}`)
        .join(" ");
      header += ` ${PERSIST_PARAMETER}(function () { var ${VALUES} = {}; ${reads} return ${VALUES}; });`;
    }
  }
  const names = program ? declaredNames(program) : [];
  return { source: `${header}\n${code}\n}; })()`, lineOffset: -1, names, parsed: program !== undefined };
}

/** The code parsed as the body of an async function; undefined when acorn cannot parse it. */
function parseBody(code: string): Program | undefined {
  try {
    return parse(code, {
      ecmaVersion: "latest",
      sourceType: "script",
      allowReturnOutsideFunction: true,
      allowAwaitOutsideFunction: true,
    });
  } catch {
    return undefined;
  }
}

/** Every name the program binds, in order of appearance, without duplicates or cordon's own names. */
function declaredNames(program: Program): string[] {
  const names = new Set<string>();
  const add = (pattern: Pattern | null | undefined) => {
    if (!pattern) return;
    const found: string[] = [];
    collectNames(pattern, found);
    for (const name of found) if (isPlainName(name) && !name.startsWith("__")) names.add(name);
  };
  const visit = (node: unknown): void => {
    if (names.size >= MAX_DECLARED_NAMES || typeof node !== "object" || node === null) return;
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    const record = node as Record<string, unknown> & { type?: unknown };
    if (typeof record.type !== "string") return;
    const typed = node as Node;
    switch (typed.type) {
      case "VariableDeclarator":
        add((typed as VariableDeclarator).id);
        break;
      case "FunctionDeclaration":
      case "FunctionExpression":
      case "ArrowFunctionExpression": {
        const fn = typed as FunctionNode;
        if (fn.id) add(fn.id);
        for (const param of fn.params) add(param);
        break;
      }
      case "ClassDeclaration":
      case "ClassExpression":
        if ((typed as Class).id) add((typed as Class).id!);
        break;
      case "CatchClause":
        add((typed as CatchClause).param);
        break;
    }
    for (const key in record) {
      if (key !== "type" && key !== "loc" && key !== "range") visit(record[key]);
    }
  };
  visit(program.body);
  return [...names].slice(0, MAX_DECLARED_NAMES);
}

/** Names declared at the top level of a function body, by kind. */
interface Declarations {
  vars: string[];
  lets: string[];
  functions: string[];
  strict: boolean;
}

function topLevelDeclarations(program: Program): Declarations {
  const body = program.body as Statement[];
  const result: Declarations = { vars: [], lets: [], functions: [], strict: false };
  const first = body[0];
  result.strict =
    first?.type === "ExpressionStatement" && "directive" in first && first.directive === "use strict";
  for (const statement of body) {
    if (statement.type === "VariableDeclaration") {
      const into = statement.kind === "var" ? result.vars : result.lets;
      for (const declarator of statement.declarations) collectNames(declarator.id, into);
    } else if (statement.type === "FunctionDeclaration") {
      result.functions.push(statement.id.name);
    } else if (statement.type === "ClassDeclaration") {
      result.lets.push(statement.id.name);
    }
  }
  return result;
}

function collectNames(pattern: Pattern, into: string[]): void {
  switch (pattern.type) {
    case "Identifier":
      into.push(pattern.name);
      return;
    case "ObjectPattern":
      for (const property of pattern.properties) {
        collectNames(property.type === "RestElement" ? property.argument : property.value, into);
      }
      return;
    case "ArrayPattern":
      for (const element of pattern.elements) if (element) collectNames(element, into);
      return;
    case "RestElement":
      collectNames(pattern.argument, into);
      return;
    case "AssignmentPattern":
      collectNames(pattern.left, into);
      return;
    default:
      return;
  }
}

/** Leaves out the wrapper's own parameter, `eval`, `arguments` and anything that is not a plain identifier. */
function isPlainName(name: string): boolean {
  return (
    name !== PERSIST_PARAMETER &&
    name !== RESTORE_PARAMETER &&
    name !== VALUES &&
    name !== "eval" &&
    name !== "arguments" &&
    /^[A-Za-z_$][\w$]*$/.test(name)
  );
}
