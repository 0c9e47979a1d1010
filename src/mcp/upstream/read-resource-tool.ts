/**
 * How code reads an upstream's resources: one generated tool per upstream that offers resources,
 * `<upstream>__read_resource({ uri })`, a cordon tool like the upstream's own, so each read goes through
 * the same pipeline as any call (validation, limits, tracing, events, labels) and its result is data.
 */

import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { ToolError } from "../../../common/errors.js";
import { tool } from "../../tools/tool.js";
import type { AnyTool, JsonSchema } from "../../tools/types.js";
import { clientLinkOf } from "../client-link.js";
import { namespacedUri, parseNamespacedUri, UPSTREAM_URI_PREFIX } from "./resource-names.js";
import type { UpstreamServer } from "./server.js";
import { noteUpstreamUris } from "./uris.js";

/** The tool's own name under the upstream's namespace (taken by the upstream's own tool, it gets a suffix). */
export const READ_RESOURCE_TOOL = "read_resource";

const STRING: JsonSchema = { type: "string" };

const INPUT: JsonSchema = {
  type: "object",
  properties: {
    uri: {
      type: "string",
      description:
        "The resource's URI, as the server gives it (or cordon's cordon://<server>/<uri> form of it).",
    },
  },
  required: ["uri"],
  additionalProperties: false,
};

const OUTPUT: JsonSchema = {
  title: "McpResourceContents",
  type: "object",
  properties: {
    contents: {
      type: "array",
      items: {
        anyOf: [
          {
            type: "object",
            properties: { uri: STRING, mimeType: STRING, text: STRING },
            required: ["uri", "text"],
          },
          {
            type: "object",
            properties: { uri: STRING, mimeType: STRING, blob: STRING },
            required: ["uri", "blob"],
          },
        ],
      },
    },
  },
  required: ["contents"],
};

/** The tool that reads resources of `server`, named `name`. */
export function readResourceTool(server: UpstreamServer, name: string, timeoutMs: number): AnyTool {
  return tool({
    name,
    description: `Reads one resource of the MCP server "${server.name}" by its URI: the server's own URI (as its tools' results and resource links give it), or the ${namespacedUri(server.name, "<uri>")} form an MCP client is shown. Returns { contents: [{ uri, mimeType?, text } or { uri, mimeType?, blob }] }, blob being base64. To pass one on to the client, return { type: "resource", resource: contents[0] }.\n(Made by cordon from the MCP server's resources/read.)`,
    input: INPUT,
    output: OUTPUT,
    readOnly: true,
    timeout: timeoutMs,
    labels: server.trusted ? [] : ["untrusted"],
    run: async (args, ctx) => {
      const uri = ownUri(server.name, (args as { uri: string }).uri);
      const result: ReadResourceResult = await server.request(
        `read the resource ${uri}`,
        (client, options) => client.readResource({ uri }, options),
        ctx.signal,
      );
      const contents = result.contents.map((content) => ({ ...content }));
      // Its own URIs may go back to the client as it sent them (see content-policy.ts).
      noteUpstreamUris(
        clientLinkOf(ctx.deps),
        contents.map((resource) => ({ type: "resource" as const, resource })),
      );
      return { contents };
    },
  });
}

/** The server's own URI of `uri`, which may be cordon's form of one of this server's URIs. */
function ownUri(server: string, uri: string): string {
  if (!uri.startsWith(UPSTREAM_URI_PREFIX)) return uri;
  const ref = parseNamespacedUri(uri);
  if (ref?.upstream !== server) {
    throw new ToolError(
      `${JSON.stringify(uri)} is not a resource of the MCP server "${server}": cordon's form of its URIs is ${namespacedUri(server, "<uri>")}; read another server's resources with its own read_resource.`,
    );
  }
  return ref.own;
}
