/**
 * A small real bridge for the isolate tests: a map of async tool functions, every call and console line
 * recorded with timings. No part of isolated-vm is mocked.
 */

import { afterAll, beforeAll } from "vitest";
import { isolateEnvironment } from "../../environments/in-process/index.js";
import { quickjsEnvironment } from "../../environments/quickjs/index.js";
import { sandboxHostEnvironment } from "../../environments/sandbox-host/index.js";
import type {
  BridgeCallOutcome,
  Environment,
  ExecutionOutcome,
  LogEntry,
  Sandbox,
  SandboxBridge,
  SandboxLimits,
} from "../../sandbox/contract/index.js";

/** The environments a suite can run against: the in-process isolate and the default sandbox host. */
export const TEST_ENVIRONMENTS: { name: string; create: () => Environment }[] = [
  { name: "in-process isolate", create: () => isolateEnvironment() },
  { name: "sandbox host", create: () => sandboxHostEnvironment() },
];

/** The JavaScript engine under an environment: V8 (isolated-vm) or QuickJS (WebAssembly). */
export type Engine = "v8" | "quickjs";

/**
 * The environments the security corpora run over: every engine cordon has. A test whose attack works
 * differently on an engine says so, naming the engine, and checks that engine's own defence.
 */
export const ENGINE_ENVIRONMENTS: { name: string; engine: Engine; create: () => Environment }[] = [
  ...TEST_ENVIRONMENTS.map((environment) => ({ ...environment, engine: "v8" as const })),
  { name: "quickjs", engine: "quickjs", create: () => quickjsEnvironment() },
];

let current: Environment | undefined;

/** The environment `runOnce` and `openSandbox` use: the in-process isolate unless a suite chose another. */
function environmentInUse(): Environment {
  current ??= isolateEnvironment();
  return current;
}

/** Makes the enclosing suite's `runOnce` and `openSandbox` use a new environment, closed after it. */
export function useEnvironment(create: () => Environment): void {
  let mine: Environment | undefined;
  beforeAll(() => {
    mine = create();
    current = mine;
  });
  afterAll(async () => {
    if (current === mine) current = undefined;
    await mine?.close();
  });
}

/** Generous limits so that only the limit a test is about can end a run. */
export const LIMITS: SandboxLimits = {
  timeoutMs: 5_000,
  cpuTimeMs: 3_000,
  memoryMb: 64,
  maxLogChars: 10_000,
  maxResultChars: 100_000,
};

/** A tool implementation: JSON arguments in, a JSON-able value out (or a thrown error). */
export type ToolFn = (args: Record<string, unknown>) => unknown;

/** One recorded call: the tool, its arguments as JSON text, and when it started and ended (ms). */
export interface CallRecord {
  name: string;
  argsJson: string;
  start: number;
  end?: number;
}

/** A bridge over a map of functions, with everything it saw. */
export interface TestBridge extends SandboxBridge {
  calls: CallRecord[];
  logs: LogEntry[];
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The default tools: add, echo, sleep (resolves after `ms`), fail (rejects with kind `denied`). */
export function defaultTools(): Record<string, ToolFn> {
  return {
    add: ({ a, b }) => Number(a) + Number(b),
    echo: (args) => args,
    sleep: async ({ ms }) => {
      await sleep(Number(ms));
      return { slept: ms };
    },
    fail: ({ message }) => {
      throw Object.assign(new Error(String(message ?? "it failed")), { kind: "denied" });
    },
  };
}

/** Builds a bridge whose `callTool` runs the matching function and encodes its outcome. */
export function makeBridge(tools: Record<string, ToolFn> = defaultTools()): TestBridge {
  const calls: CallRecord[] = [];
  const logs: LogEntry[] = [];
  return {
    calls,
    logs,
    async callTool(name: string, argsJson: string): Promise<BridgeCallOutcome> {
      const record: CallRecord = { name, argsJson, start: performance.now() };
      calls.push(record);
      try {
        const fn = tools[name];
        if (!fn) return { ok: false, error: { tool: name, kind: "unknown", message: `no tool ${name}` } };
        const value = await fn(JSON.parse(argsJson) as Record<string, unknown>);
        return { ok: true, valueJson: JSON.stringify(value ?? null) };
      } catch (error) {
        const kind = (error as { kind?: string }).kind ?? "error";
        return { ok: false, error: { tool: name, kind, message: (error as Error).message } };
      } finally {
        record.end = performance.now();
      }
    },
    log(entry: LogEntry) {
      logs.push(entry);
    },
  };
}

/** Tool names as the code sees them, mapped to the real names (identity here). */
export function toolNames(tools: Record<string, unknown> = defaultTools()): Record<string, string> {
  return Object.fromEntries(Object.keys(tools).map((name) => [name, name]));
}

/** Opens a sandbox with the given limits (merged over {@link LIMITS}). */
export async function openSandbox(limits: Partial<SandboxLimits> = {}): Promise<Sandbox> {
  return environmentInUse().open({ ...LIMITS, ...limits });
}

/** Runs code once in a fresh sandbox and disposes it; returns the outcome, the bridge and the sandbox. */
export async function runOnce(
  code: string,
  options: { limits?: Partial<SandboxLimits>; tools?: Record<string, ToolFn>; signal?: AbortSignal } = {},
): Promise<{ outcome: ExecutionOutcome; bridge: TestBridge; sandbox: Sandbox; elapsed: number }> {
  const limits = { ...LIMITS, ...options.limits };
  const sandbox = await environmentInUse().open(limits);
  const tools = options.tools ?? defaultTools();
  const bridge = makeBridge(tools);
  const started = performance.now();
  try {
    const outcome = await sandbox.execute(
      { code, toolNames: toolNames(tools), limits },
      bridge,
      options.signal ?? new AbortController().signal,
    );
    return { outcome, bridge, sandbox, elapsed: performance.now() - started };
  } finally {
    await sandbox.dispose();
  }
}

/** The parsed result value of an outcome. */
export function resultOf(outcome: ExecutionOutcome): unknown {
  return outcome.valueJson === undefined ? undefined : JSON.parse(outcome.valueJson);
}
