/**
 * An upstream MCP server's tools as cordon tools: namespaced by server (`github__search_issues`) so no
 * two ever clash (with `<server>__read_resource` for a server that offers resources), validated against their own JSON Schemas on the host before the server sees them, and
 * their results unwrapped into data (the structured content when given, else the text, or the content
 * items when the result has images, audio or resources).
 */

import { createHash } from "node:crypto";
import type { CallToolResult, ContentBlock, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { messageOf, ToolError } from "../../../common/errors.js";
import { TOOL_NAME_PATTERN, tool } from "../../tools/tool.js";
import type { AnyTool, JsonSchema } from "../../tools/types.js";
import { clientLinkOf } from "../client-link.js";
import { contentForCode, UNSTRUCTURED_RESULT_SCHEMA } from "../content.js";
import { READ_RESOURCE_TOOL, readResourceTool } from "./read-resource-tool.js";
import type { UpstreamServer } from "./server.js";
import { requiresTask } from "./task-call.js";
import { noteUpstreamUris } from "./uris.js";

/** What separates the server's name from the tool's: `<server>__<tool>`. */
const NAMESPACE_SEPARATOR = "__";

/** Tool names are capped here (what every major provider accepts). */
const MAX_TOOL_NAME_CHARS = 64;

/** Why a tool that requires task-based execution is left out when its server does not offer tasks. */
const TASKS_NOT_ACCEPTED =
  'it requires task-based execution (execution.taskSupport "required"), and its server does not declare task support for tools/call (capabilities.tasks.requests.tools.call), so it cannot be called';

/** An upstream's tools as cordon tools, and the ones that could not be made (with why). */
export interface UpstreamTools {
  tools: AnyTool[];
  skipped: { name: string; reason: string }[];
}

/** Makes cordon tools of every tool the upstream listed. */
export function upstreamTools(server: UpstreamServer, timeoutMs: number): UpstreamTools {
  const tools: AnyTool[] = [];
  const skipped: UpstreamTools["skipped"] = [];
  const taken = new Set<string>();
  for (const mcpTool of server.tools) {
    if (requiresTask(mcpTool) && !server.acceptsToolTasks) {
      skipped.push({ name: mcpTool.name, reason: TASKS_NOT_ACCEPTED });
      continue;
    }
    const name = namespacedName(server.name, mcpTool.name, taken);
    taken.add(name);
    try {
      tools.push(toCordonTool(server, mcpTool, name, timeoutMs));
    } catch (error) {
      skipped.push({ name: mcpTool.name, reason: messageOf(error) });
    }
  }
  // Its resources are read from code by a tool of cordon's, after its own tools so they keep their names.
  if (server.capabilities?.resources) {
    tools.push(readResourceTool(server, namespacedName(server.name, READ_RESOURCE_TOOL, taken), timeoutMs));
  }
  return { tools, skipped };
}

/**
 * `<server>__<tool>`, with characters a JS identifier cannot hold replaced by `_`; cut to 64 characters
 * (with a short hash of the real name, so cut names stay distinct) and made unique among `taken`.
 */
export function namespacedName(server: string, toolName: string, taken: ReadonlySet<string>): string {
  const prefix = `${server}${NAMESPACE_SEPARATOR}`;
  let name = prefix + (toolName.replace(/[^a-zA-Z0-9_]/g, "_") || "tool");
  if (name.length > MAX_TOOL_NAME_CHARS) {
    const hash = createHash("sha256").update(toolName).digest("hex").slice(0, 6);
    name = `${name.slice(0, MAX_TOOL_NAME_CHARS - 7)}_${hash}`;
  }
  for (let n = 2; taken.has(name); n++) {
    const suffix = `_${n}`;
    name = `${name.slice(0, MAX_TOOL_NAME_CHARS - suffix.length)}${suffix}`;
  }
  if (!TOOL_NAME_PATTERN.test(name)) throw new Error(`cannot name the tool ${JSON.stringify(toolName)}`);
  return name;
}

function toCordonTool(server: UpstreamServer, mcpTool: McpTool, name: string, timeoutMs: number): AnyTool {
  const annotations = mcpTool.annotations ?? {};
  const readOnly = annotations.readOnlyHint === true;
  const described = (mcpTool.description ?? "").trim() || (mcpTool.title ?? "").trim();
  return tool({
    name,
    description: `${described || `The tool ${mcpTool.name}.`}\n(From the MCP server "${server.name}", where it is called ${mcpTool.name}.)`,
    input: mcpTool.inputSchema as JsonSchema,
    output: (mcpTool.outputSchema as JsonSchema | undefined) ?? UNSTRUCTURED_RESULT_SCHEMA,
    readOnly,
    // As MCP defines the hints: a tool that is not read-only may destroy something unless the server
    // says it does not (destructiveHint defaults to true). A human decides, as an MCP client would ask.
    needsApproval: !readOnly && annotations.destructiveHint !== false,
    timeout: timeoutMs,
    // Another party's server: what it returns is untrusted unless the operator said otherwise.
    labels: server.trusted ? [] : ["untrusted"],
    run: async (args, ctx) => {
      const link = clientLinkOf(ctx.deps);
      const result = await server.call(mcpTool.name, args, ctx.signal, link);
      // Its own links may go back to the client as it sent them (see content-policy.ts).
      noteUpstreamUris(link, result.content ?? []);
      return unwrapResult(result, mcpTool.name);
    },
  });
}

/**
 * What code receives from an upstream's result: `structuredContent` when the server gave it, else the
 * text of its content when all of it is text, else its content blocks as data (`{ type: "image",
 * mimeType, data }` …, see {@link contentForCode}). A result marked `isError` throws a {@link ToolError}
 * with the server's message.
 */
export function unwrapResult(result: CallToolResult, toolName: string): unknown {
  const content = result.content ?? [];
  if (result.isError === true) {
    const text = contentText(content);
    throw new ToolError(text.trim() === "" ? `${toolName} reported an error without a message.` : text);
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  return contentForCode(content);
}

/** The text of an error result's content blocks; other blocks are named in brackets. */
function contentText(content: readonly ContentBlock[]): string {
  return content
    .map((block) => {
      switch (block.type) {
        case "text":
          return block.text;
        case "resource":
          return "text" in block.resource && typeof block.resource.text === "string"
            ? block.resource.text
            : `[resource ${block.resource.uri}]`;
        case "resource_link":
          return `[resource link ${block.uri}]`;
        case "image":
        case "audio":
          return `[${block.type} ${block.mimeType}]`;
        default:
          return "[content]";
      }
    })
    .join("\n");
}
