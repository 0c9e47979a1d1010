/**
 * The contract between code mode and every environment (the in-process isolates, the supervised
 * sandbox-host processes, Docker, a remote host): what a sandbox is, what it is asked to run, and what
 * comes back. Code mode talks to this contract only, and every driver implements it. Everything that
 * crosses it is plain data or JSON text, so that the same types travel over the wire protocol
 * (`protocol.ts`) unchanged.
 */

import type { RunStatus } from "../../common/failures.js";
import { groupDigits } from "../../common/numbers.js";
import { MAX_DISCOVERY_CALLS } from "./discovery.js";

/** The limits a sandbox enforces while it runs one piece of code. */
export interface SandboxLimits {
  /** Wall-clock time for one run, in ms; the host ends the run (and may destroy the sandbox) after it. */
  timeoutMs: number;
  /** CPU time the sandbox may use in one run, in ms (time spent waiting for tools does not count). */
  cpuTimeMs: number;
  /** Memory for the sandbox's heap, in MB. */
  memoryMb: number;
  /** Characters of console output kept per run; output beyond it is dropped and counted. */
  maxLogChars: number;
  /** Characters of the JSON-encoded result value. */
  maxResultChars: number;
  /**
   * Tool calls the sandbox lets the code start in one run; later calls are refused inside the sandbox,
   * so a flood never reaches the host. Optional: environments use a generous default (10,000) without it.
   */
  maxToolCalls?: number;
  /**
   * Characters of JSON arguments one tool call may carry; a larger call is refused inside the sandbox
   * before it leaves. Optional: environments use {@link DEFAULT_MAX_ARGS_CHARS} without it.
   */
  maxArgsChars?: number;
}

/** Characters of JSON arguments one tool call may carry when the limits do not say otherwise. */
export const DEFAULT_MAX_ARGS_CHARS = 1_000_000;

/** Tool calls one run may start when the limits do not say otherwise. */
export const DEFAULT_MAX_TOOL_CALLS = 10_000;

/**
 * `limits` held under `ceilings`: each limit is the lower of the two (a limit left out counts as its
 * default). What a sandbox server does to the limits its clients ask for.
 */
export function clampLimits(limits: SandboxLimits, ceilings: Partial<SandboxLimits>): SandboxLimits {
  const clamped: SandboxLimits = { ...limits };
  const defaults: Partial<SandboxLimits> = {
    maxToolCalls: DEFAULT_MAX_TOOL_CALLS,
    maxArgsChars: DEFAULT_MAX_ARGS_CHARS,
  };
  for (const key of Object.keys(ceilings) as (keyof SandboxLimits)[]) {
    const ceiling = ceilings[key];
    const asked = limits[key] ?? defaults[key];
    if (ceiling !== undefined && (asked === undefined || asked > ceiling)) clamped[key] = ceiling;
  }
  return clamped;
}

/** The limits that `clampLimits` lowered, as `name asked → allowed` for a person or a model to read. */
export function loweredLimits(asked: SandboxLimits, allowed: SandboxLimits): string[] {
  const lowered: string[] = [];
  for (const key of Object.keys(allowed) as (keyof SandboxLimits)[]) {
    const before = asked[key];
    const after = allowed[key];
    if (after !== undefined && before !== after) {
      const was = before === undefined ? "the default" : groupDigits(before);
      lowered.push(`${key} ${groupDigits(after)} (asked for ${was})`);
    }
  }
  return lowered;
}

/** Messages a run may send beyond one per console line and one per tool call (the end report, notices). */
const MESSAGE_SLACK = 16;

/**
 * The most messages (console lines and tool calls) one run can legitimately send: every console line
 * costs at least one character of `maxLogChars`. A sandbox that sends more is misbehaving; both ends stop
 * it, because a flood keeps the receiver's event loop too busy for the timers that enforce the limits.
 */
function maxRunMessages(limits: SandboxLimits): number {
  return limits.maxLogChars + (limits.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS) + MESSAGE_SLACK;
}

/**
 * {@link maxRunMessages} for one request: a run that records may precede each call and console line
 * with the values it recorded, and one that replays may precede each call with a count of replayed ones;
 * a run with discovery may also make up to {@link MAX_DISCOVERY_CALLS} `$search`/`$describe` calls.
 */
export function maxRequestMessages(request: ExecutionRequest): number {
  const extra = (request.record === true ? 1 : 0) + (request.replayCalls !== undefined ? 1 : 0);
  const discovery = request.discovery === true ? MAX_DISCOVERY_CALLS : 0;
  return (maxRunMessages(request.limits) + discovery) * (1 + extra);
}

/**
 * The longest error name and message an outcome carries, in characters: a sandbox cuts what it reports
 * to them, and the host holds to them whatever a sandbox sends.
 */
export const MAX_ERROR_NAME_CHARS = 200;
export const MAX_ERROR_MESSAGE_CHARS = 20_000;
/** Stack frames of the model's code kept in a reported stack. */
export const MAX_STACK_FRAMES = 50;

/** What the model's code did on the way: one console line. */
export interface LogEntry {
  level: "log" | "info" | "warn" | "error" | "debug";
  text: string;
}

/**
 * Why a run failed, in plain data: an error the model's code threw (its own name, such as `TypeError`),
 * or the sandbox or its environment ending the run (a {@link RunFailureName}, such as `Timeout`).
 */
export interface SandboxError {
  name: string;
  message: string;
  /** The stack as the sandbox saw it (positions are in the transpiled JavaScript). */
  stack?: string;
  /** Where the error was thrown in `ExecutionRequest.code` (1-based line and column), when known. */
  line?: number;
  column?: number;
  /** Set when the error came from a failed `tools.*` call. */
  tool?: string;
  kind?: string;
}

/**
 * The values a run's sources of nondeterminism handed out, in order, per source: the clock (`Date.now()`,
 * `new Date()`, formatting the current time) and `Math.random()`. `overflow`: the run handed out more than
 * the sandbox records, so it cannot be replayed exactly. `zone`: the time zone and locale the code sees,
 * reported once, with the first values of a run that records or replays.
 */
export interface RecordedValues {
  now?: number[];
  random?: number[];
  overflow?: boolean;
  zone?: RecordedZone;
}

/**
 * The time zone and default locale a sandbox's code sees (`Intl.DateTimeFormat().resolvedOptions()`):
 * its process's, which a sandbox cannot change for one run. A resumed run must see the ones its paused
 * run saw, or local times, formatted dates and sorting differ.
 */
export interface RecordedZone {
  timeZone: string;
  locale: string;
}

/** The longest time zone or locale name a sandbox reports; a longer one is not a zone and is dropped. */
const MAX_ZONE_NAME_CHARS = 200;

/** `value` as a {@link RecordedZone}, when it is one (two names of at most {@link MAX_ZONE_NAME_CHARS}). */
export function recordedZone(value: unknown): RecordedZone | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { timeZone, locale } = value as Record<string, unknown>;
  const name = (text: unknown): text is string =>
    typeof text === "string" && text.length > 0 && text.length <= MAX_ZONE_NAME_CHARS;
  return name(timeZone) && name(locale) ? { timeZone, locale } : undefined;
}

/**
 * The most values a sandbox records in one run; past it the run is marked `overflow` (it cannot pause).
 * The guest prelude repeats this number (as `MAX_RECORDED`).
 */
export const MAX_RECORDED_VALUES = 100_000;

/** The outcome of one tool call, as the sandbox receives it. */
export type BridgeCallOutcome =
  | { ok: true; valueJson: string }
  | { ok: false; error: { tool: string; kind: string; message: string } };

/** How one execution ended. `valueJson` is the JSON text of the result (absent for `undefined`). */
export interface ExecutionOutcome {
  /** A run the sandbox or its environment ended has the status its failure's name gives (`runEnding`). */
  status: Exclude<RunStatus, "paused">;
  valueJson?: string;
  error?: SandboxError;
}

/** What a sandbox is asked to execute. */
export interface ExecutionRequest {
  /**
   * JavaScript: the body of an async function (so `await` and `return` work at the top level). The
   * environment wraps it; line 1 of `code` must stay line 1 of what the sandbox reports.
   */
  code: string;
  /** The names under which tools are reachable in code, mapped to the real tool names. */
  toolNames: Readonly<Record<string, string>>;
  limits: SandboxLimits;
  /**
   * No later execution will use this sandbox (a fresh-state run). The sandbox then skips what only
   * guards later runs (the record of the built-ins an earlier run could change), and refuses any later
   * execution. Default false: a session's sandbox runs again.
   */
  final?: boolean;
  /**
   * Real names of the tools whose calls may wait for a person (an approval, or a tool that asks one). The
   * sandbox never offers those calls synchronously (see `GuestSyncCall` in `sandbox/guest/interface.ts`):
   * a person answers much later than any synchronous answer. Default: none.
   */
  waitingTools?: readonly string[];
  /**
   * Record what the run's sources of nondeterminism hand out, and pass it to `SandboxBridge.record`
   * before the call, console line or end that follows it: a run that may pause keeps it, so that its
   * resumption sees the same time and random numbers. Default false.
   */
  record?: boolean;
  /** Hand these values out first, in order, before live ones: a run resumed by replay. */
  replay?: RecordedValues;
  /**
   * A run resumed by replay: the calls its journal has. The sandbox answers each call of the code that
   * matches the journal's call at its place (same tool, same arguments, and an outcome) itself, with
   * the recorded outcome, in the recorded order and no earlier than the code has made `after` calls,
   * and tells the host how many it answered (`SandboxBridge.replayed`) before its next call or its end.
   * Every other call goes to the host as usual, in the order the code made it. Absent: the host answers
   * every call.
   */
  replayCalls?: ReplayedCalls;
  /**
   * The code may call `tools.$search(query, { limit })` and `tools.$describe(name)`: they reach the bridge
   * as calls named `SEARCH_CALL` / `DESCRIBE_CALL` (see `discovery.ts`), which are not tool calls and do
   * not count against `maxToolCalls`. Default false: `tools` has no such methods.
   */
  discovery?: boolean;
}

/**
 * The journal of a paused run, as the sandbox of its resumption replays it (see `replayCalls`): call
 * `i` of the paused run is `tools[i]`, `args[i]`, `outcomes[i]`, `after[i]`, in the order the code made them.
 */
export interface ReplayedCalls {
  /** The real tool names. */
  tools: string[];
  /** The arguments as JSON text, exactly as the code sent them. */
  args: string[];
  /** How each call ended; null for a call that did not end (it waited for a person): that one runs live. */
  outcomes: (BridgeCallOutcome | null)[];
  /** How many calls the code had made when each call ended (0 for none): its outcome is delivered no earlier. */
  after: number[];
  /** Indexes of the calls that ended, in the order they ended. */
  order: number[];
}

/**
 * The host side of a run, handed to the sandbox: tool calls and console lines go through it. The host
 * never receives a sandbox function or object: only strings.
 */
export interface SandboxBridge {
  /**
   * A `tools.<name>(args)` call, with the real tool name and the arguments as JSON text. The host calls
   * `waiting(true)` when the call starts waiting for a person (its approval, or a tool that asks one) and
   * `waiting(false)` when that wait is over: the sandbox's wall clock does not run in between. `requested` is the name the code used
   * when it was not a declared one (`tools.getOrder` resolved to `get_order` by the dispatcher's rule).
   * The outcome may come at once (a synchronous tool), which lets a call the sandbox offered
   * synchronously be answered within that call, without a turn of the event loop.
   */
  callTool(
    name: string,
    argsJson: string,
    waiting?: (waiting: boolean) => void,
    requested?: string,
  ): BridgeCallOutcome | Promise<BridgeCallOutcome>;
  /**
   * A call the code waits for with nothing else in flight, made while the code holds the thread this is
   * called on (a sandbox-host lane): the host may block this thread until the outcome comes, or return
   * a promise when it will come later. A bridge without it gets such calls through `callTool`.
   */
  callToolNow?(
    name: string,
    argsJson: string,
    waiting?: (waiting: boolean) => void,
    requested?: string,
  ): BridgeCallOutcome | Promise<BridgeCallOutcome>;
  /** A console line. */
  log(entry: LogEntry): void;
  /**
   * For a run that records (`ExecutionRequest.record`): the values its sources of nondeterminism handed
   * out since the last call, console line or record, before whichever of those comes next. A run that
   * records or replays (`ExecutionRequest.replay`) also reports its `zone` this way, before its first
   * call, console line or end.
   */
  record?(values: RecordedValues): void;
  /**
   * For a run resumed with `ExecutionRequest.replayCalls`: the sandbox answered the code's next `count`
   * calls itself, from the journal. Told before the sandbox's next call and before its end, so the host
   * numbers every call as the code made it.
   */
  replayed?(count: number): void;
}

/**
 * One live sandbox: it may execute several runs (a session) until it is disposed. `execute` never
 * rejects for what the code did: every way a run can end is an {@link ExecutionOutcome}.
 */
export interface Sandbox {
  execute(request: ExecutionRequest, bridge: SandboxBridge, signal: AbortSignal): Promise<ExecutionOutcome>;
  /** Frees the sandbox; later executions fail. Safe to call twice. */
  dispose(): Promise<void>;
  /** False once the sandbox has been disposed or died (after a timeout or out-of-memory). */
  readonly alive: boolean;
  /**
   * True once the sandbox was killed while running code or out of memory, where that can leave work
   * behind in the process that hosted it (a thread V8 could not stop): that process should be replaced.
   * Only sandboxes that share a process with others say so (the isolate engine's); absent means false.
   */
  readonly tainted?: boolean;
}

/** Whom a sandbox is for, when it is opened. */
export interface OpenOptions {
  /**
   * The tenant the sandbox serves: a session, a user, a client of a sandbox server. An environment that
   * hosts several sandboxes in one process keeps sandboxes of different tenants in different processes
   * (unless it was told they may share), so that one tenant's run cannot end another's by crashing the
   * process. Sandboxes opened without a tenant are all one tenant's.
   */
  tenant?: string;
}

/** The longest tenant name a sandbox is opened with (over the wire protocol too). */
export const MAX_TENANT_CHARS = 256;

/** A kind of sandbox. */
export interface Environment {
  /** A short name, like `sandbox-host` or `isolate`. */
  readonly name: string;
  /**
   * One or two honest sentences for the model's instructions about what this environment isolates and
   * what it does not.
   */
  readonly isolation: string;
  /**
   * Optional: how many sandboxes it holds open at once, each of a different tenant and so each kept
   * apart, without an opening waiting for another sandbox to close (a sandbox-host process or a container
   * for each). A sandbox server admits no more than this; absent means the environment names no bound.
   */
  readonly capacity?: number;
  /** Opens a new sandbox, for `options.tenant` when given. */
  open(limits: SandboxLimits, options?: OpenOptions): Promise<Sandbox>;
  /**
   * Optional: starts now what opening a sandbox with these limits will need (a process, say), so that the
   * first `open` waits less. A caller that knows a run is coming calls it while it gets other things ready.
   */
  prepare?(limits: SandboxLimits): void;
  /** Frees what the environment holds (pools, processes, connections). */
  close(): Promise<void>;
}
