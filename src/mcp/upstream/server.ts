/**
 * One upstream MCP server: a child process cordon starts and talks to as an MCP client over stdio, or a
 * remote server it reaches over Streamable HTTP (see remote.ts). It
 * lists the server's tools (again whenever the server says they changed), calls them, and turns every
 * way the server can fail (it will not start, it exits, it stops answering) into a clear message for the
 * call that needed it, while cordon goes on serving.
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Tool as McpTool,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type ServerCapabilities,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { messageOf } from "../../../common/errors.js";
import { groupDigits } from "../../../common/numbers.js";
import { formatDuration } from "../../dispatch/failures.js";
import type { ClientDirectory, ClientLink } from "../client-link.js";
import { oversizedDataOf } from "./oversized.js";
import { forwardProgress, UpstreamProgress } from "./progress.js";
import { UPSTREAM_CLIENT_CAPABILITIES, UpstreamQuestions } from "./questions.js";
import { lostConnection, neverDelivered, RemoteConnector } from "./remote.js";
import type { CommandUpstreamSpec, UpstreamSpec } from "./spec.js";
import { acceptsToolTasks, callToolAsTask, requiresTask } from "./task-call.js";
import { UpstreamStdioTransport } from "./transport.js";

/** What an upstream told cordon outside any call, for the clients' sake (see ../upstream-resources.ts). */
export type UpstreamNotice =
  | { type: "resource_updated"; uri: string }
  | { type: "resources_changed" }
  | { type: "prompts_changed" };

/** Told of each new connection to the server, before it serves: what it must know again (subscriptions). */
export type ConnectHook = (client: Client, options: { timeout: number }) => Promise<void>;

/** Lines of an upstream's stderr kept to explain why it failed. */
const STDERR_TAIL_LINES = 5;

/**
 * The waits before connecting again to a remote upstream whose connection failed, so that a server that
 * is down is not asked at every call: the first, doubled after each failure in a row up to the longest
 * (that of a dropped SSE stream's resumption, remote.ts).
 */
const RECONNECT_DELAY = { firstMs: 500, maxMs: 10_000 };

/** Options of {@link UpstreamServer}. */
export interface UpstreamOptions {
  /** Starting the server and listing its tools must finish within this, in ms. */
  startTimeoutMs: number;
  /** Each call (and each new listing of the tools) must finish within this, in ms. */
  callTimeoutMs: number;
  /** The longest message read from the server, in bytes; a longer one fails the call it answers. */
  maxMessageBytes: number;
  /** cordon's own version, sent as the client's version. */
  clientVersion: string;
  /** Where to report what happens (started, exited, relisted). */
  log: (line: string) => void;
  /** The environment of the server's process. Default: cordon's own. */
  env?: Record<string, string>;
  /** A remote server's waits between failed connections. Default {@link RECONNECT_DELAY}. */
  reconnectDelay?: { firstMs: number; maxMs: number };
}

/** Where an upstream is in its life. */
export type UpstreamState = "idle" | "starting" | "ready" | "failed" | "closed";

/** An upstream MCP server, started on demand and restarted on demand after it failed. */
export class UpstreamServer {
  readonly name: string;
  /** Whether the operator trusts its results (see `UpstreamSpec.trusted`). */
  readonly trusted: boolean;
  readonly #spec: UpstreamSpec;
  readonly #options: UpstreamOptions;
  #state: UpstreamState = "idle";
  #failure: string | undefined;
  #client: Client | undefined;
  #starting: Promise<void> | undefined;
  #tools: McpTool[] = [];
  #acceptsToolTasks = false;
  #capabilities: ServerCapabilities | undefined;
  readonly #notices = new Set<(notice: UpstreamNotice) => void>();
  readonly #connectHooks = new Set<ConnectHook>();
  #stderrTail: string[] = [];
  readonly #listeners = new Set<() => void>();
  readonly #questions: UpstreamQuestions;
  readonly #progress = new UpstreamProgress();
  #unsubscribeRoots: (() => void) | undefined;
  /** How a remote server is reached; undefined for a command. */
  readonly #remote: RemoteConnector | undefined;
  /** A remote server's failed connections in a row, and when the next may be tried (performance.now()). */
  #failedConnections = 0;
  #nextConnectionAt = 0;

  constructor(spec: UpstreamSpec, options: UpstreamOptions) {
    this.name = spec.name;
    this.trusted = spec.trusted === true;
    this.#spec = spec;
    this.#options = options;
    if ("url" in spec) {
      this.#remote = new RemoteConnector(
        spec,
        spec.auth,
        (line) => options.log(`upstream ${spec.name}: ${line}`),
        options.maxMessageBytes,
      );
    }
    this.#questions = new UpstreamQuestions(spec.name, { unansweredMs: options.callTimeoutMs });
  }

  /**
   * The MCP clients connected to cordon: the server is told when their roots change, and may get the
   * roots of the only one that offers roots when it asks outside any call.
   */
  useClients(clients: ClientDirectory): void {
    this.#questions.useClients(clients);
    this.#unsubscribeRoots?.();
    this.#unsubscribeRoots = clients.onRootsChanged(() => {
      if (this.#state === "ready") this.#client?.sendRootsListChanged().catch(() => {});
    });
  }

  /** The server's tools as it last listed them (kept after it failed, so calls can say why). */
  get tools(): readonly McpTool[] {
    return this.#tools;
  }

  get state(): UpstreamState {
    return this.#state;
  }

  /** Whether the server, as it last started, lets its tools be called as tasks. */
  get acceptsToolTasks(): boolean {
    return this.#acceptsToolTasks;
  }

  /** What the server declared as it last started (undefined before it ever started). */
  get capabilities(): ServerCapabilities | undefined {
    return this.#capabilities;
  }

  /**
   * A remote server cordon has not connected to yet (it waits for a person's sign-in, or is not
   * reachable now): whether it offers resources or prompts is not known until it connects.
   */
  get offersNotKnown(): boolean {
    return this.#capabilities === undefined && this.#remote !== undefined && this.#state !== "closed";
  }

  /** Calls `listener` with each resource or prompt notice of the server. Returns an unsubscribe. */
  onNotice(listener: (notice: UpstreamNotice) => void): () => void {
    this.#notices.add(listener);
    return () => this.#notices.delete(listener);
  }

  /**
   * Calls `hook` on each new connection to the server (its first start, and each restart or reconnect),
   * after its tools are listed and before any call is made on it; a hook that fails is logged and the
   * server serves anyway. Returns an unsubscribe.
   */
  onConnected(hook: ConnectHook): () => void {
    this.#connectHooks.add(hook);
    return () => this.#connectHooks.delete(hook);
  }

  /**
   * Makes one request other than a tool call (`what` names it in errors: "read resource x"), starting the
   * server first when needed, within the call timeout. Rejects with an Error saying what went wrong; an
   * error the server answered with keeps its code, so a client sees the server's own "not found".
   * `again` is set for the one retry after a remote server lost cordon's session.
   */
  async request<T>(
    what: string,
    send: (client: Client, options: { signal: AbortSignal; timeout: number }) => Promise<T>,
    signal?: AbortSignal,
    again = false,
  ): Promise<T> {
    if (this.#state === "closed") throw new Error(`The MCP server "${this.name}" has been shut down.`);
    if (this.#state !== "ready") await this.start();
    const client = this.#client;
    if (this.#state !== "ready" || !client) {
      throw new Error(
        `The MCP server "${this.name}" is not available: ${this.#failure ?? "it is not running"}`,
      );
    }
    const timeout = this.#options.callTimeoutMs;
    const deadline = AbortSignal.timeout(timeout);
    try {
      return await send(client, { signal: signal ? AbortSignal.any([signal, deadline]) : deadline, timeout });
    } catch (error) {
      // A remote server that restarted knows cordon's session no more: a new one, and the request again
      // (once, and only when the request never reached it).
      const running = this.#client === client && this.#state === "ready";
      if (this.#remote && running && !signal?.aborted && lostConnection(error)) {
        const reason = messageOf(error);
        this.#dropRemote(client, `it could not be reached (${reason})`);
        if (neverDelivered(error) && !again) {
          this.#options.log(`upstream ${this.name}: lost its session (${reason}); reconnecting`);
          return this.request(what, send, signal, true);
        }
      }
      if (error instanceof McpError && error.code !== ErrorCode.RequestTimeout) {
        throw new McpError(
          error.code,
          `The MCP server "${this.name}" could not ${what}: ${error.message.replace(/^MCP error -?\d+: /, "")}`,
        );
      }
      if (deadline.aborted || (error instanceof McpError && error.code === ErrorCode.RequestTimeout)) {
        throw new Error(`The MCP server "${this.name}" did not ${what} within ${formatDuration(timeout)}.`);
      }
      throw new Error(`The MCP server "${this.name}" could not ${what}: ${messageOf(error)}`);
    }
  }

  /** Why the server is not available, when it failed. */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** Calls `listener` whenever the tool list or the availability changes. Returns an unsubscribe. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts the server and lists its tools; resolves either way (see {@link state} and {@link failure}). */
  start(): Promise<void> {
    if (this.#state === "closed" || this.#state === "ready") return Promise.resolve();
    // Starting again while a person is asked to authorize cordon would only ask again.
    if (this.#remote?.waitingForPerson) return Promise.resolve();
    if (this.#backingOff()) return Promise.resolve();
    const exchanging = this.#remote?.exchanging;
    this.#starting ??= (exchanging ? exchanging.then(() => this.#start()) : this.#start()).finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  /**
   * Calls one of the server's tools by its own name. Starts the server again first when it had failed.
   * Resolves with the server's result; rejects with an Error whose message says what went wrong. `link`
   * is the MCP client the call is made for: it receives the call's progress and the server's questions.
   */
  async call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    link?: ClientLink,
  ): Promise<CallToolResult> {
    try {
      return await this.#call(tool, args, signal, link);
    } catch (error) {
      // A remote server that restarted knows cordon's session no more: a new one, and the call again.
      if (!(error instanceof RemoteSessionLost) || signal.aborted) throw error;
      this.#options.log(`upstream ${this.name}: lost its session (${error.reason}); reconnecting`);
      return await this.#call(tool, args, signal, link);
    }
  }

  async #call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    link?: ClientLink,
  ): Promise<CallToolResult> {
    if (this.#state === "closed") throw new Error(`The MCP server "${this.name}" has been shut down.`);
    if (this.#state !== "ready") await this.start();
    const client = this.#client;
    if (this.#state !== "ready" || !client) {
      const wait = this.#backingOff()
        ? `; cordon connects to it again in ${formatDuration(Math.ceil(this.#nextConnectionAt - performance.now()))} at the earliest (it waits longer after each failed connection, up to ${formatDuration(this.#reconnectDelay.maxMs)})`
        : "";
      throw new Error(
        `The MCP server "${this.name}" is not available: ${this.#failure ?? "it is not running"}${wait}`,
      );
    }
    const done = this.#questions.track(link);
    let unanswered = false;
    const progress = link ? this.#progress.open(forwardProgress(link, this.name, tool)) : undefined;
    const meta = progress ? { _meta: { progressToken: progress.token } } : {};
    const params = { name: tool, arguments: args, ...meta };
    // The dispatcher's own timeout for the tool normally ends the call first, as a "timeout".
    const timeoutMs = this.#options.callTimeoutMs + 1_000;
    try {
      if (this.#tools.some((listed) => listed.name === tool && requiresTask(listed))) {
        return await callToolAsTask(client, params, { signal, timeoutMs });
      }
      return (await client.callTool(params, undefined, { signal, timeout: timeoutMs })) as CallToolResult;
    } catch (error) {
      // A call the server has not answered (aborted, timed out) may still run there, and ask for it.
      const running = this.#client === client && this.#state === "ready";
      if (signal.aborted) {
        unanswered = running;
        throw signal.reason ?? error;
      }
      if (this.#remote && running && lostConnection(error)) {
        const reason = messageOf(error);
        this.#dropRemote(client, `it could not be reached (${reason})`);
        if (neverDelivered(error)) throw new RemoteSessionLost(reason);
        throw new Error(`The MCP server "${this.name}" stopped while running ${tool}: ${this.#failure}`);
      }
      const tooLarge = oversizedDataOf(error);
      if (tooLarge) {
        unanswered = running && tooLarge.unattributed;
        throw new Error(this.#tooLargeMessage(tool, tooLarge));
      }
      if (!running) {
        throw new Error(
          `The MCP server "${this.name}" stopped while running ${tool}: ${this.#failure ?? "it exited"}`,
        );
      }
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        unanswered = true;
        throw new Error(
          `The MCP server "${this.name}" did not answer ${tool} within ${formatDuration(this.#options.callTimeoutMs)}.`,
        );
      }
      throw new Error(`The MCP server "${this.name}" failed to run ${tool}: ${messageOf(error)}`);
    } finally {
      progress?.end();
      done(unanswered);
    }
  }

  #tooLargeMessage(
    tool: string,
    tooLarge: { bytes: number; maxBytes: number; unattributed: boolean },
  ): string {
    const size = `${groupDigits(tooLarge.bytes)} bytes, over the ${groupDigits(tooLarge.maxBytes)} bytes cordon reads in one message from an upstream server`;
    const raise = `Ask for less at a time, or start cordon mcp with a larger --upstream-max-message <bytes>.`;
    if (tooLarge.unattributed) {
      return `While running ${tool}, the MCP server "${this.name}" sent a message of ${size}; it was not read, and since it named no request, every call waiting on that server failed with it (the server keeps running). ${raise}`;
    }
    return `The MCP server "${this.name}" answered ${tool} with a message of ${size}; the answer was not read (the server keeps running). ${raise}`;
  }

  /** Forgets the client of a remote server that can no longer be reached: the next call connects again. */
  #dropRemote(client: Client, reason: string): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#fail(reason);
    client.close().catch(() => {});
    this.#changed();
  }

  /** Stops the server's process (or leaves the remote server); later calls fail. */
  async close(): Promise<void> {
    this.#state = "closed";
    this.#unsubscribeRoots?.();
    this.#remote?.close();
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => {});
  }

  async #start(): Promise<void> {
    const timeoutMs = this.#options.startTimeoutMs;
    this.#state = "starting";
    this.#stderrTail = [];
    const spec = this.#spec;
    let transport: Awaited<ReturnType<RemoteConnector["transport"]>> | UpstreamStdioTransport;
    try {
      transport = "url" in spec ? await this.#remoteConnector().transport() : this.#stdioTransport(spec);
    } catch (error) {
      this.#fail(`it could not be reached: ${messageOf(error)}`);
      this.#connectionFailed();
      this.#options.log(`upstream ${this.name}: not available: ${this.#failure}`);
      this.#changed();
      return;
    }
    // Called before the client's own handling of each message (see UpstreamProgress).
    transport.onmessage = (message) => this.#progress.observe(message);
    const client = new Client(
      { name: "cordon", version: this.#options.clientVersion },
      { capabilities: UPSTREAM_CLIENT_CAPABILITIES },
    );
    this.#questions.install(client);
    client.onclose = () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      if (this.#isClosed()) return;
      const wasReady = this.#state === "ready";
      this.#fail(`it exited${this.#stderrNote()}`);
      if (wasReady) this.#options.log(`upstream ${this.name}: exited; its next call starts it again`);
      this.#changed();
    };
    this.#client = client;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.#relist(client));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notice) =>
      this.#notice(client, { type: "resource_updated", uri: notice.params.uri }),
    );
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () =>
      this.#notice(client, { type: "resources_changed" }),
    );
    client.setNotificationHandler(PromptListChangedNotificationSchema, () =>
      this.#notice(client, { type: "prompts_changed" }),
    );
    try {
      await client.connect(transport, { timeout: timeoutMs });
      this.#capabilities = client.getServerCapabilities();
      this.#acceptsToolTasks = acceptsToolTasks(this.#capabilities);
      // A server of only resources or prompts has no tools to list (and may not answer tools/list).
      this.#tools = this.#capabilities?.tools ? await listAllTools(client, timeoutMs) : [];
      for (const hook of this.#connectHooks) {
        await hook(client, { timeout: this.#options.callTimeoutMs }).catch((error: unknown) =>
          this.#options.log(`upstream ${this.name}: ${messageOf(error)}`),
        );
      }
    } catch (error) {
      if (this.#client === client) this.#client = undefined;
      await client.close().catch(() => {});
      // A remote server behind OAuth: once a person authorized cordon, it starts again with the tokens.
      if (this.#remote && "finishAuth" in transport && !this.#isClosed()) {
        this.#remote.authorizeLater(error, transport)?.then((authorized) => {
          if (!authorized) return;
          // A person just authorized cordon: no reason to wait.
          this.#nextConnectionAt = 0;
          void this.start();
        });
      }
      const reason = this.#startFailure(error);
      if (this.#isClosed()) return;
      this.#fail(reason);
      this.#connectionFailed();
      this.#options.log(`upstream ${this.name}: not available: ${reason}`);
      this.#changed();
      return;
    }
    if (this.#isClosed() || this.#client !== client) {
      await client.close().catch(() => {});
      return;
    }
    this.#state = "ready";
    this.#failure = undefined;
    this.#failedConnections = 0;
    this.#nextConnectionAt = 0;
    this.#options.log(`upstream ${this.name}: ready, ${this.#tools.length} tools`);
    this.#changed();
  }

  /** Passes a notice of the current client on; one of a client already replaced is stale. */
  #notice(client: Client, notice: UpstreamNotice): void {
    if (this.#client !== client) return;
    for (const listener of this.#notices) listener(notice);
  }

  /** Whether a relisting is running, and whether another change was announced meanwhile. */
  #relisting: { again: boolean } | undefined;

  /** Lists the tools again after a change; announcements during a listing make one more, not one each. */
  async #relist(client: Client): Promise<void> {
    if (this.#relisting) {
      this.#relisting.again = true;
      return;
    }
    this.#relisting = { again: false };
    try {
      await this.#listChanged(client);
      while (this.#relisting.again) {
        this.#relisting.again = false;
        await this.#listChanged(client);
      }
    } finally {
      this.#relisting = undefined;
    }
  }

  async #listChanged(client: Client): Promise<void> {
    try {
      const tools = await listAllTools(client, this.#options.callTimeoutMs);
      if (this.#client !== client) return;
      this.#tools = tools;
      this.#options.log(`upstream ${this.name}: its tools changed, now ${tools.length}`);
      this.#changed();
    } catch (error) {
      this.#options.log(`upstream ${this.name}: could not list its changed tools: ${messageOf(error)}`);
    }
  }

  #remoteConnector(): RemoteConnector {
    if (this.#remote === undefined) throw new Error(`"${this.name}" is not a remote server`);
    return this.#remote;
  }

  #stdioTransport(spec: CommandUpstreamSpec): UpstreamStdioTransport {
    return new UpstreamStdioTransport({
      command: spec.command,
      args: spec.args,
      // The command is one the user wrote, as in a shell: it gets cordon's environment (tokens included).
      env: this.#options.env ?? inheritedEnvironment(),
      maxMessageBytes: this.#options.maxMessageBytes,
      onStderr: (text) => this.#keepStderr(text),
      log: (line) => this.#options.log(`upstream ${this.name}: ${line}`),
    });
  }

  #startFailure(error: unknown): string {
    const remote = this.#remote?.startFailure(error);
    if (remote !== undefined) return remote;
    const code = (error as { code?: unknown }).code;
    const command = "command" in this.#spec ? this.#spec.command : this.#spec.url.href;
    if (code === "ENOENT") return `the command "${command}" was not found (is it installed and on PATH?)`;
    if (code === "EACCES") return `the command "${command}" is not executable`;
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      return `it did not answer within ${formatDuration(this.#options.startTimeoutMs)} of starting${this.#stderrNote()}`;
    }
    if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      return `it exited before it answered${this.#stderrNote()}`;
    }
    const tooLarge = oversizedDataOf(error);
    if (tooLarge) {
      return `it sent a message of ${groupDigits(tooLarge.bytes)} bytes, over the ${groupDigits(tooLarge.maxBytes)} bytes cordon reads in one message from an upstream server (raise it with --upstream-max-message <bytes>)`;
    }
    return `it could not be started: ${messageOf(error)}${this.#stderrNote()}`;
  }

  get #reconnectDelay(): { firstMs: number; maxMs: number } {
    return this.#options.reconnectDelay ?? RECONNECT_DELAY;
  }

  /** Whether a remote server failed to connect too recently to be tried again (see {@link RECONNECT_DELAY}). */
  #backingOff(): boolean {
    return (
      this.#remote !== undefined && this.#state === "failed" && performance.now() < this.#nextConnectionAt
    );
  }

  #connectionFailed(): void {
    if (!this.#remote) return;
    this.#failedConnections++;
    const { firstMs, maxMs } = this.#reconnectDelay;
    this.#nextConnectionAt =
      performance.now() + Math.min(maxMs, firstMs * 2 ** (this.#failedConnections - 1));
  }

  /** Read through a method: the state may change while a start awaits. */
  #isClosed(): boolean {
    return this.#state === "closed";
  }

  #fail(reason: string): void {
    this.#state = "failed";
    this.#failure = reason;
  }

  #keepStderr(text: string): void {
    const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
    this.#stderrTail = [...this.#stderrTail, ...lines].slice(-STDERR_TAIL_LINES);
  }

  #stderrNote(): string {
    if (this.#stderrTail.length === 0) return "";
    return ` (its stderr ended with: ${this.#stderrTail.map((line) => line.slice(0, 300)).join(" | ")})`;
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }
}

/** A remote server's request that never reached a server knowing cordon's session (see neverDelivered). */
class RemoteSessionLost extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Pages of tools an upstream may list. */
const MAX_UPSTREAM_TOOL_PAGES = 100;
/** Tools one upstream may offer. */
const MAX_UPSTREAM_TOOLS = 2_000;

/**
 * Every tool an upstream lists, page by page, within one deadline for the whole listing: a server that
 * pages for ever (or repeats a cursor, or offers more tools than any catalog has) is refused.
 */
async function listAllTools(client: Client, timeoutMs: number): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  const cursors = new Set<string>();
  const deadline = AbortSignal.timeout(timeoutMs);
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const listed = await client.listTools(cursor === undefined ? {} : { cursor }, {
      timeout: timeoutMs,
      signal: deadline,
    });
    tools.push(...listed.tools);
    if (tools.length > MAX_UPSTREAM_TOOLS) {
      throw new Error(
        `it lists more than ${MAX_UPSTREAM_TOOLS} tools, more than cordon takes from one server`,
      );
    }
    cursor = listed.nextCursor;
    if (cursor === undefined) return tools;
    if (cursors.has(cursor) || page >= MAX_UPSTREAM_TOOL_PAGES) {
      throw new Error(`its tool list did not end after ${page} pages (or repeated a page)`);
    }
    cursors.add(cursor);
  }
}

function inheritedEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return env;
}
