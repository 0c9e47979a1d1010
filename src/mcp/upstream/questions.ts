/**
 * The questions an upstream server asks cordon as its client (elicitation, sampling, roots), passed on to
 * the one MCP client they can be for: the client whose run_code call made the upstream's calls in flight.
 * A request over stdio does not say which call it comes from, so cordon ties it to a call by time, and
 * only when no other client's call could have made it: none is in flight, none ran alongside the calls
 * in flight (its question may come late, after it ended), and none ended without the server's answer
 * (cancelled, timed out: it may still run there) within the server's call timeout. When that cannot be
 * told, or that client cannot answer, the upstream gets a clear error instead: cordon never guesses whom
 * to ask. Questions passed on are capped per call and per run.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { messageOf } from "../../../common/errors.js";
import { groupDigits } from "../../../common/numbers.js";
import { visibleText } from "../../dispatch/preview.js";
import type { ClientAsk, ClientDirectory, ClientLink } from "../client-link.js";

/** The longest elicitation message passed on, in characters; a longer one is cut, saying so. */
const MAX_ELICITATION_MESSAGE_CHARS = 10_000;

/**
 * How many elicitation and sampling requests an upstream may pass on during one of its calls; later ones
 * are refused: a server cannot keep a person (or the client's model) answering without end.
 */
export const MAX_UPSTREAM_QUESTIONS_PER_CALL = 10;

/**
 * How many elicitation and sampling requests upstream servers may pass on during one run_code call, all
 * its upstream calls together; later ones are refused, so that a run making many calls cannot put more
 * than this before a person either.
 */
export const MAX_UPSTREAM_QUESTIONS_PER_RUN = 20;

/** Questions passed on during each run, by its link (one per run_code request), across every upstream. */
const askedInRun = new WeakMap<ClientLink, number>();

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
  /** Whether a call of another client (or of none) could ask at some moment of this call's life. */
  shared: boolean;
}

/** A call that ended without the server's answer: the server may still run it, and ask for it. */
interface Unanswered {
  client: object | undefined;
  /** Until when (performance.now()) it is taken to be running still. */
  until: number;
}

/** Options of {@link UpstreamQuestions}. */
export interface UpstreamQuestionsOptions {
  /**
   * How long a call that ended without the server's answer (cancelled, timed out) is taken to run on at
   * the server, in ms: the server's call timeout.
   */
  unansweredMs: number;
}

/** The calls in flight on one upstream and the clients they are for, and the handlers of its questions. */
export class UpstreamQuestions {
  readonly #server: string;
  readonly #unansweredMs: number;
  readonly #calls = new Set<InFlight>();
  #unanswered: Unanswered[] = [];
  /** Questions passed on to a client, aborted once none of that client's calls is in flight. */
  readonly #waiting = new Map<AbortController, object>();
  #clients: ClientDirectory | undefined;

  /** `server` is the upstream's name, as people see it. */
  constructor(server: string, options: UpstreamQuestionsOptions) {
    this.#server = server;
    this.#unansweredMs = options.unansweredMs;
  }

  /** The connected clients, for roots asked for outside any call. */
  useClients(clients: ClientDirectory): void {
    this.#clients = clients;
  }

  /**
   * Notes a call in flight for `link` (undefined: a call made for no MCP client); returns its end, told
   * whether the call may still run at the server (it ended without the server's answer).
   */
  track(link: ClientLink | undefined): (unanswered: boolean) => void {
    const client = link?.client;
    const call: InFlight = { link, asked: 0, shared: false };
    for (const other of this.#calls) {
      if (other.link?.client === client) continue;
      other.shared = true;
      call.shared = true;
    }
    if (this.#liveUnanswered().some((other) => other.client !== client)) call.shared = true;
    this.#calls.add(call);
    return (unanswered) => {
      this.#calls.delete(call);
      if (unanswered) this.#unanswered.push({ client, until: performance.now() + this.#unansweredMs });
      for (const [controller, askedOf] of this.#waiting) {
        if (![...this.#calls].some((other) => other.link?.client === askedOf)) {
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

  /** The calls that ended without the server's answer and may still run there. */
  #liveUnanswered(): Unanswered[] {
    const now = performance.now();
    this.#unanswered = this.#unanswered.filter((call) => call.until > now);
    return this.#unanswered;
  }

  /**
   * The client a question is for: the one whose calls are in flight, when no other client's call could
   * have asked it. Roots may be asked for at any time: with no call in flight, they are the roots of the
   * only connected client that offers roots.
   */
  #linkFor(ask: ClientAsk): ClientLink {
    const calls = [...this.#calls];
    const clients = new Set(calls.map((call) => call.link?.client));
    const cannotTell = `cordon cannot tell which of its MCP clients this ${ask} request is for`;
    if (clients.size > 1) {
      throw new Refusal(
        `${cannotTell}: calls of this server from ${clients.size} clients are in flight, and cordon asks nobody rather than guess.`,
      );
    }
    const link = calls[0]?.link;
    if (calls.length > 0 && !link) {
      throw new Refusal(
        `cordon cannot pass this ${ask} request on: the call in flight was not made for an MCP client.`,
      );
    }
    if (link && this.#liveUnanswered().some((call) => call.client !== link.client)) {
      throw new Refusal(
        `${cannotTell}: a call of this server for another client ended without its answer (cancelled or timed out) and may still be running, and cordon asks nobody rather than guess.`,
      );
    }
    if (calls.some((call) => call.shared)) {
      throw new Refusal(
        `${cannotTell}: a call of this server for another client ran alongside this client's call, and its questions may come after it ended; cordon asks nobody rather than guess.`,
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

  /**
   * Counts a question against the call in flight it is asked during and against that call's run;
   * refuses it past either cap.
   */
  #count(link: ClientLink, ask: ClientAsk): void {
    const call = [...this.#calls].find((inFlight) => inFlight.link === link);
    if (!call) return;
    if (call.asked >= MAX_UPSTREAM_QUESTIONS_PER_CALL) {
      throw new Refusal(
        `cordon refused this ${ask} request: the MCP server "${this.#server}" already asked ${MAX_UPSTREAM_QUESTIONS_PER_CALL} questions (elicitation or sampling) during this call, the most cordon passes on for one call. Answer the call with what you have.`,
      );
    }
    const inRun = askedInRun.get(link) ?? 0;
    if (inRun >= MAX_UPSTREAM_QUESTIONS_PER_RUN) {
      throw new Refusal(
        `cordon refused this ${ask} request: it already passed on ${MAX_UPSTREAM_QUESTIONS_PER_RUN} questions (elicitation or sampling) from upstream servers during this run_code call, the most cordon passes on for one run. Answer the call with what you have.`,
      );
    }
    call.asked++;
    askedInRun.set(link, inRun + 1);
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
