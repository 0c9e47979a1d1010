/**
 * One POST to a fixed service (a search API) for the search backends: a timeout, the caller's signal,
 * a capped body, and failures as messages the model can read. The service's address comes from the
 * host's configuration, never from the model, so the SSRF guard does not apply here.
 */
import type { Agent } from "undici";
import { ToolError, UserError } from "../../../common/errors.js";
import { formatDuration } from "../../dispatch/failures.js";
import { readCapped } from "../body.js";
import { createAgent } from "../undici-agent.js";

/** The largest service response read, in bytes. */
const MAX_SERVICE_RESPONSE_BYTES = 4_000_000;

/** A service's answer. */
export interface ServiceResponse {
  status: number;
  text: string;
}

/** A keep-alive connection pool to one service, safe for concurrent requests. */
export class ServiceClient {
  readonly #agent: Agent = createAgent({ connections: 16 });
  readonly #base: URL;
  readonly #service: string;
  readonly #timeout: number;

  constructor(service: string, baseUrl: string, timeout: number) {
    let base: URL;
    try {
      base = new URL(baseUrl);
    } catch {
      throw new UserError(
        `${service}: baseUrl must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}.`,
      );
    }
    if (base.protocol !== "http:" && base.protocol !== "https:") {
      throw new UserError(`${service}: baseUrl must be an http:// or https:// URL, got ${base.protocol}//.`);
    }
    if (!(timeout > 0)) throw new UserError(`${service}: timeout must be a number of milliseconds > 0.`);
    this.#base = base;
    this.#service = service;
    this.#timeout = timeout;
  }

  /** POSTs `body` to `path` (relative to the base URL) and returns the status and text of the answer. */
  async post(
    path: string,
    body: string,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<ServiceResponse> {
    const url = new URL(path, this.#base.href.endsWith("/") ? this.#base : `${this.#base.href}/`);
    const deadline = AbortSignal.timeout(this.#timeout);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    try {
      const response = await this.#agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: "POST",
        headers: { "accept-encoding": "gzip, deflate, br", ...headers },
        body,
        signal: combined,
      });
      const { bytes } = await readCapped(
        response.body,
        headerValue(response.headers["content-encoding"]),
        MAX_SERVICE_RESPONSE_BYTES,
      );
      return { status: response.statusCode, text: bytes.toString("utf8") };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof ToolError) throw error;
      if (deadline.aborted)
        throw new ToolError(`${this.#service} did not answer within ${formatDuration(this.#timeout)}.`);
      const message = error instanceof Error ? error.message : String(error);
      throw new ToolError(`${this.#service} could not be reached: ${message}`);
    }
  }

  /** Closes the connections. */
  async close(): Promise<void> {
    await this.#agent.close();
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
