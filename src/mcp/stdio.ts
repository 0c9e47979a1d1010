/**
 * cordon's MCP server on standard input and output, for clients that start it as a child process (desktop
 * assistants, IDE agents). Standard error carries cordon's own log lines.
 */

import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer, type McpServerOptions } from "./server.js";

/** A running stdio server. */
export interface StdioServing {
  /** Resolves when the client has gone (standard input ended) or the server was closed. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves one MCP client on this process's stdin and stdout. */
export async function serveStdio(options: McpServerOptions): Promise<StdioServing> {
  const server = createMcpServer(options);
  const transport = new StdioServerTransport();
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  transport.onclose = () => markClosed();
  // The SDK's transport does not notice the end of its input: the client closing stdin means it left.
  process.stdin.once("end", () => markClosed());
  await server.connect(transport);
  return {
    closed,
    async close() {
      await server.close();
      markClosed();
    },
  };
}
