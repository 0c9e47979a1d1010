/**
 * One client connection's resources, resource templates, prompts and completions: the upstreams' (see
 * upstream/gateway.ts), for each capability cordon declared to this client. Its subscriptions are its
 * own: updates go to the sessions that subscribed, and end with the connection.
 */

import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { GatewayCapabilities, GatewaySession, UpstreamGateway } from "./upstream/gateway.js";

/** Serves the upstreams' resources and prompts on `server`, as `offered` declares; returns its end. */
export function serveUpstreamResources(
  server: Server,
  gateway: UpstreamGateway,
  offered: GatewayCapabilities,
  ready: Promise<void>,
): () => void {
  // A client that has gone (or not yet initialised) misses a notice: its next list is current anyway.
  const session: GatewaySession = {
    resourceUpdated: (uri) => {
      server.sendResourceUpdated({ uri }).catch(() => {});
    },
    resourcesChanged: () => {
      if (offered.resources) server.sendResourceListChanged().catch(() => {});
    },
    promptsChanged: () => {
      if (offered.prompts) server.sendPromptListChanged().catch(() => {});
    },
  };
  if (offered.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
      await ready;
      const page = await gateway.listResources(request.params?.cursor, extra.signal);
      return { resources: page.items, ...cursorOf(page) };
    });
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async (request, extra) => {
      await ready;
      const page = await gateway.listResourceTemplates(request.params?.cursor, extra.signal);
      return { resourceTemplates: page.items, ...cursorOf(page) };
    });
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      await ready;
      return gateway.readResource(request.params.uri, extra.signal);
    });
    if (offered.resources.subscribe) {
      server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
        await ready;
        await gateway.subscribe(session, request.params.uri, extra.signal);
        return {};
      });
      server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
        await gateway.unsubscribe(session, request.params.uri);
        return {};
      });
    }
  }
  if (offered.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async (request, extra) => {
      await ready;
      const page = await gateway.listPrompts(request.params?.cursor, extra.signal);
      return { prompts: page.items, ...cursorOf(page) };
    });
    server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
      await ready;
      return gateway.getPrompt(request.params.name, request.params.arguments, extra.signal);
    });
  }
  if (offered.completions) {
    server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
      await ready;
      return gateway.complete(request.params, extra.signal);
    });
  }
  return gateway.attach(session);
}

function cursorOf(page: { nextCursor?: string }): { nextCursor?: string } {
  return page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor };
}
