/**
 * What a run_code request can do towards the MCP client that made it while the run goes on: report
 * progress, send log messages, and pass on the questions an upstream server asks (elicitation, sampling,
 * roots). The link travels with the run as the dispatch's deps, so the tools its code calls (upstream
 * tools) find it in their context, whichever environment runs the code.
 */

import type {
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitResult,
  ListRootsResult,
  LoggingLevel,
} from "@modelcontextprotocol/sdk/types.js";
import type { TenantKey } from "./tenant.js";

/** Something cordon can ask its client for on behalf of an upstream server. */
export type ClientAsk = "elicitation" | "sampling" | "roots";

/** What one run_code request (or, without a request, one client connection) can do towards its client. */
export interface ClientLink {
  /** The client connection: the same object for every link of one connection. */
  readonly client: object;
  /** Whose learnt data the request adds to and is shown (see tenant.ts): by default, the connection. */
  readonly tenant: TenantKey;
  /** Whether the client declared it can answer `ask` (form-mode elicitation, sampling, roots). */
  supports(ask: ClientAsk): boolean;
  /** Reports progress on the request, when its client asked for progress (else does nothing). */
  progress(message: string): void;
  /** Sends a log message (`notifications/message`), when the client's log level lets it through. */
  log(level: LoggingLevel, text: string): void;
  /** Asks the client's person to fill in a form. */
  elicit(params: ElicitRequestFormParams, signal: AbortSignal): Promise<ElicitResult>;
  /** Asks the client's model for a message. */
  createMessage(params: CreateMessageRequestParams, signal: AbortSignal): Promise<CreateMessageResult>;
  /** Asks the client for its roots. */
  listRoots(signal: AbortSignal): Promise<ListRootsResult>;
}

const LINK = Symbol("cordon.clientLink");

/** The dispatch deps that carry `link` to every call of a run (nested calls inherit their run's deps). */
export function linkDeps(link: ClientLink): { readonly [LINK]: ClientLink } {
  return { [LINK]: link };
}

/** The link a tool's `ctx.deps` carries, when the call was made for an MCP client's request. */
export function clientLinkOf(deps: unknown): ClientLink | undefined {
  if (typeof deps !== "object" || deps === null || !(LINK in deps)) return undefined;
  return (deps as { [LINK]: ClientLink })[LINK];
}

/**
 * The clients connected now (one link each, not tied to a request), for what an upstream asks outside
 * any call (its roots), and who to tell when their roots change.
 */
export class ClientDirectory {
  readonly #clients = new Set<ClientLink>();
  readonly #listeners = new Set<() => void>();

  /** Adds a connected client; returns its removal. Either changes whose roots an upstream may see. */
  add(link: ClientLink): () => void {
    this.#clients.add(link);
    if (link.supports("roots")) this.rootsChanged();
    return () => {
      if (this.#clients.delete(link) && link.supports("roots")) this.rootsChanged();
    };
  }

  /** The connected clients that declared roots. */
  withRoots(): ClientLink[] {
    return [...this.#clients].filter((link) => link.supports("roots"));
  }

  /** Tells the listeners that the roots a client offers changed. */
  rootsChanged(): void {
    for (const listener of this.#listeners) listener();
  }

  /** Calls `listener` whenever roots change. Returns an unsubscribe. */
  onRootsChanged(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
