/**
 * What `codeMode()` is given: the tools (once: as tools, or as a dispatcher's), where the code runs, its
 * limits, and one group of settings per feature (sessions, pausing, type checks, discovery, learnt
 * result types), the way the AI SDK groups `telemetry`. The names these groups replaced still work for
 * one minor version (see `option-aliases.ts`).
 */

import type { Environment } from "../../sandbox/contract/index.js";
import type { Dispatcher } from "../dispatch/dispatcher.js";
import type { Toolset } from "../tools/toolset.js";
import type { AnyTool, RunContext } from "../tools/types.js";
import type { RunJournal } from "./durable/run-journal.js";
import type { FlowPolicy } from "./flows.js";
import type { CodeModeLimits } from "./limits.js";
import type { ObservedTypes } from "./observed/store.js";
import type { DeprecatedCodeModeOptions } from "./option-aliases.js";
import type { CheckpointKey } from "./pause/checkpoint.js";
import type { CheckpointStore } from "./pause/checkpoint-store.js";
import type { CheckpointInfo } from "./pause/pause.js";
import type { TypeScriptResolver } from "./typecheck/resolve-typescript.js";
import type { TypeCheckLimits, TypeCheckMode } from "./typecheck/types.js";

/** Options of {@link codeMode}. */
export interface CodeModeOptions extends DeprecatedCodeModeOptions {
  /**
   * The tools the code can call; a new Dispatcher over them runs the calls. Give either `tools` or
   * `dispatcher`: given both, they must hold the same tools (the same Toolset, or the same tool objects),
   * else `codeMode` throws a `UserError` naming the difference.
   */
  tools?: Toolset | readonly AnyTool[];
  /**
   * The dispatcher proxied calls go through (its approval handler, policies, events, tracing); the code
   * can call its tools, as they are when the code mode is made. The declarations, the names the code may
   * call and the checkpoints' binding are made once, then: a tool added to its Toolset later is not
   * offered to the code (make a new code mode, as `cordon mcp` does when its catalog changes), and a run
   * after a declared tool was removed or replaced is refused with a `UserError`.
   */
  dispatcher?: Dispatcher;
  /**
   * Where the code runs. Default: `sandboxHostEnvironment()`, isolated-vm isolates in supervised
   * sandbox processes, where isolated-vm is installed; else `quickjsEnvironment()`, QuickJS in
   * WebAssembly. `isolateEnvironment()` runs isolates in this process instead: faster, for trusted code.
   */
  environment?: Environment;
  /** Limits of one run; unset ones take {@link DEFAULT_CODE_MODE_LIMITS}. */
  limits?: Partial<CodeModeLimits>;
  /** The name of the tool the model sees. Default `run_code`. */
  name?: string;
  /**
   * Flow policies: which labels of tool results (`tool({ labels })`; `web_fetch` and `web_search` are
   * `untrusted`) may not reach which tools. Once a run received a result labelled `from`, its later calls
   * to the tools in `to` are refused (`"deny"`) or go to a person first (`"approve"`), with the arguments
   * that hold the labelled text marked. Checked when the code mode is made. See docs/effects.md.
   */
  flows?: readonly FlowPolicy[];
  /** `"fresh"` (default): a new sandbox per run. `"session"`: one sandbox per session id, kept between runs. */
  state?: "fresh" | "session";
  /** With `state: "session"`: how long session sandboxes live unused, and how many live at once. */
  sessions?: SessionOptions;
  /**
   * How a call from code that needs a person (an approval that no handler or policy decides on the spot,
   * a question of a `waitsForHuman` tool such as `ask_human`) is met. `"wait"` (the default): the run waits
   * for the answer, up to the dispatcher's approvalTimeoutMs. `"pause"`: the run lets the calls in flight
   * finish, ends `paused` with a `checkpoint` and the `pending` calls, and `CodeMode.resume` goes on
   * with the person's decisions, in this process or another. Needs `pause.key`; not with sessions.
   * `"plan"`: each run makes a plan (`CodeMode.plan`): reads run, each call of an `effect: true` tool
   * gives its preview and is not run, and a run_code call fails kind `paused` with the plan's effects in
   * `paused.effects` and, as approvals, in `paused.pending`, so that a person approves the whole plan
   * at once (`CodeMode.resumeCall` carries it out). Needs `pause.key`; not with sessions or a journal.
   */
  approval?: "wait" | "pause" | "plan";
  /**
   * How checkpoints are sealed, kept, claimed and expire. Needed to pause (`approval: "pause"`), and to
   * resume: a `pause.key` alone lets this code mode resume what another one paused.
   */
  pause?: PauseOptions;
  /**
   * Whether the code is type-checked before it runs, against the declarations of `tools` and the
   * sandbox's globals: `"block"`, `"report"` or `"off"` (the default), or `{ mode, ... }` with the check's
   * limits and threads (see {@link TypeCheckOptions}).
   */
  typecheck?: TypeCheckMode | TypeCheckOptions;
  /**
   * How the model learns the tools: `"auto"` (the default), `"inline"` or `"search"`, or
   * `{ mode, inlineBudget, declarationsIn }` (see {@link DiscoveryOptions}).
   */
  discovery?: DiscoveryMode | DiscoveryOptions;
  /** Learnt result types of tools without an output schema (see {@link ObserveOptions}). */
  observe?: ObserveOptions;
  /**
   * Makes every run durable: its calls, outcomes and recorded clock, random and zone values are written
   * ahead to this store, so that `cm.recover(runId)` continues a run whose process died, in any process
   * with the same tools and `pause.key` (which seals the records). A store, or `{ store, leaseMs }`.
   * Not with sessions. See docs/durability.md.
   */
  journal?: RunJournal | JournalOptions;
}

/** A durable run's store and its lease. */
export interface JournalOptions {
  /** Where runs are journaled: `memoryJournal()`, `fileJournal(dir)`, `postgresJournal({ pool })`, or your own. */
  store: RunJournal;
  /**
   * How long a run's lease lasts unless renewed, in ms (renewed every third of it while the run lasts):
   * a run whose process died can be recovered this long after its last renewal. Default 30 s.
   */
  leaseMs?: number;
}

/** Session sandboxes (`state: "session"`). */
export interface SessionOptions {
  /** Session sandboxes unused this long are disposed, in ms. Default 10 minutes. */
  idleMs?: number;
  /** Live session sandboxes at most; the least recently used idle one goes first. Default 16. */
  max?: number;
}

/** Checkpoints: how a paused run is sealed, kept, claimed and expires. */
export interface PauseOptions {
  /**
   * The secret checkpoints are sealed with (HMAC-SHA-256), at least 16 bytes: a checkpoint resumes only
   * where the same key is set.
   */
  key: CheckpointKey;
  /** How long a checkpoint can be resumed, in ms. Default 24 hours. */
  ttlMs?: number;
  /**
   * Where large recorded values go instead of into the checkpoint (see `memoryCheckpointStore`,
   * `fileCheckpointStore`); the checkpoint keeps their digests. Resuming needs the same store. It is also
   * where a resume claims its checkpoint (`claim`, atomic), so that a checkpoint resumes once in every
   * process that shares the store. Without one, checkpoints are claimed in this process's memory: a
   * second resume is refused in this process only.
   */
  store?: CheckpointStore;
  /**
   * Told of every checkpoint about to be resumed, after it was checked and claimed and before anything
   * runs. Return `false` (or throw) to refuse it (the claim is then given back): a veto of the host's
   * own. Exactly once needs no hook: the claim does it (see `store`).
   */
  onCheckpointUsed?: (checkpoint: CheckpointInfo) => unknown;
}

/** The type check of the model's code, before it runs. */
export interface TypeCheckOptions {
  /**
   * `"block"`: with a type error nothing runs; the run ends `error` with `error.name`
   * `"TypeCheckError"`, no calls, and `diagnostics`. `"report"`: the code runs anyway, and the errors are
   * in `diagnostics` and the report. `"off"`: no check. Needs the `typescript` package (version 5); the
   * checker runs in a worker thread, warmed when the code mode is created. A check over its time budget
   * or memory cap (`limits`) is cut off: the run is refused in "block" mode (a `TypeCheckError` saying
   * so, with no diagnostics), and runs unchecked, with a note, in "report" mode. A resumed run is not
   * checked again.
   */
  mode: TypeCheckMode;
  /** The time budget and memory cap of one check; unset ones take {@link DEFAULT_TYPECHECK_LIMITS}. */
  limits?: Partial<TypeCheckLimits>;
  /**
   * The most worker threads checking at once ({@link DEFAULT_TYPECHECK_WORKERS} by default, at most
   * `MAX_TYPECHECK_WORKERS`). The checks of one client (see `clientOf`) go one at a time; different
   * clients take turns, so one whose checks run to their budget holds one thread and never makes another
   * wait more than about one budget per client ahead of it. One thread starts with the code mode, more
   * only when clients check at once; each holds about 115 MB warm.
   */
  workers?: number;
  /**
   * Who a run_code call is for (see `CodeRunOptions.client`), from the call's context: an MCP server
   * names the connection here. Default: the call's session id.
   */
  clientOf?: (ctx: RunContext) => string | undefined;
  /**
   * Finds the `typescript` package's main module for the check (a file path). Default: resolved from
   * cordon's own location. For hosts that keep TypeScript elsewhere.
   */
  resolveTypeScript?: TypeScriptResolver;
}

/**
 * How the model learns the tools. `"inline"`: their TypeScript declarations are in what it reads (see
 * `DiscoveryOptions.declarationsIn`). `"search"`: it reads a compact index instead (names and one-line
 * descriptions, grouped by namespace), and inside its code `await tools.$search(query, { limit })`
 * returns the best matches with their declarations and `await tools.$describe(name)` one declaration;
 * these are not tool calls (no approval, no budget, not counted against `maxToolCalls`) and are listed in
 * the run's `discovery`. `"auto"`: inline while the declarations cost at most `inlineBudget` tokens,
 * search above it.
 */
export type DiscoveryMode = "auto" | "inline" | "search";

/** How the model learns the tools, and where it reads their declarations. */
export interface DiscoveryOptions {
  /** See {@link DiscoveryMode}. Default `"auto"`. */
  mode?: DiscoveryMode;
  /**
   * With `mode: "auto"`: the most tokens of declarations inlined ({@link DEFAULT_INLINE_BUDGET} by
   * default), estimated at `DECLARATION_CHARS_PER_TOKEN` characters a token. With `"search"` (or
   * `"auto"` above it), the index the model reads is shortened to fit it too.
   */
  inlineBudget?: number;
  /**
   * Where the model reads the TypeScript declarations of the tools: in the run_code tool's description
   * (`"tool"`, the default: the model sees them wherever the tool is offered, with or without the
   * instructions) or in `CodeMode.instructions` (`"instructions"`, for a system prompt that carries
   * them). Never both: they are the largest part of what the model reads about code mode.
   */
  declarationsIn?: "tool" | "instructions";
}

/**
 * Learnt result types: successful calls of tools without an output schema (and without the tool option
 * `observeResults: false`) through the dispatcher, from code or direct, are merged into the tool's
 * observed type (a tool's first results all, then a sample), which declarations made from then on (see
 * `CodeMode.refreshDeclarations`) show as `Returns (observed): <type>`. A hint, never a validation.
 */
export interface ObserveOptions {
  /** Whether results are learnt. Default true. */
  results?: boolean;
  /**
   * Where the learnt result types are kept: give a store to share them between code modes or to keep
   * them between processes (`ObservedTypes.fromJSON(saved)`, then `toJSON()` to save). Default: a new one.
   */
  store?: ObservedTypes;
}
