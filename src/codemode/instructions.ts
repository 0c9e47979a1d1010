import { groupDigits } from "../../common/numbers.js";
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from "../../sandbox/contract/index.js";
import { formatDuration } from "../dispatch/failures.js";
import type { ToolIndexText } from "./discovery/index-text.js";
import type { CodeModeLimits } from "./limits.js";
import { MAX_CODE_CHARS } from "./transpile.js";
import type { TypeCheckMode } from "./typecheck/types.js";

/** What the instructions need to say true things about a code mode. */
export interface InstructionFacts {
  toolName: string;
  declarations: string;
  limits: CodeModeLimits;
  state: "fresh" | "session";
  /** How long an unused session lives. */
  sessionIdleMs: number;
  /** The environment's own sentence about what it isolates. */
  isolation: string;
  environmentName: string;
  /** Where the declarations of `tools` go: the tool's description or the instructions (never both). */
  declarationsIn: "tool" | "instructions";
  /** The code names of the tools that wait for a person (`waitsForHuman`), such as `ask_human`. */
  humanTools: readonly string[];
  /** Whether the code is type-checked before it runs, and what an error then does. */
  typecheck: TypeCheckMode;
  /**
   * What the model writes: TypeScript where its types can be stripped, JavaScript where they cannot
   * (workerd, where esbuild cannot run).
   */
  language: CodeLanguage;
  /**
   * With discovery by search: the index the model reads instead of the declarations, and how many tools
   * the catalog has. Undefined: the declarations are inlined.
   */
  discovery?: { index: ToolIndexText; tools: number } | undefined;
}

/** The language the model writes its code in. */
export type CodeLanguage = "TypeScript" | "JavaScript";

/** What the index lists, as the sentence that introduces it says. */
function indexContent(index: ToolIndexText): string {
  if (index.detail === "summaries") return "each tool's name and what it does";
  if (index.detail === "names") return "each tool's name";
  // The namespaces come with a few of their best-known tools when those fit (`, e.g. ...`).
  return index.text.includes(", e.g. ")
    ? "each namespace with how many tools it has and a few of them"
    : "each namespace with how many tools it has";
}

/**
 * The two sentences and the example that explain discovery by search, with the numbers of this code
 * mode: what the index lists, what `tools.$search` and `tools.$describe` return, and that they are free.
 */
function discoverySentences(facts: InstructionFacts): string {
  const discovery = facts.discovery!;
  return [
    `There are ${discovery.tools} tools, too many to declare here: below is ${indexContent(discovery.index)}, and inside your code \`await tools.$search("words", { limit })\` returns the best matches (${DEFAULT_SEARCH_LIMIT} unless you ask for up to ${MAX_SEARCH_LIMIT}) as \`{ name, description, declaration }\`, declaration being the tool's TypeScript signature with its documentation, and \`await tools.$describe("name")\` returns one tool's declaration.`,
    `Searching and describing are not tool calls: they need no approval and do not count against the ${facts.limits.maxToolCalls} tool calls of a run.`,
    `For example, \`return (await tools.$search("refund an order")).map((m) => m.declaration)\`, then call the tools you found in your next run.`,
  ].join(" ");
}

/** The one sentence about the type check, when there is one. */
function typecheckSentence(mode: TypeCheckMode): string | undefined {
  if (mode === "block") {
    return "Before it runs, the code is type-checked against the declarations of `tools`: with a type error nothing runs, and you get each error with its line and the fix TypeScript suggests.";
  }
  if (mode === "report") {
    return "The code is type-checked against the declarations of `tools`; type errors are listed with the result, and the code runs anyway.";
  }
  return undefined;
}

/** What the code is, and what is done to it before it runs. */
function languageSentence(language: CodeLanguage): string {
  return language === "TypeScript"
    ? "It is TypeScript; types are stripped, top-level `await` works, and markdown fences are allowed."
    : "It is plain JavaScript: TypeScript's types cannot be stripped here, so write none. Top-level `await` works, and markdown fences are allowed.";
}

/** Which waits for a person the run's clock leaves out: approvals always, and the tools that ask. */
function humanWaits(tools: readonly string[]): string {
  const asked = tools.map((name) => `tools.${name}`);
  const list = asked.length <= 1 ? asked.join("") : `${asked.slice(0, -1).join(", ")} or ${asked.at(-1)}`;
  return asked.length === 0
    ? "time a call waits for a person's approval"
    : `time a call waits for a person's approval, or for a person's answer in ${list},`;
}

/** The short description of the run_code tool: what it is for, and the `tools` it can call. */
export function toolDescription(facts: InstructionFacts): string {
  return [
    `Run ${facts.language} in a sandbox to do several tool calls, loops, filtering and arithmetic in one step.`,
    "Inside the code, call tools as `await tools.<name>(args)`; they return structured data.",
    "Top-level await works; return a value (or end with an expression) and it becomes the result. console.log output is returned too.",
    ...[typecheckSentence(facts.typecheck) ?? []].flat(),
    facts.state === "session"
      ? "Variables persist between runs of the same session; pass restart: true to start over."
      : "Each run starts fresh: nothing persists between runs.",
    `Limits per run: ${formatDuration(facts.limits.timeoutMs)}, ${facts.limits.memoryMb} MB, ${facts.limits.maxToolCalls} tool calls.`,
    ...(facts.declarationsIn === "instructions"
      ? [
          `The tools object is ${facts.discovery ? "explained" : "declared"} in the instructions about this tool.`,
        ]
      : facts.discovery
        ? [discoverySentences(facts), "The tools:", facts.discovery.index.text]
        : ["The tools object:", facts.declarations]),
  ].join("\n");
}

/** The system-prompt text for code mode: how to write the code, the declarations, the rules, the isolation. */
export function codeModeInstructions(facts: InstructionFacts): string {
  const { limits } = facts;
  // A fence longer than any run of backticks in the declarations (a description may contain ```).
  const fenced = facts.discovery ? facts.discovery.index.text : facts.declarations;
  const fence = "`".repeat(Math.max(3, ...[...fenced.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `## Running code with ${facts.toolName}

Use the ${facts.toolName} tool when a task needs several tool calls, loops, filtering, joining or arithmetic: write ${facts.language} that does the whole task and returns only what you need. Intermediate data stays in the sandbox instead of your context.

How the code runs:
- ${languageSentence(facts.language)}
${[typecheckSentence(facts.typecheck) ?? []]
  .flat()
  .map((sentence) => `- ${sentence}\n`)
  .join(
    "",
  )}- The value of a top-level \`return\` (or else of the last expression) is the result you receive, as JSON. Return a small summary rather than raw data.
- \`tools.<name>(args)\` returns a Promise of the tool's own value (structured data such as an object or array, not the text a direct call would show). Independent calls can run together with \`Promise.all\`; at most ${limits.maxConcurrentCalls} run at the same time.
- A failed call rejects with an error whose \`.tool\`, \`.kind\` ("invalid_arguments", "denied", "timeout", "error" or "limit"; "cancelled" or "refused" once the run is ending) and \`.message\` say what happened. Catch it with try/catch to recover; an uncaught one ends the run and is reported with its line number.
- \`console.log\`, \`console.info\`, \`console.warn\` and \`console.error\` are captured and returned with the result (up to ${groupDigits(limits.maxLogChars)} characters).
- There is no \`require\`, \`import\`, \`process\`, \`fetch\`, file system, network or timers (\`setTimeout\` and friends): only the \`tools\` object, \`console\`, \`queueMicrotask\` and the standard JavaScript built-ins.
- ${
    facts.state === "session"
      ? `Top-level variables, functions and classes you declare persist between runs in the same session; call with \`restart: true\` to start from a clean sandbox. A session unused for ${formatDuration(facts.sessionIdleMs)}, evicted to make room for others, or whose run was stopped (by a limit or a cancellation) starts over, and its next result says so.`
      : "Every run starts in a fresh sandbox: nothing persists between runs."
  }

Limits of one run: code of at most ${groupDigits(MAX_CODE_CHARS)} characters, ${formatDuration(limits.timeoutMs)} wall-clock time (${humanWaits(facts.humanTools)} does not count), ${formatDuration(limits.cpuTimeMs)} of CPU time, ${limits.memoryMb} MB of memory, ${limits.maxToolCalls} tool calls, a result of at most ${groupDigits(limits.maxResultChars)} characters of JSON. What you read back is shortened to ${groupDigits(limits.maxOutputChars)} characters.

Isolation (${facts.environmentName}): ${facts.isolation}
${
  facts.declarationsIn === "instructions"
    ? facts.discovery
      ? `
Finding the tools: ${discoverySentences(facts)}

The tools:
${fence}
${facts.discovery.index.text}
${fence}
`
      : `
The tools you can call:
${fence}ts
${facts.declarations}
${fence}
`
    : `
The tools you can call are ${facts.discovery ? "listed (and how to find them from your code is explained)" : "declared"} in the description of the ${facts.toolName} tool.
`
}`;
}
