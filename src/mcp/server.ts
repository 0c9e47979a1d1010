/**
 * One MCP server connection (a stdio client, or one Streamable HTTP session), built on the official SDK's
 * low-level `Server`: it lists run_code (and search_tools for large catalogs), runs calls through the
 * code host, and tells its client when the tools changed. While a run goes on, its client gets the run's
 * progress and console output, and the questions upstream servers ask (see client-link.ts).
 */

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type LoggingLevel,
  McpError,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { mcpApprover } from "./approval.js";
import type { McpApprovePolicy } from "./approve-policy.js";
import type { CodeHost } from "./code-host.js";
import type { Principal } from "./http-auth.js";
import { runCodeCallResult } from "./run-result.js";
import type { McpTasks } from "./run-tasks.js";
import { SEARCH_TOOL_NAME } from "./search-tools.js";
import { DEFAULT_LOG_LEVEL, serverLink } from "./server-link.js";
import { handleTaskRequests, TASK_CAPABILITIES } from "./task-handlers.js";
import { type TenantOf, tenantPerConnection } from "./tenant.js";
import { upstreamUrisOf } from "./upstream/uris.js";
import { serveUpstreamResources } from "./upstream-resources.js";
import type { WebApprovals } from "./web-approval.js";

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  host: CodeHost;
  approve: McpApprovePolicy;
  /** cordon's version, reported to the client. */
  version: string;
  /** The approval pages of cordon's HTTP server (`--approve web`, URL-mode elicitation); none on stdio. */
  webApprovals?: WebApprovals;
  /** cordon's log (`--approve web` writes each approval page's URL there). */
  log?: (line: string) => void;
  /** Send SVG images the code returns (`cordon mcp --allow-svg`); they can carry scripts. Default false. */
  allowSvg?: boolean;
  /** Names the tenant of each request (whose learnt result types it adds to and sees). Default: its connection. */
  tenantOf?: TenantOf;
  /**
   * Who this connection serves, on an authenticated HTTP server (http-auth.ts): the owner of its
   * approval pages, and of whatever else it keeps that another principal must never reach. Every request
   * of the connection comes from it (the SDK also hands it to handlers in `extra.authInfo.extra.principal`).
   */
  principal?: Principal;
  /**
   * The server's tasks: with them, a client that supports tasks may call run_code as one (see
   * run-tasks.ts). Without them, none is offered.
   */
  tasks?: McpTasks;
}

const INSTRUCTIONS =
  "This server turns many tools into one: write TypeScript for its run_code tool, and call the tools declared in run_code's description from that code as `await tools.<name>(args)`. Do a whole task (several calls, loops, filtering) in one run and return only what you need.";

/**
 * A new MCP server for one client connection; connect it to a transport. It offers the upstreams'
 * resources, prompts and completions as far as those started by now offer them: create it once
 * `host.ready` resolved.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const { host, approve, version, webApprovals, log, allowSvg = false } = options;
  const tenantOf = options.tenantOf ?? tenantPerConnection;
  const { tasks } = options;
  const offered = host.gateway.capabilities();
  const server = new Server(
    { name: "cordon", version },
    {
      capabilities: {
        tools: { listChanged: true },
        logging: {},
        ...offered,
        ...(tasks ? { tasks: TASK_CAPABILITIES } : {}),
      },
      instructions: INSTRUCTIONS,
    },
  );
  // This connection's identity and log level, shared by the links of its requests.
  const connection = {};
  const tenant = () => tenantOf({ connection });
  let logLevel: LoggingLevel = DEFAULT_LOG_LEVEL;
  const level = () => logLevel;
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    logLevel = request.params.level;
    return {};
  });
  let leave = () => {};
  server.oninitialized = () => {
    leave();
    leave = host.clients.add(serverLink(server, { client: connection, tenant: tenant(), logLevel: level }));
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => host.clients.rootsChanged());

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    await host.ready;
    const tools = host.listTools();
    if (!tasks) return { tools };
    // run_code may be called as a task; search_tools answers at once.
    return {
      tools: tools.map((tool) =>
        tool.name === host.runCodeName ? { ...tool, execution: { taskSupport: "optional" as const } } : tool,
      ),
    };
  });
  const approval = {
    policy: approve,
    ...(webApprovals ? { webApprovals } : {}),
    ...(log ? { log } : {}),
    ...(options.principal ? { owner: options.principal.id } : {}),
  };
  // A task belongs to a named tenant (an authenticated principal), else to whoever holds its id.
  const asker = () => {
    const key = tenant();
    return { connection, ...(typeof key === "string" ? { tenant: key } : {}) };
  };
  const stopTaskNotifications = tasks ? handleTaskRequests(server, tasks, asker, approval) : () => {};

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    await host.ready;
    const { name, arguments: args, task } = request.params;
    if (task !== undefined) {
      if (!tasks || name !== host.runCodeName) {
        throw new McpError(
          ErrorCode.MethodNotFound,
          `Only ${host.runCodeName} can be called as a task here.`,
        );
      }
      return { task: await tasks.create(args ?? {}, asker(), task.ttl) } as unknown as CallToolResult;
    }
    if (name === host.runCodeName) {
      const progressToken = request.params._meta?.progressToken;
      const link = serverLink(server, {
        client: connection,
        tenant: tenant(),
        logLevel: level,
        request: {
          requestId: extra.requestId,
          sendNotification: extra.sendNotification,
          ...(progressToken === undefined ? {} : { progressToken }),
        },
      });
      const result = await host.runCode(args ?? {}, {
        signal: extra.signal,
        approve: mcpApprover(server, approval, extra),
        link,
      });
      return runCodeCallResult(result, host.maxOutputChars, { allowSvg, upstreamUris: upstreamUrisOf(link) });
    }
    if (name === SEARCH_TOOL_NAME && host.searching) {
      const query = typeof args?.query === "string" ? args.query : "";
      if (query.trim() === "")
        return failure(`${SEARCH_TOOL_NAME} needs a query: words describing what you need.`);
      const limit = typeof args?.limit === "number" ? args.limit : undefined;
      return { content: [{ type: "text", text: host.search(query, limit, tenant()) }] };
    }
    const names = host.listTools().map((tool) => tool.name);
    return failure(
      `Unknown tool ${JSON.stringify(name)}. This server has ${names.join(" and ")}; the other tools are called from run_code's code.`,
    );
  });

  const detach = serveUpstreamResources(server, host.gateway, offered, host.ready);
  const unsubscribe = host.onChange(() => {
    // When the connection is gone or not initialised yet, its next tools/list sees the new tools anyway.
    server.sendToolListChanged().catch(() => {});
  });
  server.onclose = () => {
    unsubscribe();
    stopTaskNotifications();
    detach();
    leave();
  };
  return server;
}

function failure(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
