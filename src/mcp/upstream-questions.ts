/**
 * The questions an upstream server asks cordon as its client (elicitation, sampling, roots), passed on to
 * the one MCP client they can be for: the client whose run_code call made the upstream's calls in flight.
 * When that cannot be told (no call in flight, or calls of several clients), or that client cannot
 * answer, the upstream gets a clear error instead: cordon never guesses whom to ask.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { visibleText } from "../dispatch/preview.js";
import { messageOf } from "../errors.js";
import { groupDigits } from "../numbers.js";
import type { ClientAsk, ClientDirectory, ClientLink } from "./client-link.js";

/** The longest elicitation message passed on, in characters; a longer one is cut, saying so. */
export const MAX_ELICITATION_MESSAGE_CHARS = 10_000;

/**
 * How many elicitation and sampling requests an upstream may pass on during one of its calls; later ones
 * are refused: a server cannot keep a person (or the client's model) answering without end.
 */
export const MAX_UPSTREAM_QUESTIONS_PER_CALL = 10;

/** What cordon's side of the connection declares it can answer for an upstream. */
export const UPSTREAM_CLIENT_CAPABILITIES = {
  elicitation: { form: {} },
  sampling: {},
  roots: { listChanged: true },
} as const;

const WHAT: Record<ClientAsk, string> = {
  elicitation: "form-mode elicitation (asking its user)",
  sampling: "sampling (asking its model for a message)",
  roots: "roots",
};

/** An error the upstream receives as it is (a JSON-RPC error with this code and message). */
class Refusal extends Error {
  readonly code: number;
  constructor(message: string, code: number = ErrorCode.InvalidRequest) {
    super(message);
    this.code = code;
  }
}

interface InFlight {
  link: ClientLink | undefined;
  /** Elicitation and sampling requests passed on during this call. */
  asked: number;
}

/** The calls in flight on one upstream and the clients they are for, and the handlers of its questions. */
export class UpstreamQuestions {
  readonly #server: string;
  readonly #calls = new Set<InFlight>();
  /** Questions passed on to a client, aborted once none of that client's calls is in flight. */
  readonly #waiting = new Map<AbortController, object>();
  #clients: ClientDirectory | undefined;

  /** `server` is the upstream's name, as people see it. */
  constructor(server: string) {
    this.#server = server;
  }

  /** The connected clients, for roots asked for outside any call. */
  useClients(clients: ClientDirectory): void {
    this.#clients = clients;
  }

  /** Notes a call in flight for `link` (undefined: a call made for no MCP client); returns its end. */
  track(link: ClientLink | undefined): () => void {
    const call: InFlight = { link, asked: 0 };
    this.#calls.add(call);
    return () => {
      this.#calls.delete(call);
      for (const [controller, client] of this.#waiting) {
        if (![...this.#calls].some((other) => other.link?.client === client)) {
          controller.abort(new Error("the calls it was asked during have ended"));
        }
      }
    };
  }

  /** Answers the upstream's questions on `client` (which must declare {@link UPSTREAM_CLIENT_CAPABILITIES}). */
  install(client: Client): void {
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const params = request.params;
      if (params.mode === "url") {
        throw new Refusal("cordon passes on only form-mode elicitation requests.");
      }
      const link = this.#linkFor("elicitation");
      this.#count(link, "elicitation");
      const message = `The MCP server "${this.#server}" asks: ${shown(params.message)}`;
      return this.#ask(link, "elicitation", extra.signal, (signal) =>
        link.elicit({ mode: "form", message, requestedSchema: params.requestedSchema }, signal),
      );
    });
    client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
      const link = this.#linkFor("sampling");
      this.#count(link, "sampling");
      // Task-augmented sampling is not declared; the rest goes to the client's model as it was asked.
      const { task: _task, ...params } = request.params;
      return this.#ask(link, "sampling", extra.signal, (signal) => link.createMessage(params, signal));
    });
    client.setRequestHandler(ListRootsRequestSchema, async (_request, extra) => {
      const link = this.#linkFor("roots");
      return this.#ask(link, "roots", extra.signal, (signal) => link.listRoots(signal));
    });
  }

  /**
   * The client a question is for: the one whose calls are in flight. Roots may be asked for at any
   * time: with no call in flight, they are the roots of the only connected client that offers roots.
   */
  #linkFor(ask: ClientAsk): ClientLink {
    const calls = [...this.#calls];
    const clients = new Set(calls.map((call) => call.link?.client));
    if (clients.size > 1) {
      throw new Refusal(
        `cordon cannot tell which of its MCP clients this ${ask} request is for: calls of this server from ${clients.size} clients are in flight, and cordon asks nobody rather than guess.`,
      );
    }
    const link = calls[0]?.link;
    if (calls.length > 0 && !link) {
      throw new Refusal(
        `cordon cannot pass this ${ask} request on: the call in flight was not made for an MCP client.`,
      );
    }
    if (link) return link;
    if (ask !== "roots") {
      throw new Refusal(
        `cordon cannot pass this ${ask} request on: no call of this server is in flight, so there is no MCP client to ask.`,
      );
    }
    const offering = this.#clients?.withRoots() ?? [];
    if (offering.length === 1) return offering[0]!;
    throw new Refusal(
      offering.length === 0
        ? "cordon has no roots to give: no call of this server is in flight and no connected MCP client offers roots."
        : `cordon cannot tell whose roots to give: no call of this server is in flight and ${offering.length} connected MCP clients offer roots.`,
    );
  }

  /** Counts a question against the call in flight it is asked during; refuses it past the cap. */
  #count(link: ClientLink, ask: ClientAsk): void {
    const call = [...this.#calls].find((inFlight) => inFlight.link?.client === link.client);
    if (!call) return;
    if (call.asked >= MAX_UPSTREAM_QUESTIONS_PER_CALL) {
      throw new Refusal(
        `cordon refused this ${ask} request: the MCP server "${this.#server}" already asked ${MAX_UPSTREAM_QUESTIONS_PER_CALL} questions (elicitation or sampling) during this call, the most cordon passes on for one call. Answer the call with what you have.`,
      );
    }
    call.asked++;
  }

  /** Passes a question on to `link`'s client, for as long as the upstream waits and a call of that client is in flight. */
  async #ask<T>(
    link: ClientLink,
    ask: ClientAsk,
    upstreamSignal: AbortSignal,
    send: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    if (!link.supports(ask)) {
      throw new Refusal(`cordon's MCP client does not support ${WHAT[ask]}, so it cannot be asked.`);
    }
    const calls = new AbortController();
    const tied = [...this.#calls].some((call) => call.link?.client === link.client);
    if (tied) this.#waiting.set(calls, link.client);
    try {
      return await send(AbortSignal.any([upstreamSignal, calls.signal]));
    } catch (error) {
      const code = error instanceof McpError ? error.code : ErrorCode.InternalError;
      // The SDK puts "MCP error <code>: " before a client's message; the upstream's SDK adds its own.
      const why = messageOf(error).replace(/^(MCP error -?\d+: )+/, "");
      throw new Refusal(`cordon's MCP client gave no answer to the ${ask} request: ${why}`, code);
    } finally {
      this.#waiting.delete(calls);
    }
  }
}

/** An upstream's message as the person sees it: characters that could hide or spoof text made visible, and cut when long. */
function shown(message: string): string {
  const visible = visibleText(message, { keepNewlines: true, keepSpaces: true });
  if (visible.length <= MAX_ELICITATION_MESSAGE_CHARS) return visible;
  return `${visible.slice(0, MAX_ELICITATION_MESSAGE_CHARS)}… (cut: the message has ${groupDigits(visible.length)} characters)`;
}
