/**
 * The interface every sandbox environment implements (an in-process isolate, the supervised sandbox-host
 * processes, Docker, a remote host). Code mode only talks to this interface; everything crossing it is
 * JSON text or plain data, whose types the wire protocol defines (`protocol.ts`).
 */

import type { ExecutionOutcome, ExecutionRequest, SandboxBridge, SandboxLimits } from "./protocol.js";

export type {
  BridgeCallOutcome,
  ExecutionOutcome,
  ExecutionRequest,
  LogEntry,
  SandboxBridge,
  SandboxError,
  SandboxLimits,
} from "./protocol.js";

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
  /** A short name, like `sandbox-host` or `isolate`. */
  readonly name: string;
  /**
   * One or two honest sentences for the model's instructions about what this environment isolates and
   * what it does not.
   */
  readonly isolation: string;
  /** Opens a new sandbox. */
  open(limits: SandboxLimits): Promise<Sandbox>;
  /** Frees what the environment holds (pools, processes, connections). */
  close(): Promise<void>;
}
