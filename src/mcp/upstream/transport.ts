/**
 * The stdio transport cordon's MCP client talks to an upstream server through. Like the SDK's
 * StdioClientTransport it starts the server's process (no shell, its stderr piped) and exchanges one JSON
 * line per message; unlike it, a message longer than the limit does not close the transport (and so
 * kill a healthy server): it is skipped as it arrives, never held whole, and becomes an error for the
 * request it answered, while the server goes on running.
 */

import { type ChildProcess, spawn } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { groupDigits } from "../../../common/numbers.js";
import { LineLimit, type SkippedLine } from "../stdio-lines.js";
import { classifySkippedLine, oversizedRequestAnswer, oversizedResponse } from "./oversized.js";

/** How long a closing server gets after its stdin ends, and again after SIGTERM, as the SDK gives it. */
const CLOSE_GRACE_MS = 2_000;

/** Options of {@link UpstreamStdioTransport}. */
export interface UpstreamTransportOptions {
  command: string;
  args: readonly string[];
  /** The whole environment of the server's process. */
  env: Record<string, string>;
  /** The longest message read from the server, in bytes; a longer one is skipped (see the module). */
  maxMessageBytes: number;
  /** Receives the server's stderr as it arrives. */
  onStderr: (text: string) => void;
  /** Says what was skipped. */
  log: (line: string) => void;
}

/** A child process spoken to in newline-delimited JSON-RPC, with a bound on what one message may be. */
export class UpstreamStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #options: UpstreamTransportOptions;
  #process: ChildProcess | undefined;
  /** Requests sent to the server and not answered: who waits when a message names no one. */
  readonly #waiting = new Set<RequestId>();

  constructor(options: UpstreamTransportOptions) {
    this.#options = options;
  }

  /** Starts the server's process; resolves once it runs, rejects when it cannot (e.g. ENOENT). */
  start(): Promise<void> {
    if (this.#process) return Promise.reject(new Error("The upstream transport was already started."));
    return new Promise((resolve, reject) => {
      const child = spawn(this.#options.command, [...this.#options.args], {
        env: this.#options.env,
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        windowsHide: true,
      });
      this.#process = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      child.on("close", () => {
        this.#process = undefined;
        this.#waiting.clear();
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stderr?.on("data", (chunk: Buffer) => this.#options.onStderr(chunk.toString("utf8")));
      const lines = new LineLimit(this.#options.maxMessageBytes, (line) => this.#skipped(line));
      lines.on("data", (line: Buffer) => this.#read(line));
      child.stdout?.pipe(lines);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#process?.stdin;
    if (!stdin) return Promise.reject(new Error("Not connected"));
    this.#noteSent(message);
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once("drain", resolve);
    });
  }

  /** Ends the server's stdin, then signals it (SIGTERM, then SIGKILL) if it does not exit. */
  async close(): Promise<void> {
    const child = this.#process;
    if (!child) return;
    this.#process = undefined;
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const exitedWithin = () =>
      Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // Already closed.
    }
    await exitedWithin();
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      if (signal === "SIGTERM") await exitedWithin();
    }
  }

  #read(line: Buffer): void {
    const text = line.toString("utf8").replace(/\r?\n$/, "");
    if (text.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(text));
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (!("method" in message) && "id" in message && message.id !== undefined)
      this.#waiting.delete(message.id);
    this.onmessage?.(message);
  }

  #noteSent(message: JSONRPCMessage): void {
    if ("method" in message && "id" in message) this.#waiting.add(message.id);
    else if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id === "string" || typeof id === "number") this.#waiting.delete(id);
    }
  }

  #skipped(line: SkippedLine): void {
    const max = this.#options.maxMessageBytes;
    const message = classifySkippedLine(line);
    const size = `${groupDigits(line.bytes)} bytes, over the limit of ${groupDigits(max)}`;
    switch (message.kind) {
      case "response":
        if (this.#waiting.delete(message.id)) {
          this.#options.log(`an answer of ${size}, was not read; its request fails`);
          this.onmessage?.(oversizedResponse(message.id, line, max, false));
        } else {
          this.#options.log(`an answer of ${size}, for no request still waiting, was not read`);
        }
        return;
      case "request":
        this.#options.log(`a request of ${size}, was not read; it was answered with an error`);
        this.send(oversizedRequestAnswer(message.id, line, max)).catch(() => {});
        return;
      case "notification":
        this.#options.log(`a notification of ${size}, was not read`);
        return;
      case "unknown": {
        const waiting = [...this.#waiting];
        this.#waiting.clear();
        this.#options.log(
          `a message of ${size}, naming no request, was not read; the ${waiting.length} requests waiting on the server fail`,
        );
        for (const id of waiting) this.onmessage?.(oversizedResponse(id, line, max, true));
      }
    }
  }
}
