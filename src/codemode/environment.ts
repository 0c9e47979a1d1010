/**
 * The interface every sandbox environment implements (isolated-vm, Docker, a child process, a remote
 * host). Code mode only talks to this interface; everything crossing it is JSON text or plain data.
 */

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
}

/** What the model's code did on the way: one console line. */
export interface LogEntry {
  level: "log" | "info" | "warn" | "error" | "debug";
  text: string;
}

/** An error thrown by the model's code, recreated in plain data. */
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

/** The outcome of one tool call, as the sandbox receives it. */
export type BridgeCallOutcome =
  | { ok: true; valueJson: string }
  | { ok: false; error: { tool: string; kind: string; message: string } };

/**
 * The host side of a run, handed to the sandbox: tool calls and console lines go through it. The host
 * never receives a sandbox function or object: only strings.
 */
export interface SandboxBridge {
  /** A `tools.<name>(args)` call, with the real tool name and the arguments as JSON text. */
  callTool(name: string, argsJson: string): Promise<BridgeCallOutcome>;
  /** A console line. */
  log(entry: LogEntry): void;
}

/** How one execution ended. `valueJson` is the JSON text of the result (absent for `undefined`). */
export interface ExecutionOutcome {
  status: "ok" | "error" | "timeout" | "limit" | "cancelled";
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
}

/** One live sandbox: it may execute several runs (a session) until it is disposed. */
export interface Sandbox {
  execute(request: ExecutionRequest, bridge: SandboxBridge, signal: AbortSignal): Promise<ExecutionOutcome>;
  /** Frees the sandbox; later executions fail. Safe to call twice. */
  dispose(): Promise<void>;
  /** False once the sandbox has been disposed or died (after a timeout or out-of-memory). */
  readonly alive: boolean;
}

/** A kind of sandbox. */
export interface Environment {
  /** A short name, like `isolate` or `docker`. */
  readonly name: string;
  /**
   * One or two honest sentences for the model's instructions about what this environment isolates and
   * what it does not.
   */
  readonly isolation: string;
  /** Opens a new sandbox. */
  open(limits: SandboxLimits): Promise<Sandbox>;
  /** Frees what the environment holds (pools, connections). */
  close(): Promise<void>;
}
