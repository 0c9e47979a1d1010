/**
 * The wire protocol between cordon and a sandbox host: the program that hosts isolated-vm isolates in a
 * process of its own (a supervised child process, a Docker container, a machine behind `cordon serve`).
 *
 * One JSON object per line, each way, over any byte stream (stdio pipes, a socket). cordon sends
 * {@link Command}s; the sandbox host answers with {@link Report}s. Nothing here assumes that both ends
 * share a machine: there are no file paths, process ids that matter, or shared memory. Every line is at
 * most {@link MAX_MESSAGE_BYTES}; a side that receives a longer or malformed line ends the connection.
 *
 * The plain data inside the messages (limits, requests, outcomes, console lines) is the contract's own
 * (`environment.ts`): the wire carries exactly what an in-process sandbox is handed.
 */

import type {
  BridgeCallOutcome,
  ExecutionOutcome,
  ExecutionRequest,
  LogEntry,
  RecordedValues,
  ReplayedCalls,
  SandboxError,
  SandboxLimits,
} from "./environment.js";
import { MAX_TENANT_CHARS, recordedZone } from "./environment.js";

/**
 * The protocol version; both ends must speak the same one (the sandbox host says which in `hello`). 4:
 * requests may ask for discovery (`tools.$search` / `tools.$describe` on the call channel).
 */
export const PROTOCOL_VERSION = 4;

/**
 * The file descriptor of a sandbox-host process's lane: a pipe only cordon writes to and the process
 * reads with blocking reads, one line per `call` reported with `lane` (see `sandbox/program/lane.ts`).
 */
export const LANE_FD = 3;

/** The longest line either side sends or accepts, in bytes of UTF-8. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

// ---- Messages ----

/** What cordon tells a sandbox host. Sandbox and run ids are chosen by cordon, unique per connection. */
export type Command =
  /**
   * Create a sandbox (an isolate with the prelude) with these limits. `lane`: the sandbox is alone in
   * its process, which runs its code on its main thread and asks for the outcome of each call the code
   * waits for alone on the lane (see {@link LANE_FD}); only a process started with a lane accepts it.
   */
  | { type: "open"; sandbox: number; limits: SandboxLimits; tenant?: string; lane?: true }
  /** Run code in a sandbox opened before. */
  | { type: "exec"; sandbox: number; run: number; request: ExecutionRequest }
  /** The outcome of a tool call the sandbox host reported with `call`. */
  | { type: "result"; run: number; call: number; outcome: BridgeCallOutcome }
  /**
   * Only on the lane, for a `call` reported with `lane`: its outcome is not ready yet, and comes later
   * as a `result` on the command stream; the sandbox host goes on meanwhile.
   */
  | { type: "later"; run: number; call: number }
  /** A tool call of a run started (`true`) or stopped waiting for a person: pause its clock. */
  | { type: "waiting"; run: number; call: number; waiting: boolean }
  /** Stop a run (it ends as cancelled; its sandbox is killed). */
  | { type: "cancel"; run: number }
  /** Free a sandbox (a run still in it is stopped). */
  | { type: "dispose"; sandbox: number }
  /** Ask for a `pong`: how cordon tells a live sandbox host from a hung one, and reads its health. */
  | { type: "ping"; id: number };

/** How the sandbox host's process is doing, in every `pong`. */
export interface HostHealth {
  /** Resident memory of the whole process, in MB (heaps, memory outside them, native allocations). */
  rssMb: number;
  /** Threads of the process, where the platform tells (Linux); a stuck isolate thread shows here. */
  threads?: number;
  /** CPU time the process has used since it started, in ms (all threads). */
  cpuMs: number;
}

/** What a sandbox host tells cordon. */
export type Report =
  /**
   * The first line: the protocol it speaks, and the most it lets a sandbox have (a sandbox server's
   * ceilings): it holds every `open` and `exec` under them, so the client knows the effective limits.
   */
  | { type: "hello"; protocol: number; node: string; ceilings?: Partial<SandboxLimits> }
  /**
   * Code called `tools.<tool>(args)` (as `tools.<requested>` when it used another name); answer with
   * `result`. With `lane`, the sandbox host is blocked until one line comes on the lane: the `result`,
   * a `later`, or a `cancel` of the run.
   */
  | { type: "call"; run: number; call: number; tool: string; args: string; requested?: string; lane?: true }
  /** A console line of a run. */
  | { type: "log"; run: number; entry: LogEntry }
  /** What a recording run's clock and Math.random handed out since its last report (see `record`). */
  | { type: "values"; run: number; values: RecordedValues }
  /** A replaying run answered the code's next `count` calls itself, from its journal (see `replayCalls`). */
  | { type: "replayed"; run: number; count: number }
  /**
   * A run ended. `alive` is false when its sandbox was killed on the way (a limit, a cancellation);
   * `tainted` when it was killed while running code or out of memory, which may leave work behind in
   * the sandbox host's process (a thread V8 could not stop): that process should be replaced.
   */
  | { type: "done"; run: number; outcome: ExecutionOutcome; alive: boolean; tainted: boolean }
  | { type: "pong"; id: number; health: HostHealth }
  /** The sandbox host cannot go on (it ends right after); `reason` says why. */
  | { type: "fatal"; reason: string };

/** Encodes a message as one line (with its newline); throws a RangeError when it is over the cap. */
export function encodeMessage(message: Command | Report): string {
  const line = `${JSON.stringify(message)}\n`;
  // A UTF-8 byte is at least a character and at most three per UTF-16 unit: skip the count when safe.
  if (line.length * 3 > MAX_MESSAGE_BYTES && Buffer.byteLength(line) > MAX_MESSAGE_BYTES) {
    throw new RangeError(
      `A ${message.type} message of ${Buffer.byteLength(line)} bytes is over the protocol's cap of ${MAX_MESSAGE_BYTES} bytes.`,
    );
  }
  return line;
}

/**
 * Splits a byte stream into lines of at most {@link MAX_MESSAGE_BYTES}. `push` returns the complete lines
 * of a chunk; a line over the cap makes it throw (the connection must then end: nothing after it can be
 * trusted to start a message).
 */
export class LineSplitter {
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let from = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, from)) {
      this.#take(chunk.subarray(from, newline));
      const line = this.#pending.length === 1 ? this.#pending[0] : Buffer.concat(this.#pending);
      lines.push(line.toString("utf8"));
      this.#pending = [];
      this.#pendingBytes = 0;
      from = newline + 1;
    }
    if (from < chunk.length) this.#take(chunk.subarray(from));
    return lines;
  }

  #take(part: Buffer): void {
    this.#pendingBytes += part.length;
    if (this.#pendingBytes > MAX_MESSAGE_BYTES) {
      throw new RangeError(`A message is longer than the protocol's cap of ${MAX_MESSAGE_BYTES} bytes.`);
    }
    this.#pending.push(part);
  }
}

// ---- Reading messages: every field is checked, nothing is trusted ----

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isString = (value: unknown): value is string => typeof value === "string";
const isPositive = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value) && value > 0;

const LOG_LEVELS: ReadonlySet<unknown> = new Set(["log", "info", "warn", "error", "debug"]);
const STATUSES: ReadonlySet<unknown> = new Set(["ok", "error", "timeout", "limit", "cancelled"]);

/** Parses one line from cordon; throws a TypeError saying what is wrong with it. */
export function parseCommand(line: string): Command {
  const message = parseObject(line);
  switch (message.type) {
    case "open":
      if (isId(message.sandbox) && isLimits(message.limits) && isTenant(message.tenant)) {
        if (message.lane === undefined || message.lane === true) return message as Command;
      }
      break;
    case "exec":
      if (isId(message.sandbox) && isId(message.run) && isRequest(message.request)) return message as Command;
      break;
    case "result":
      if (isId(message.run) && isId(message.call) && isCallOutcome(message.outcome))
        return message as Command;
      break;
    case "later":
      if (isId(message.run) && isId(message.call)) return message as Command;
      break;
    case "waiting":
      if (isId(message.run) && isId(message.call) && typeof message.waiting === "boolean")
        return message as Command;
      break;
    case "cancel":
      if (isId(message.run)) return message as Command;
      break;
    case "dispose":
      if (isId(message.sandbox)) return message as Command;
      break;
    case "ping":
      if (isId(message.id)) return message as Command;
      break;
  }
  throw new TypeError(`Not a valid command: ${describe(message)}.`);
}

/** Parses one line from a sandbox host; throws a TypeError saying what is wrong with it. */
export function parseReport(line: string): Report {
  const message = parseObject(line);
  switch (message.type) {
    case "hello":
      if (isId(message.protocol) && isString(message.node)) {
        if (message.ceilings === undefined || isCeilings(message.ceilings)) return message as Report;
      }
      break;
    case "call":
      if (isId(message.run) && isId(message.call) && isString(message.tool) && isString(message.args)) {
        if (
          (message.requested === undefined || isString(message.requested)) &&
          (message.lane === undefined || message.lane === true)
        )
          return message as Report;
      }
      break;
    case "log":
      if (isId(message.run) && isObject(message.entry) && LOG_LEVELS.has(message.entry.level)) {
        if (isString(message.entry.text)) return message as Report;
      }
      break;
    case "values":
      if (isId(message.run) && isRecorded(message.values)) return message as Report;
      break;
    case "replayed":
      if (isId(message.run) && isId(message.count) && message.count > 0) return message as Report;
      break;
    case "done":
      if (isId(message.run) && isOutcome(message.outcome) && typeof message.alive === "boolean") {
        if (typeof message.tainted === "boolean") return message as Report;
      }
      break;
    case "pong":
      if (isId(message.id) && isHealth(message.health)) return message as Report;
      break;
    case "fatal":
      if (isString(message.reason)) return message as Report;
      break;
  }
  throw new TypeError(`Not a valid report: ${describe(message)}.`);
}

function parseObject(line: string): Fields {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new TypeError(`Not JSON: ${JSON.stringify(line.slice(0, 80))}.`);
  }
  if (!isObject(value)) throw new TypeError("A message must be a JSON object.");
  return value;
}

function describe(message: Fields): string {
  const type = isString(message.type) ? JSON.stringify(message.type.slice(0, 40)) : "no type";
  return `a message of type ${type} with fields ${Object.keys(message).slice(0, 10).join(", ")}`;
}

function isLimits(value: unknown): value is SandboxLimits {
  if (!isObject(value)) return false;
  const required = ["timeoutMs", "cpuTimeMs", "memoryMb", "maxLogChars", "maxResultChars"];
  if (!required.every((key) => isPositive(value[key]))) return false;
  return ["maxToolCalls", "maxArgsChars"].every((key) => value[key] === undefined || isPositive(value[key]));
}

function isRecorded(value: unknown): value is RecordedValues {
  if (!isObject(value)) return false;
  const numbers = (list: unknown) =>
    list === undefined ||
    (Array.isArray(list) && list.every((item) => typeof item === "number" && Number.isFinite(item)));
  return (
    numbers(value.now) &&
    numbers(value.random) &&
    (value.overflow === undefined || value.overflow === true) &&
    (value.zone === undefined || recordedZone(value.zone) !== undefined)
  );
}

function isTenant(value: unknown): boolean {
  return value === undefined || (isString(value) && value.length <= MAX_TENANT_CHARS);
}

function isCeilings(value: unknown): value is Partial<SandboxLimits> {
  if (!isObject(value)) return false;
  const known = [
    "timeoutMs",
    "cpuTimeMs",
    "memoryMb",
    "maxLogChars",
    "maxResultChars",
    "maxToolCalls",
    "maxArgsChars",
  ];
  return Object.entries(value).every(([key, limit]) => known.includes(key) && isPositive(limit));
}

function isRequest(value: unknown): value is ExecutionRequest {
  if (!isObject(value) || !isString(value.code) || !isLimits(value.limits)) return false;
  if (value.final !== undefined && typeof value.final !== "boolean") return false;
  if (value.record !== undefined && typeof value.record !== "boolean") return false;
  if (value.replay !== undefined && !isRecorded(value.replay)) return false;
  if (value.replayCalls !== undefined && !isReplayedCalls(value.replayCalls)) return false;
  if (value.discovery !== undefined && typeof value.discovery !== "boolean") return false;
  const waiting = value.waitingTools;
  if (waiting !== undefined && !(Array.isArray(waiting) && waiting.every(isString))) return false;
  const names = value.toolNames;
  return isObject(names) && Object.values(names).every(isString);
}

function isReplayedCalls(value: unknown): value is ReplayedCalls {
  if (!isObject(value)) return false;
  const { tools, args, outcomes, after, order } = value;
  if (!Array.isArray(tools) || !Array.isArray(args) || !Array.isArray(outcomes)) return false;
  if (!Array.isArray(after) || !Array.isArray(order)) return false;
  const length = tools.length;
  if (args.length !== length || outcomes.length !== length || after.length !== length) return false;
  return (
    tools.every(isString) &&
    args.every(isString) &&
    outcomes.every((outcome) => outcome === null || isCallOutcome(outcome)) &&
    after.every(isId) &&
    order.every((index) => isId(index) && index < length && outcomes[index] !== null)
  );
}

function isCallOutcome(value: unknown): value is BridgeCallOutcome {
  if (!isObject(value)) return false;
  if (value.ok === true) return isString(value.valueJson);
  const error = value.error;
  return (
    value.ok === false &&
    isObject(error) &&
    isString(error.tool) &&
    isString(error.kind) &&
    isString(error.message)
  );
}

function isOutcome(value: unknown): value is ExecutionOutcome {
  if (!isObject(value) || !STATUSES.has(value.status)) return false;
  if (value.valueJson !== undefined && !isString(value.valueJson)) return false;
  return value.error === undefined || isSandboxError(value.error);
}

function isSandboxError(value: unknown): value is SandboxError {
  if (!isObject(value) || !isString(value.name) || !isString(value.message)) return false;
  const optional = (key: string, check: (field: unknown) => boolean) =>
    value[key] === undefined || check(value[key]);
  return (
    optional("stack", isString) &&
    optional("tool", isString) &&
    optional("kind", isString) &&
    optional("line", isId) &&
    optional("column", isId)
  );
}

function isHealth(value: unknown): value is HostHealth {
  if (!isObject(value)) return false;
  const number = (field: unknown) => typeof field === "number" && Number.isFinite(field) && field >= 0;
  return number(value.rssMb) && number(value.cpuMs) && (value.threads === undefined || number(value.threads));
}
