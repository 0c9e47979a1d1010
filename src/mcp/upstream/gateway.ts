/**
 * The upstreams' resources, resource templates, prompts and completions, as one server offers them to
 * cordon's clients: each named under its upstream (resource-names.ts), each request routed back to the
 * upstream that owns it, lists paged one upstream page at a time, and resource subscriptions kept per
 * client session (subscriptions.ts).
 */

import type {
  CompleteRequestParams,
  CompleteResult,
  GetPromptResult,
  Prompt,
  PromptMessage,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { messageOf } from "../../../common/errors.js";
import {
  namespacedPrompt,
  namespacedUri,
  parseNamespacedPrompt,
  parseNamespacedUri,
  UPSTREAM_URI_PREFIX,
  type UpstreamRef,
} from "./resource-names.js";
import type { UpstreamNotice, UpstreamServer } from "./server.js";
import { ResourceSubscriptions } from "./subscriptions.js";

/** MCP's error code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/** One client session, as the gateway tells it about changes. */
export interface GatewaySession {
  resourceUpdated(uri: string): void;
  resourcesChanged(): void;
  promptsChanged(): void;
}

/** One page of a list, and the cursor of the next. */
interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/** What the upstreams offer together, as cordon declares it to a client. */
export type GatewayCapabilities = Pick<ServerCapabilities, "resources" | "prompts" | "completions">;

/** The upstreams' resources and prompts behind one namespace. */
export class UpstreamGateway {
  readonly #upstreams: ReadonlyMap<string, UpstreamServer>;
  readonly #sessions = new Set<GatewaySession>();
  readonly #subscriptions: ResourceSubscriptions<GatewaySession>;
  readonly #log: (line: string) => void;
  readonly #unsubscribe: (() => void)[];

  constructor(upstreams: readonly UpstreamServer[], log: (line: string) => void = () => {}) {
    this.#upstreams = new Map(upstreams.map((upstream) => [upstream.name, upstream]));
    this.#log = log;
    this.#subscriptions = new ResourceSubscriptions(log);
    this.#unsubscribe = upstreams.flatMap((upstream) => [
      upstream.onNotice((notice) => this.#onNotice(upstream, notice)),
      upstream.onConnected(async (client, options) => {
        await this.#subscriptions.renew(upstream, client, options);
        // Its lists may have changed (or, at its first connection, appeared): clients list them again.
        const offers = upstream.capabilities;
        if (offers?.resources) this.#onNotice(upstream, { type: "resources_changed" });
        if (offers?.prompts) this.#onNotice(upstream, { type: "prompts_changed" });
      }),
    ]);
  }

  /**
   * What to declare to a client connecting now: each capability some started upstream offers, and all
   * three while a remote upstream has not connected yet (what it offers is not known before).
   */
  capabilities(): GatewayCapabilities {
    const upstreams = [...this.#upstreams.values()];
    const offered = upstreams.map((upstream) => upstream.capabilities ?? {});
    // A remote upstream not connected yet may offer them once it is: declared, its lists join later.
    if (upstreams.some((upstream) => upstream.offersNotKnown)) {
      offered.push({ resources: {}, prompts: {}, completions: {} });
    }
    const resources = offered.some((capabilities) => capabilities.resources);
    const subscribe = offered.some((capabilities) => capabilities.resources?.subscribe === true);
    return {
      ...(resources ? { resources: { listChanged: true, ...(subscribe ? { subscribe: true } : {}) } } : {}),
      ...(offered.some((capabilities) => capabilities.prompts) ? { prompts: { listChanged: true } } : {}),
      ...(offered.some((capabilities) => capabilities.completions) ? { completions: {} } : {}),
    };
  }

  /** Adds a client session (told of changes and updates); returns its removal, which ends its subscriptions. */
  attach(session: GatewaySession): () => void {
    this.#sessions.add(session);
    return () => {
      this.#sessions.delete(session);
      this.#subscriptions.drop(session, this.#upstreams);
    };
  }

  async listResources(cursor: string | undefined, signal?: AbortSignal): Promise<Page<Resource>> {
    return this.#pageAcross("resources", cursor, async (upstream, own) => {
      const page = await upstream.request(
        "list its resources",
        (client, options) => client.listResources(own === undefined ? {} : { cursor: own }, options),
        signal,
      );
      const items = page.resources.map((resource) => ({
        ...resource,
        uri: namespacedUri(upstream.name, resource.uri),
      }));
      return { items, ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) };
    });
  }

  async listResourceTemplates(
    cursor: string | undefined,
    signal?: AbortSignal,
  ): Promise<Page<ResourceTemplate>> {
    return this.#pageAcross("resources", cursor, async (upstream, own) => {
      const page = await upstream.request(
        "list its resource templates",
        (client, options) => client.listResourceTemplates(own === undefined ? {} : { cursor: own }, options),
        signal,
      );
      const items = page.resourceTemplates.map((template) => ({
        ...template,
        uriTemplate: namespacedUri(upstream.name, template.uriTemplate),
      }));
      return { items, ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) };
    });
  }

  async readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    const { upstream, own } = this.#resourceOwner(uri);
    const result = await upstream.request(
      `read the resource ${own}`,
      (client, options) => client.readResource({ uri: own }, options),
      signal,
    );
    return {
      ...result,
      contents: result.contents.map((content) => ({
        ...content,
        uri: namespacedUri(upstream.name, content.uri),
      })),
    };
  }

  async subscribe(session: GatewaySession, uri: string, signal?: AbortSignal): Promise<void> {
    const { upstream, own } = this.#resourceOwner(uri);
    if (upstream.capabilities?.resources?.subscribe !== true) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `The MCP server "${upstream.name}" does not offer subscriptions to its resources, so ${uri} cannot be subscribed to; read it again instead.`,
      );
    }
    await this.#subscriptions.subscribe(session, upstream, own, signal);
    // A session that left while its subscription was being made keeps none.
    if (!this.#sessions.has(session)) this.#subscriptions.unsubscribe(session, upstream, own);
  }

  async unsubscribe(session: GatewaySession, uri: string): Promise<void> {
    const { upstream, own } = this.#resourceOwner(uri);
    this.#subscriptions.unsubscribe(session, upstream, own);
  }

  async listPrompts(cursor: string | undefined, signal?: AbortSignal): Promise<Page<Prompt>> {
    return this.#pageAcross("prompts", cursor, async (upstream, own) => {
      const page = await upstream.request(
        "list its prompts",
        (client, options) => client.listPrompts(own === undefined ? {} : { cursor: own }, options),
        signal,
      );
      const items = page.prompts.map((prompt) => ({
        ...prompt,
        name: namespacedPrompt(upstream.name, prompt.name),
      }));
      return { items, ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) };
    });
  }

  async getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    signal?: AbortSignal,
  ): Promise<GetPromptResult> {
    const { upstream, own } = this.#promptOwner(name);
    const result = await upstream.request(
      `get the prompt ${own}`,
      (client, options) => client.getPrompt({ name: own, ...(args ? { arguments: args } : {}) }, options),
      signal,
    );
    return {
      ...result,
      messages: result.messages.map((message) => namespaceMessage(upstream.name, message)),
    };
  }

  async complete(params: CompleteRequestParams, signal?: AbortSignal): Promise<CompleteResult> {
    const { ref } = params;
    const { upstream, own } =
      ref.type === "ref/prompt" ? this.#promptOwner(ref.name) : this.#resourceOwner(ref.uri);
    // An upstream that offers no completions has none to suggest.
    if (!upstream.capabilities?.completions) return { completion: { values: [] } };
    const ownRef = ref.type === "ref/prompt" ? { ...ref, name: own } : { ...ref, uri: own };
    return upstream.request(
      `complete ${ref.type === "ref/prompt" ? "the prompt" : "the resource template"} ${own}`,
      (client, options) => client.complete({ ...params, ref: ownRef }, options),
      signal,
    );
  }

  /** Stops listening to the upstreams. */
  close(): void {
    for (const off of this.#unsubscribe) off();
  }

  #resourceOwner(uri: string): { upstream: UpstreamServer; own: string } {
    const ref = parseNamespacedUri(uri);
    const upstream = ref && this.#upstreams.get(ref.upstream);
    if (!ref || !upstream) {
      throw new McpError(
        RESOURCE_NOT_FOUND,
        `Resource not found: ${JSON.stringify(uri)}. cordon names each upstream's resources ${UPSTREAM_URI_PREFIX}<upstream>/<the upstream's own URI>${ref ? `, and there is no upstream named ${JSON.stringify(ref.upstream)} (there are: ${this.#names()})` : ""}; use a URI from resources/list or a template from resources/templates/list.`,
      );
    }
    return { upstream, own: ref.own };
  }

  #promptOwner(name: string): { upstream: UpstreamServer; own: string } {
    const ref: UpstreamRef | undefined = parseNamespacedPrompt(name);
    const upstream = ref && this.#upstreams.get(ref.upstream);
    if (!ref || !upstream) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown prompt ${JSON.stringify(name)}. cordon names each upstream's prompts <upstream>__<the upstream's own name>${ref ? `, and there is no upstream named ${JSON.stringify(ref.upstream)} (there are: ${this.#names()})` : ""}; use a name from prompts/list.`,
      );
    }
    return { upstream, own: ref.own };
  }

  #names(): string {
    return [...this.#upstreams.keys()].join(", ") || "none";
  }

  /**
   * One page of a list across the upstreams that offer `kind`: the upstreams in order, each page by page
   * as it pages; cordon's cursor names the upstream and that upstream's own cursor.
   */
  async #pageAcross<T>(
    kind: "resources" | "prompts",
    cursor: string | undefined,
    page: (upstream: UpstreamServer, own: string | undefined) => Promise<Page<T>>,
  ): Promise<Page<T>> {
    const offering = [...this.#upstreams.values()].filter((upstream) => upstream.capabilities?.[kind]);
    let at = 0;
    let own: string | undefined;
    if (cursor !== undefined) {
      const position = decodeCursor(cursor);
      at = offering.findIndex((upstream) => upstream.name === position?.upstream);
      if (!position || at === -1) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `The cursor ${JSON.stringify(cursor)} is not one cordon gave out (or its upstream is gone); list again without a cursor.`,
        );
      }
      own = position.cursor;
    }
    for (; at < offering.length; at++, own = undefined) {
      const upstream = offering[at]!;
      let listed: Page<T>;
      try {
        listed = await page(upstream, own);
      } catch (error) {
        // One upstream that cannot answer now leaves the others' lists whole; it is logged.
        if (own !== undefined) throw error;
        this.#log(`upstream ${upstream.name}: left out of a ${kind} list: ${messageOf(error)}`);
        continue;
      }
      const next =
        listed.nextCursor !== undefined
          ? encodeCursor(upstream.name, listed.nextCursor)
          : at + 1 < offering.length
            ? encodeCursor(offering[at + 1]!.name)
            : undefined;
      return { items: listed.items, ...(next === undefined ? {} : { nextCursor: next }) };
    }
    return { items: [] };
  }

  #onNotice(upstream: UpstreamServer, notice: UpstreamNotice): void {
    switch (notice.type) {
      case "resource_updated": {
        const uri = namespacedUri(upstream.name, notice.uri);
        for (const session of this.#subscriptions.sessionsOf(upstream.name, notice.uri)) {
          session.resourceUpdated(uri);
        }
        return;
      }
      case "resources_changed":
        for (const session of this.#sessions) session.resourcesChanged();
        return;
      case "prompts_changed":
        for (const session of this.#sessions) session.promptsChanged();
        return;
    }
  }
}

/** A prompt message's resource URIs, namespaced so the client can read them through cordon. */
function namespaceMessage(upstream: string, message: PromptMessage): PromptMessage {
  const { content } = message;
  if (content.type === "resource") {
    return {
      ...message,
      content: {
        ...content,
        resource: { ...content.resource, uri: namespacedUri(upstream, content.resource.uri) },
      },
    };
  }
  if (content.type === "resource_link") {
    return { ...message, content: { ...content, uri: namespacedUri(upstream, content.uri) } };
  }
  return message;
}

function encodeCursor(upstream: string, cursor?: string): string {
  return Buffer.from(
    JSON.stringify(cursor === undefined ? { u: upstream } : { u: upstream, c: cursor }),
  ).toString("base64url");
}

function decodeCursor(cursor: string): { upstream: string; cursor?: string } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (typeof value !== "object" || value === null) return undefined;
    const { u, c } = value as { u?: unknown; c?: unknown };
    if (typeof u !== "string" || (c !== undefined && typeof c !== "string")) return undefined;
    return c === undefined ? { upstream: u } : { upstream: u, cursor: c };
  } catch {
    return undefined;
  }
}
