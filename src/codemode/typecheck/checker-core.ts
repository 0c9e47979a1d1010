/**
 * The type checker of one tool set, inside the worker thread: the lib and the declarations are parsed
 * and bound once, and each check builds a program from them and the model's code only (the previous
 * program is handed to TypeScript for reuse), then asks for the diagnostics of the code's file alone.
 */

import { dirname } from "node:path";
import type ts from "typescript";
import { CHECKED_TOOLS_INTERFACE } from "../declarations.js";
import { checkedSource } from "./checked-source.js";
import { compilerOptions } from "./compiler-settings.js";
import { modelDiagnostics } from "./diagnostics.js";
import { MAX_TYPE_DIAGNOSTICS } from "./limits.js";
import { SANDBOX_GLOBALS, sandboxLibFiles } from "./sandbox-lib.js";
import type { CheckRequest, DeclaredNames, TypeDiagnostic } from "./types.js";

/** Where the checked files live in the checker's own file system (nothing is read from disk by name). */
const ROOT = "/cordon/";
const CODE_FILE = `${ROOT}code.ts`;
const DECLARATIONS_FILE = `${ROOT}tools.d.ts`;
const GLOBALS_FILE = `${ROOT}sandbox-globals.d.ts`;

/** What one check found. */
export interface CheckFindings {
  diagnostics: TypeDiagnostic[];
  errorCount: number;
  declared: DeclaredNames;
}

/** Globals a session name must never redeclare: they are the sandbox's own. */
const SANDBOX_NAMES = new Set([
  "tools",
  "console",
  "ToolCallError",
  "queueMicrotask",
  "globalThis",
  CHECKED_TOOLS_INTERFACE,
]);

/** The checker of one tool set: parsed lib and declarations, and the last program for reuse. */
export class ModelCodeChecker {
  readonly #ts: typeof ts;
  readonly #options: ts.CompilerOptions;
  readonly #files = new Map<string, ts.SourceFile>();
  /** Names the lib declares at its top level: a session name that is one of them is not redeclared. */
  readonly #libNames = new Set<string>(SANDBOX_NAMES);
  readonly #toolIdentifiers: Set<string>;
  #previous: ts.Program | undefined;

  constructor(
    typescript: typeof ts,
    typescriptPath: string,
    declarations: string,
    toolIdentifiers: readonly string[],
  ) {
    this.#ts = typescript;
    this.#options = compilerOptions(typescript);
    this.#toolIdentifiers = new Set(toolIdentifiers);
    for (const [name, text] of sandboxLibFiles(dirname(typescriptPath)))
      this.#addFile(`${ROOT}${name}`, text);
    for (const file of this.#files.values()) {
      for (const statement of file.statements) this.#collectLibName(statement);
    }
    this.#addFile(GLOBALS_FILE, SANDBOX_GLOBALS);
    this.#addFile(DECLARATIONS_FILE, declarations);
  }

  /** Checks the model's code; never throws for anything in the code. */
  check(request: Omit<CheckRequest, "id">): CheckFindings {
    const typescript = this.#ts;
    const session: DeclaredNames = {
      values: request.session.values.filter((name) => !this.#libNames.has(name)),
      types: request.session.types.filter((name) => !this.#libNames.has(name)),
    };
    const source = checkedSource(request.code, request.aliases, session);
    const code = typescript.createSourceFile(CODE_FILE, source.text, typescript.ScriptTarget.ES2022, true);
    const files = this.#files;
    const host: ts.CompilerHost = {
      getSourceFile: (name) => (name === CODE_FILE ? code : files.get(name)),
      getDefaultLibFileName: () => `${ROOT}lib.d.ts`,
      writeFile: () => {},
      getCurrentDirectory: () => ROOT,
      getCanonicalFileName: (name) => name,
      useCaseSensitiveFileNames: () => true,
      getNewLine: () => "\n",
      fileExists: (name) => name === CODE_FILE || files.has(name),
      readFile: () => undefined,
    };
    const program = typescript.createProgram({
      rootNames: [...files.keys(), CODE_FILE],
      options: this.#options,
      host,
      ...(this.#previous ? { oldProgram: this.#previous } : {}),
    });
    this.#previous = program;
    const raw = [...program.getSyntacticDiagnostics(code), ...program.getSemanticDiagnostics(code)];
    const aliases = new Map(request.aliases);
    const all = modelDiagnostics(typescript, raw, source.codeLines, (name) =>
      this.#toolIdentifiers.has(name) ? name : aliases.get(name),
    );
    return {
      diagnostics: all.slice(0, MAX_TYPE_DIAGNOSTICS),
      errorCount: all.length,
      declared: this.#declaredNames(code),
    };
  }

  #addFile(name: string, text: string): void {
    this.#files.set(name, this.#ts.createSourceFile(name, text, this.#ts.ScriptTarget.ES2022));
  }

  #collectLibName(statement: ts.Statement): void {
    const typescript = this.#ts;
    if (typescript.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (typescript.isIdentifier(declaration.name)) this.#libNames.add(declaration.name.text);
      }
    } else if (
      (typescript.isInterfaceDeclaration(statement) ||
        typescript.isTypeAliasDeclaration(statement) ||
        typescript.isFunctionDeclaration(statement) ||
        typescript.isClassDeclaration(statement) ||
        typescript.isModuleDeclaration(statement)) &&
      statement.name !== undefined &&
      typescript.isIdentifier(statement.name)
    ) {
      this.#libNames.add(statement.name.text);
    }
  }

  /** The top-level declarations of the model's code (the statements of the wrapper function's body). */
  #declaredNames(code: ts.SourceFile): DeclaredNames {
    const typescript = this.#ts;
    const declared: DeclaredNames = { values: [], types: [] };
    const wrapper = code.statements.at(-1);
    if (wrapper === undefined || !typescript.isFunctionDeclaration(wrapper) || wrapper.body === undefined) {
      return declared;
    }
    const bindingNames = (name: ts.BindingName): void => {
      if (typescript.isIdentifier(name)) declared.values.push(name.text);
      else
        for (const element of name.elements)
          if (!typescript.isOmittedExpression(element)) bindingNames(element.name);
    };
    for (const statement of wrapper.body.statements) {
      if (typescript.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) bindingNames(declaration.name);
      } else if (typescript.isFunctionDeclaration(statement) && statement.name) {
        declared.values.push(statement.name.text);
      } else if (
        (typescript.isClassDeclaration(statement) || typescript.isEnumDeclaration(statement)) &&
        statement.name
      ) {
        declared.values.push(statement.name.text);
        declared.types.push(statement.name.text);
      } else if (
        typescript.isTypeAliasDeclaration(statement) ||
        typescript.isInterfaceDeclaration(statement)
      ) {
        declared.types.push(statement.name.text);
      }
    }
    return declared;
  }
}
