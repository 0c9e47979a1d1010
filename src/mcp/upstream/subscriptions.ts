/**
 * Resource subscriptions of cordon's client sessions, kept per session: cordon subscribes upstream once
 * per resource, however many sessions want it, unsubscribes there when the last of them unsubscribed or
 * left, makes them again on a restarted upstream, and tells of an update only the sessions that
 * subscribed to that resource.
 */

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { messageOf } from "../../../common/errors.js";
import type { UpstreamServer } from "./server.js";

/** The subscriptions of every session, by upstream and the upstream's own URI. */
export class ResourceSubscriptions<Session> {
  /** upstream name → its own URI → the sessions subscribed to it. */
  readonly #subscribed = new Map<string, Map<string, Set<Session>>>();
  readonly #log: (line: string) => void;

  constructor(log: (line: string) => void) {
    this.#log = log;
  }

  /** Subscribes `session` to `own` of `upstream`; the upstream is asked only for the first session. */
  async subscribe(
    session: Session,
    upstream: UpstreamServer,
    own: string,
    signal?: AbortSignal,
  ): Promise<void> {
    const existing = this.#sessionsOf(upstream.name, own);
    if (existing?.size) {
      existing.add(session);
      return;
    }
    await upstream.request(
      `subscribe to the resource ${own}`,
      (client, options) => client.subscribeResource({ uri: own }, options),
      signal,
    );
    let uris = this.#subscribed.get(upstream.name);
    if (!uris) {
      uris = new Map();
      this.#subscribed.set(upstream.name, uris);
    }
    const sessions = uris.get(own) ?? new Set();
    sessions.add(session);
    uris.set(own, sessions);
  }

  /** Ends `session`'s subscription to `own` of `upstream` (none: nothing happens). */
  unsubscribe(session: Session, upstream: UpstreamServer, own: string): void {
    const sessions = this.#sessionsOf(upstream.name, own);
    if (sessions?.delete(session) && sessions.size === 0) this.#release(upstream, own);
  }

  /** Ends every subscription of a session that left. */
  drop(session: Session, upstreams: ReadonlyMap<string, UpstreamServer>): void {
    for (const [name, uris] of this.#subscribed) {
      const upstream = upstreams.get(name);
      for (const [own, sessions] of uris) {
        if (sessions.delete(session) && sessions.size === 0 && upstream) this.#release(upstream, own);
      }
    }
  }

  /** The sessions subscribed to `own` of the upstream named `upstream`. */
  sessionsOf(upstream: string, own: string): readonly Session[] {
    return [...(this.#sessionsOf(upstream, own) ?? [])];
  }

  /** Makes every subscription to `upstream` again on its new connection `client` (it knows none of them). */
  async renew(upstream: UpstreamServer, client: Client, options: { timeout: number }): Promise<void> {
    for (const own of this.#subscribed.get(upstream.name)?.keys() ?? []) {
      await client
        .subscribeResource({ uri: own }, options)
        .catch((error: unknown) =>
          this.#log(
            `upstream ${upstream.name}: could not subscribe again to the resource ${own}: ${messageOf(error)}`,
          ),
        );
    }
  }

  #sessionsOf(upstream: string, own: string): Set<Session> | undefined {
    return this.#subscribed.get(upstream)?.get(own);
  }

  /** No session wants `own` any more: the upstream (when it runs) is told. */
  #release(upstream: UpstreamServer, own: string): void {
    this.#subscribed.get(upstream.name)?.delete(own);
    if (upstream.state !== "ready") return;
    upstream
      .request(`unsubscribe from the resource ${own}`, (client, options) =>
        client.unsubscribeResource({ uri: own }, options),
      )
      .catch((error: unknown) => this.#log(`upstream ${upstream.name}: ${messageOf(error)}`));
  }
}
