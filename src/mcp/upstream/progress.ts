/**
 * An upstream's progress notifications for the calls cordon makes for an MCP client's run, passed on to
 * that client naming the upstream; bounded in rate and length, since the upstream decides how many it
 * sends. cordon gives each such call a progress token of its own and reads the notifications off the
 * transport as they arrive: the SDK's own `onprogress` drops the ones that arrive together with the
 * call's result (it handles them a tick later, after it forgot the token).
 */

import {
  type JSONRPCMessage,
  type Progress,
  ProgressNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ClientLink } from "../client-link.js";

/** Progress notifications of one upstream call passed on per second at most (and at most this many at once); the rest are dropped. */
export const MAX_FORWARDED_PROGRESS_PER_SECOND = 10;

/** The longest message of an upstream's progress passed on, in characters. */
export const MAX_FORWARDED_PROGRESS_CHARS = 500;

/** The progress tokens of one upstream's calls in flight, and where their progress goes. */
export class UpstreamProgress {
  readonly #routes = new Map<string, (progress: Progress) => void>();
  #next = 0;

  /** A token for one call, whose progress goes to `forward` until `end()`. */
  open(forward: (progress: Progress) => void): { token: string; end(): void } {
    this.#next += 1;
    const token = `cordon-${this.#next}`;
    this.#routes.set(token, forward);
    return { token, end: () => this.#routes.delete(token) };
  }

  /** Sees each message from the upstream as it arrives, before the SDK: passes on progress for an open token. */
  observe(message: JSONRPCMessage): void {
    if (!("method" in message) || message.method !== "notifications/progress") return;
    const parsed = ProgressNotificationSchema.safeParse(message);
    if (!parsed.success) return;
    const { progressToken, ...progress } = parsed.data.params;
    this.#routes.get(String(progressToken))?.(progress);
  }
}

/** What to call with each progress notification the upstream sends for a call of `tool`. */
export function forwardProgress(
  link: ClientLink,
  server: string,
  tool: string,
): (progress: Progress) => void {
  let tokens = MAX_FORWARDED_PROGRESS_PER_SECOND;
  let last = performance.now();
  return ({ progress, total, message }) => {
    const now = performance.now();
    tokens = Math.min(
      MAX_FORWARDED_PROGRESS_PER_SECOND,
      tokens + ((now - last) / 1000) * MAX_FORWARDED_PROGRESS_PER_SECOND,
    );
    last = now;
    if (tokens < 1) return;
    tokens -= 1;
    const said = message === undefined ? "" : `${cut(message)} `;
    const amount = total === undefined ? `${progress}` : `${progress} of ${total}`;
    link.progress(`The MCP server "${server}" reports on ${tool}: ${said}(${amount})`);
  };
}

function cut(text: string): string {
  const flat = text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, " ");
  return flat.length <= MAX_FORWARDED_PROGRESS_CHARS
    ? flat
    : `${flat.slice(0, MAX_FORWARDED_PROGRESS_CHARS)}…`;
}
