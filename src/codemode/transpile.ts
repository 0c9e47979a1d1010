/**
 * Turns the model's `run_code` source into the JavaScript body a sandbox executes: markdown fences are
 * stripped, TypeScript types are removed by esbuild, the last top-level expression becomes the returned
 * value, and positions in the result map back to the model's own TypeScript through esbuild's sourcemap.
 *
 * Source that already is plain JavaScript (it parses with acorn as the body of an async function, and
 * has no `<` ... `>` that TypeScript could read as type arguments) skips esbuild: it runs as written,
 * so its positions need no map. esbuild runs as a service process, and even `1 + 1` costs a round trip;
 * its module is loaded on the first code that needs it.
 */

import type { Node, Program, Statement, Token } from "acorn";
import { Parser, parse, tokTypes } from "acorn";
import type { Message } from "esbuild";
import { within } from "../../common/abort.js";
import { CODE_MODE_ERROR_STATUS, type CodeModeErrorName } from "../../common/failures.js";
import { groupDigits } from "../../common/numbers.js";
import { currentRuntime, stripsTypeScript } from "../../common/runtime.js";

/** JavaScript ready for a sandbox, with the way back to the model's TypeScript positions. */
export interface PreparedCode {
  /** The body of an async function (top-level `await` and `return` work; line 1 is line 1 of the body). */
  js: string;
  /**
   * Maps a position in `js` (1-based line, 1-based column, as in V8 stack traces) to the same place in
   * the model's original TypeScript (1-based line and column; with a markdown fence, line 1 is the first
   * line inside it). Undefined for positions in generated code the model never wrote.
   */
  mapPosition(line: number, column: number): { line: number; column: number } | undefined;
  /** How the source was turned into `js`: taken as it is (plain JavaScript), or through esbuild. */
  via: "javascript" | "esbuild";
  /**
   * The model's code that was compiled: the fenced block (or the whole text), line breaks as `\n`. Its
   * lines are the lines `mapPosition` gives; the type check reads this text.
   */
  source: string;
}

/** Options of {@link prepareCode}. */
export interface PrepareOptions {
  /** Take source that is plain JavaScript as it is, without esbuild. Default true. */
  javascriptFastPath?: boolean;
  /** How long esbuild may take, in ms. Default {@link TRANSPILE_TIMEOUT_MS}. */
  timeoutMs?: number;
  /**
   * Whether TypeScript's types can be stripped here (esbuild can run). Default: whether this runtime
   * can start esbuild's process (not workerd). Without it, only plain JavaScript runs.
   */
  typescript?: boolean;
}

/** Why the source could not be prepared: a syntax error, an `import`/`export`, with TS positions. */
export interface PrepareFailure {
  /** `limit` when the code is over {@link MAX_CODE_CHARS}; absent when the code does not parse (an error). */
  status?: "limit";
  error: { name: "SyntaxError" | typeof CODE_TOO_LONG; message: string; line?: number; column?: number };
}

/** The error name of code longer than {@link MAX_CODE_CHARS}: a limit, not a syntax error. */
const CODE_TOO_LONG = "CodeTooLong" satisfies CodeModeErrorName;

/** The message for `import`/`export` statements, which have no meaning inside `run_code`. */
export const IMPORT_NOT_AVAILABLE =
  "import is not available in run_code: there are no modules here. Use the tools object: tools.<name>(args).";

/** The name of the async function the source is wrapped in while esbuild strips the types. */
const MAIN = "__cordon_main__";
const HEADER = `async function ${MAIN}() {`;

/** How long esbuild may take to strip the types of one run's code, in ms. */
const TRANSPILE_TIMEOUT_MS = 5_000;

/**
 * Prepares the model's source for a sandbox. Never throws: a syntax error (or an `import`) comes back as
 * `{ error }` with the line and column in the model's TypeScript. esbuild runs asynchronously (its own
 * process), so the host's event loop never waits for it, and no longer than {@link TRANSPILE_TIMEOUT_MS}.
 */
export async function prepareCode(
  source: string,
  options: PrepareOptions = {},
): Promise<PreparedCode | PrepareFailure> {
  if (source.length > MAX_CODE_CHARS) {
    return {
      status: CODE_MODE_ERROR_STATUS[CODE_TOO_LONG],
      error: {
        name: CODE_TOO_LONG,
        message: `The code is ${groupDigits(source.length)} characters long; run_code takes at most ${groupDigits(MAX_CODE_CHARS)}. Send shorter code: fetch data with tools instead of pasting it.`,
      },
    };
  }
  // esbuild counts U+2028/U+2029 as line breaks; as escapes they mean the same in strings and comments,
  // and every line keeps its number.
  const text = source
    .replace(/\r\n?/g, "\n")
    .replace(/[\u2028\u2029]/g, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029"));
  const fastPath = options.javascriptFastPath !== false;
  const timeoutMs = options.timeoutMs ?? TRANSPILE_TIMEOUT_MS;
  const typescript = options.typescript ?? stripsTypeScript(currentRuntime());
  const compile = async (code: string): Promise<PreparedCode | PrepareFailure> => {
    const tooDeep = nestingProblem(code);
    if (tooDeep) return tooDeep;
    // Without TypeScript, `a < b > c` can only be JavaScript.
    if (!typescript) return compileJavaScript(code, { typeArguments: false }) ?? notJavaScript(code);
    return (fastPath && compileJavaScript(code)) || (await compileTypeScript(code, timeoutMs));
  };
  const fence = findFence(text);
  if (!fence) return compile(text);
  // A fenced block is the code, even after a word like `Code:` that would parse as JavaScript; only when
  // the block does not compile and the whole text does (the fence sat in a comment) is the whole text used.
  const fenced = await compile(fence.code);
  if (!("error" in fenced) || text.slice(0, fence.start).trim() === "") return fenced;
  const raw = await compile(text);
  return "error" in raw ? fenced : raw;
}

/** A line that starts an `import` or `export` statement. */
const IMPORT_LINE = /^\s*(import\b\s*[\w${*"']|export\b\s*[\w${*])/;

/** The longest source run_code accepts, in characters. */
export const MAX_CODE_CHARS = 100_000;

/** The deepest nesting of brackets, or run of prefix operators, the parsers are given. */
const MAX_CODE_NESTING = 200;

/**
 * Refuses code nested deeper than {@link MAX_CODE_NESTING}: esbuild and acorn recurse per level (a few
 * hundred thousand levels overflow esbuild's stack), and esbuild's output grows with the square of the
 * depth. Nesting is measured on JavaScript tokens (acorn's tokenizer), so brackets in comments, strings
 * and regular expressions neither count nor cancel real ones; where the tokenizer cannot go on (syntax
 * only TypeScript has, such as decorators), the rest is measured on raw text, where only openers count
 * and a closer never takes the depth below zero. Both err on the side of refusing.
 */
function nestingProblem(code: string): PrepareFailure | undefined {
  const deepest = Math.max(...tokenNesting(code));
  if (deepest <= MAX_CODE_NESTING) return undefined;
  return syntaxError(
    `The code is nested more than ${MAX_CODE_NESTING} levels deep (brackets or prefix operators); write it flatter.`,
  );
}

const OPENERS: ReadonlySet<unknown> = new Set([
  tokTypes.parenL,
  tokTypes.bracketL,
  tokTypes.braceL,
  tokTypes.dollarBraceL,
]);
const CLOSERS: ReadonlySet<unknown> = new Set([tokTypes.parenR, tokTypes.bracketR, tokTypes.braceR]);
const PREFIXES: ReadonlySet<unknown> = new Set([
  tokTypes.prefix,
  tokTypes.plusMin,
  tokTypes.incDec,
  tokTypes._typeof,
  tokTypes._void,
  tokTypes._delete,
]);

/** Tokens after which TypeScript reads `!` as a non-null assertion (`x!`), which ends an expression. */
const ENDS_EXPRESSION: ReadonlySet<unknown> = new Set([
  tokTypes.name,
  tokTypes.num,
  tokTypes.string,
  tokTypes.regexp,
  tokTypes.parenR,
  tokTypes.bracketR,
  tokTypes._this,
  tokTypes._super,
  tokTypes._null,
  tokTypes._true,
  tokTypes._false,
]);

/** acorn's tokenizer, with the one piece of its state a TypeScript-aware reading needs to set. */
interface Lexer {
  getToken(): Token;
  exprAllowed: boolean;
}

/** The deepest bracket nesting and the longest run of prefix operators, on tokens then raw text. */
function tokenNesting(code: string): [number, number] {
  let depth = 0;
  let deepest = 0;
  let run = 0;
  let longestRun = 0;
  let end = 0;
  try {
    // Decorators are TypeScript's only character JavaScript's tokenizer rejects; a space reads the same.
    const text = code.replaceAll("@", " ");
    const lexer = Parser.tokenizer(text, { ecmaVersion: "latest", allowHashBang: true }) as unknown as Lexer;
    let previous: Token | undefined;
    for (let token = lexer.getToken(); token.type !== tokTypes.eof; token = lexer.getToken()) {
      end = token.end;
      if (OPENERS.has(token.type)) deepest = Math.max(deepest, ++depth);
      else if (CLOSERS.has(token.type)) depth = Math.max(0, depth - 1);
      const nonNull =
        token.type === tokTypes.prefix &&
        text[token.start] === "!" &&
        previous !== undefined &&
        ENDS_EXPRESSION.has(previous.type) &&
        !/[\n\r\u2028\u2029]/.test(text.slice(previous.end, token.start));
      // `x! / y` divides in TypeScript: after a non-null assertion a slash is not a regular expression.
      if (nonNull) lexer.exprAllowed = false;
      if (PREFIXES.has(token.type) && !nonNull) longestRun = Math.max(longestRun, ++run);
      else run = 0;
      previous = token;
    }
    return [deepest, longestRun];
  } catch {
    const [rawDeepest, rawRun] = rawNesting(code.slice(end), depth, run);
    return [Math.max(deepest, rawDeepest), Math.max(longestRun, rawRun)];
  }
}

/** The raw-text measure, from a starting depth and run: every opener counts, closers stop at zero. */
function rawNesting(text: string, depth: number, run: number): [number, number] {
  let deepest = depth;
  let longestRun = run;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 40 || c === 91 || c === 123)
      deepest = Math.max(deepest, ++depth); // ( [ {
    else if (c === 41 || c === 93 || c === 125) depth = Math.max(0, depth - 1); // ) ] }
    if (c === 33 || c === 126 || c === 43 || c === 45)
      longestRun = Math.max(longestRun, ++run); // ! ~ + -
    else if (!/\s/.test(text[i])) run = 0; // Any whitespace (\v, \f, Unicode spaces) continues a run.
  }
  return [deepest, longestRun];
}

function syntaxError(message: string): PrepareFailure {
  return { error: { name: "SyntaxError", message } };
}

/** The first fenced block (``` or ~~~, any info string): its code and where the fence starts. */
function findFence(text: string): { code: string; start: number } | undefined {
  const open = /(^|\n)[ \t]*(`{3,}|~{3,})[^\n`]*(\n|$)/.exec(text);
  if (!open) return undefined;
  const start = open.index + open[1].length;
  const codeStart = open.index + open[0].length;
  const marker = open[2];
  const close = new RegExp(`\\n[ \\t]*${marker[0]}{${marker.length},}[ \\t]*(?=\\n|$)`).exec(
    text.slice(codeStart - 1),
  );
  const codeEnd = close ? codeStart - 1 + close.index : text.length;
  const code = codeStart > codeEnd ? "" : text.slice(codeStart, codeEnd);
  return { code, start };
}

function countLines(text: string): number {
  let lines = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
  return lines;
}

/**
 * The fast path: when `code` is plain JavaScript that TypeScript would read the same way, the body is
 * the code itself (with the result statement rewritten) and positions map one to one. Returns
 * undefined for anything else (TypeScript, syntax errors, JavaScript newer than esbuild's target), which
 * then goes through esbuild.
 */
function compileJavaScript(code: string, reading = { typeArguments: true }): PreparedCode | undefined {
  // V8 counts U+2028/U+2029 as line breaks in positions; the one-to-one map counts only \n.
  if (/[\u2028\u2029]/.test(code)) return undefined;
  const wrapped = `${HEADER}\n${code}\n}`;
  // `f<T>(x)` and `a < b > c` are valid JavaScript but TypeScript reads type arguments into them: any
  // source with both a `<` and a `>` operator goes through esbuild, which parses it as TypeScript.
  let less = false;
  let greater = false;
  const onToken = (token: Token) => {
    const type = token.type;
    if (type !== tokTypes.relational && type !== tokTypes.bitShift && type !== tokTypes.assign) return;
    const first = wrapped[token.start];
    if (first === "<") less = true;
    else if (first === ">") greater = true;
  };
  let program: Program;
  try {
    // es2022, like esbuild's target: newer syntax goes through esbuild, which lowers it.
    program = parse(wrapped, { ecmaVersion: 2022, sourceType: "script", onToken });
  } catch {
    return undefined;
  }
  if ((reading.typeArguments && less && greater) || program.body.length !== 1) return undefined;
  const body = extractBody(wrapped, program);
  if (!body) return undefined;
  const sourceLines = countLines(code);
  return {
    js: body.js,
    mapPosition: (line, column) => {
      // Line N of `js` is line N - 1 of the wrapped text, which is line N - 1 of the source (1-based).
      const line0 = line - 1;
      if (line0 < 1 || line0 > sourceLines) return undefined;
      const col0 = body.toGenerated(line0, column - 1);
      return col0 === undefined ? undefined : { line: line0, column: col0 + 1 };
    },
    via: "javascript",
    source: code,
  };
}

/**
 * Why code that is not plain JavaScript was not run where TypeScript cannot be stripped: acorn's
 * complaint at its line in the model's code, and what to write instead.
 */
function notJavaScript(code: string): PrepareFailure {
  const why =
    "TypeScript's types cannot be stripped here (esbuild, which strips them, runs as a process of its own, and this runtime starts none), so it was not run. Write plain JavaScript without type annotations.";
  try {
    parse(`${HEADER}\n${code}\n}`, { ecmaVersion: 2022, sourceType: "script" });
  } catch (error) {
    const loc = (error as { loc?: { line: number; column: number } }).loc;
    const complaint = (error instanceof Error ? error.message : String(error)).replace(/ \(\d+:\d+\)$/, "");
    // Line N of the wrapped text is line N - 1 of the code; acorn's columns count from 0.
    const line = loc ? Math.min(Math.max(loc.line - 1, 1), countLines(code)) : undefined;
    if (line && IMPORT_LINE.test(code.split("\n")[line - 1] ?? ""))
      return { error: { name: "SyntaxError", message: IMPORT_NOT_AVAILABLE, line, column: 1 } };
    return {
      error: {
        name: "SyntaxError",
        message: `The code is not plain JavaScript (${complaint}${line ? ` on line ${line}` : ""}): ${why}`,
        ...(line && loc ? { line, column: loc.column + 1 } : {}),
      },
    };
  }
  // It parses, but closes the wrapper early (a stray `}`).
  return { error: { name: "SyntaxError", message: 'Unexpected "}"' } };
}

/** Strips types with esbuild inside a wrapper function, then rewrites the result statement. */
async function compileTypeScript(code: string, timeoutMs: number): Promise<PreparedCode | PrepareFailure> {
  const sourceLines = countLines(code);
  let output: { code: string; map: string };
  try {
    // The wrapper sits on its own line, so line N of the source is line N of the wrapped text (0-based).
    output = await stripTypes(`${HEADER}\n${code}\n}`, timeoutMs);
  } catch (error) {
    if (error instanceof TranspilerFailure) return syntaxError(error.message);
    return syntaxFailure(error, code, sourceLines);
  }
  const program = parseOrUndefined(output.code);
  // Without a parse there is no result rewrite and no check that the wrapper stayed closed: refuse.
  if (!program)
    return syntaxError("The code could not be prepared: it uses syntax this sandbox cannot check.");
  const body = extractBody(output.code, program);
  if (!body) return { error: { name: "SyntaxError", message: 'Unexpected "}"' } };
  let lines: Segment[][] | undefined; // Decoded on first use: most runs never need a position.
  let outputLines: string[] | undefined;
  const toSource = (line0: number, col0: number) => {
    lines ??= decodeMappings(output.map);
    outputLines ??= output.code.split("\n");
    const indent = /^[ \t]*/.exec(outputLines[line0] ?? "")![0].length;
    const pos = lookup(lines, line0, col0, indent);
    if (!pos || pos.line < 1 || pos.line > sourceLines) return undefined;
    return { line: pos.line, column: pos.column + 1 };
  };
  return {
    js: body.js,
    mapPosition: (line, column) => {
      const col0 = body.toGenerated(line - 1, column - 1);
      return col0 === undefined ? undefined : toSource(line - 1, col0);
    },
    via: "esbuild",
    source: code,
  };
}

/** esbuild could not give an answer for this code: it took too long, or its service stopped twice. */
class TranspilerFailure extends Error {}

/** esbuild's own message when its service process has died (and its JS side will not restart it). */
const SERVICE_GONE = /The service (is no longer running|was stopped)/;

/**
 * esbuild's transform, with a deadline, and a second try on a fresh service when the service died (a
 * crash on one run's code must not break the runs after it).
 */
async function stripTypes(wrapped: string, timeoutMs: number): Promise<{ code: string; map: string }> {
  let esbuild: typeof import("esbuild");
  try {
    esbuild = await import("esbuild");
  } catch (error) {
    throw new TranspilerFailure(transpilerUnavailable(error));
  }
  const { stop: stopEsbuild, transform } = esbuild;
  for (let attempt = 1; ; attempt++) {
    try {
      // A late answer after the deadline is dropped.
      return await within(
        transform(wrapped, {
          loader: "ts",
          target: "es2022",
          charset: "utf8",
          sourcemap: "external",
          sourcesContent: false,
          tsconfigRaw: {},
        }),
        timeoutMs,
        () =>
          new TranspilerFailure(
            `Stripping the TypeScript types of this code took longer than ${timeoutMs} ms, so it was not run. Write it simpler (less deeply nested, shorter expressions).`,
          ),
      );
    } catch (error) {
      if (error instanceof TranspilerFailure) throw error;
      const gone = error instanceof Error && SERVICE_GONE.test(error.message);
      // esbuild reports what it read wrong as messages; an error without them is esbuild not running.
      if (!gone && (error as { errors?: unknown }).errors === undefined)
        throw new TranspilerFailure(transpilerUnavailable(error));
      if (!gone) throw error;
      // The service's JS side keeps reporting a dead service until it is stopped; then it starts anew.
      await stopEsbuild();
      if (attempt >= 2) {
        throw new TranspilerFailure(
          "The TypeScript transpiler (esbuild) stopped while reading this code, so it was not run. Write it simpler (less deeply nested, shorter expressions).",
        );
      }
    }
  }
}

/**
 * What the model reads when esbuild cannot run here (workerd has no child processes; Deno needs
 * --allow-run and --allow-env for it): plain JavaScript still runs, as the fast path takes it without esbuild.
 */
function transpilerUnavailable(cause: unknown): string {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return `The TypeScript transpiler (esbuild) cannot run here (${detail}), so this code was not run. Write plain JavaScript without type annotations: it runs without the transpiler.`;
}

/** Parses esbuild's output; undefined for syntax acorn does not know yet (run without the result rewrite). */
function parseOrUndefined(out: string): Program | undefined {
  try {
    return parse(out, { ecmaVersion: "latest", sourceType: "script" });
  } catch {
    return undefined;
  }
}

/** A text insertion made after esbuild ran: `at` is an offset into esbuild's output. */
interface Insertion {
  at: number;
  text: string;
}

/**
 * Takes the wrapper function's body out of esbuild's output, keeping every line on the same line number
 * (the header and the closing brace become empty lines; helpers esbuild emitted before the wrapper stay).
 * `program` is `out` parsed, when acorn could. Returns undefined when the source closed the wrapper early.
 */
function extractBody(
  out: string,
  program: Program | undefined,
): { js: string; toGenerated(line0: number, col0: number): number | undefined } | undefined {
  const headerAt = out.startsWith(`${HEADER}\n`) ? 0 : out.indexOf(`\n${HEADER}\n`) + 1;
  if (headerAt === 0 && !out.startsWith(HEADER)) return undefined;
  const main = program?.body.at(-1);
  const isMain = main?.type === "FunctionDeclaration" && main.id.name === MAIN && main.start === headerAt;
  if (program && !isMain) return undefined;
  const closeAt = main ? main.end - 1 : out.lastIndexOf("}");
  if (closeAt < headerAt + HEADER.length) return undefined;
  const insertions = main?.type === "FunctionDeclaration" ? resultInsertions(main.body.body, out) : [];
  const pieces: string[] = [out.slice(0, headerAt)];
  let from = headerAt + HEADER.length;
  for (const insertion of insertions) {
    pieces.push(out.slice(from, insertion.at), insertion.text);
    from = insertion.at;
  }
  pieces.push(out.slice(from, closeAt), out.slice(closeAt + 1));
  const lineStarts = lineStartOffsets(out);
  return {
    js: pieces.join(""),
    toGenerated(line0, col0) {
      if (line0 < 0 || line0 >= lineStarts.length) return undefined;
      // Undo the insertions on this line (the header and closing brace were alone on their lines).
      let shift = 0;
      for (const { at, text } of insertions) {
        const line = lineOf(lineStarts, at);
        if (line < line0) continue;
        if (line > line0) break;
        const start = at - lineStarts[line] + shift;
        if (col0 < start) break;
        if (col0 < start + text.length) return start - shift;
        shift += text.length;
      }
      return col0 - shift;
    },
  };
}

/**
 * The insertions that make the body return its result: a lone function expression (or a lone async
 * function declaration without parameters) is called and awaited; otherwise a last top-level expression
 * statement becomes `return (<expr>);`.
 */
function resultInsertions(statements: Statement[], out: string): Insertion[] {
  const last = statements.at(-1);
  if (!last) return [];
  if (statements.length === 1) {
    if (
      last.type === "ExpressionStatement" &&
      (last.expression.type === "ArrowFunctionExpression" || last.expression.type === "FunctionExpression")
    ) {
      return [
        { at: last.start, text: "return await (" },
        { at: expressionEnd(last, out), text: ")()" },
      ];
    }
    if (last.type === "FunctionDeclaration" && last.async && last.params.length === 0) {
      return [{ at: last.end, text: ` return await ${last.id.name}();` }];
    }
  }
  if (last.type !== "ExpressionStatement") return [];
  return [
    { at: last.start, text: "return (" },
    { at: expressionEnd(last, out), text: ")" },
  ];
}

/** The end of a statement's expression, before its semicolon. */
function expressionEnd(statement: Node, out: string): number {
  return out[statement.end - 1] === ";" ? statement.end - 1 : statement.end;
}

function lineStartOffsets(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(lineStarts: number[], offset: number): number {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (lineStarts[mid] <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Turns an esbuild failure into `{ error }` in the model's positions (an `import` gets its own message). */
function syntaxFailure(error: unknown, code: string, sourceLines: number): PrepareFailure {
  const first: Message | undefined = (error as { errors?: Message[] }).errors?.[0];
  const errorLine = first?.location
    ? Math.min(Math.max(first.location.line - 1, 1), sourceLines)
    : sourceLines;
  const codeLines = code.split("\n");
  const importLine = codeLines.findIndex((text, i) => i < errorLine && IMPORT_LINE.test(text));
  if (importLine !== -1) {
    return { error: { name: "SyntaxError", message: IMPORT_NOT_AVAILABLE, line: importLine + 1, column: 1 } };
  }
  if (!first) return { error: { name: "SyntaxError", message: String(error) } };
  const location = first.location;
  if (!location) return { error: { name: "SyntaxError", message: first.text } };
  // esbuild counts columns in UTF-8 bytes; V8 and editors count UTF-16 units.
  const column =
    location.line - 1 === errorLine
      ? Buffer.from(location.lineText).subarray(0, location.column).toString().length + 1
      : Number.POSITIVE_INFINITY;
  const lineLength = (codeLines[errorLine - 1] ?? "").length;
  // esbuild reads the code inside a wrapper function: an error at or past the end of the model's code
  // is about the wrapper's closing brace or the end of the file, which the model never wrote.
  if (column > lineLength && errorLine === sourceLines) return { error: endOfCode(code) };
  return {
    error: {
      name: "SyntaxError",
      message: first.text,
      line: errorLine,
      column: Math.max(1, Math.min(column, lineLength)),
    },
  };
}

/** A syntax error at the end of the code: what was left open, at the position where it was opened. */
type EndOfCodeError = PrepareFailure["error"] & { line: number; column: number };

/**
 * Why code that stops too early does not parse, placed inside what the model wrote: the string,
 * template, comment or regular expression left unterminated, else the innermost bracket never closed,
 * else the last character of the code.
 */
function endOfCode(code: string): EndOfCodeError {
  const open: { text: string; line: number; column: number }[] = [];
  try {
    const lexer = Parser.tokenizer(code.replaceAll("@", " "), {
      ecmaVersion: "latest",
      allowHashBang: true,
      locations: true,
    }) as unknown as Lexer;
    for (let token = lexer.getToken(); token.type !== tokTypes.eof; token = lexer.getToken()) {
      if (OPENERS.has(token.type)) {
        const { line, column } = token.loc!.start;
        open.push({ text: code.slice(token.start, token.end), line, column: column + 1 });
      } else if (CLOSERS.has(token.type)) {
        open.pop();
      }
    }
  } catch (error) {
    const unterminated = /^(Unterminated [a-z ]+?) \((\d+):(\d+)\)$/.exec((error as Error).message);
    if (unterminated) {
      const [, what, line, column] = unterminated;
      return {
        name: "SyntaxError",
        message: `${what}: the code ends before it is closed`,
        line: Number(line),
        column: Number(column) + 1,
      };
    }
  }
  const innermost = open.at(-1);
  if (innermost) {
    return {
      name: "SyntaxError",
      message: `Unexpected end of the code: the "${innermost.text}" at line ${innermost.line}, column ${innermost.column} is never closed`,
      line: innermost.line,
      column: innermost.column,
    };
  }
  const lines = code.split("\n");
  let line = lines.length;
  while (line > 1 && lines[line - 1]!.trim() === "") line--;
  const column = Math.max(1, lines[line - 1]!.trimEnd().length);
  return { name: "SyntaxError", message: "Unexpected end of the code", line, column };
}

/** One decoded mapping: a generated column and the 0-based source line and column it came from. */
type Segment = [generatedColumn: number, sourceLine: number, sourceColumn: number];

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE64_VALUE = new Map([...BASE64].map((char, i) => [char, i]));

/** Decodes a source map's VLQ `mappings` into segments per generated line (sorted by column). */
function decodeMappings(mapJson: string): Segment[][] {
  const mappings: string = JSON.parse(mapJson).mappings ?? "";
  const lines: Segment[][] = [];
  let sourceLine = 0;
  let sourceColumn = 0;
  for (const lineText of mappings.split(";")) {
    const segments: Segment[] = [];
    let generatedColumn = 0;
    for (const segmentText of lineText.split(",")) {
      if (segmentText === "") continue;
      const fields = decodeVlq(segmentText);
      generatedColumn += fields[0];
      if (fields.length < 4) continue;
      sourceLine += fields[2];
      sourceColumn += fields[3];
      segments.push([generatedColumn, sourceLine, sourceColumn]);
    }
    lines.push(segments.sort((a, b) => a[0] - b[0]));
  }
  return lines;
}

/** Decodes one segment's base64 VLQ fields. */
function decodeVlq(text: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = BASE64_VALUE.get(char) ?? 0;
    value += (digit & 31) * 2 ** shift;
    shift += 5;
    if (digit & 32) continue;
    values.push(value & 1 ? -Math.floor(value / 2) : Math.floor(value / 2));
    value = 0;
    shift = 0;
  }
  return values;
}

/**
 * The source position of a generated position: the last segment at or before the column (or the line's
 * first segment), moved by the distance into that segment unless that crosses the next mapped position.
 * `indent` is the generated line's indentation, which esbuild adds and maps to the statement's start.
 * Lines are 0-based in the wrapped source (line 0 is the wrapper), columns 0-based.
 */
function lookup(
  lines: Segment[][],
  line0: number,
  col0: number,
  indent: number,
): { line: number; column: number } | undefined {
  const segments = lines[line0];
  if (!segments || segments.length === 0) return undefined;
  let index = 0;
  while (index + 1 < segments.length && segments[index + 1][0] <= col0) index++;
  const [mappedColumn, sourceLine, sourceColumn] = segments[index];
  // esbuild maps a line's first segment from column 0, but its indentation is its own: the source
  // position belongs to the first character after the indentation.
  const generatedColumn = index === 0 ? Math.max(mappedColumn, Math.min(indent, col0)) : mappedColumn;
  const next = segments[index + 1];
  const delta = Math.max(0, col0 - generatedColumn);
  const crosses = next && next[1] === sourceLine && sourceColumn + delta >= next[2];
  return { line: sourceLine, column: crosses ? sourceColumn : sourceColumn + delta };
}
