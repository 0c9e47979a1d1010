/**
 * cordon's MCP server on standard input and output, for clients that start it as a child process (desktop
 * assistants, IDE agents). Standard error carries cordon's own log lines.
 */

import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer, type McpServerOptions } from "./server.js";
import { LineLimit, MAX_STDIO_MESSAGE_BYTES, skippedLineError } from "./stdio-lines.js";

/** A running stdio server. */
export interface StdioServing {
  /** Resolves when the client has gone (standard input ended) or the server was closed. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves one MCP client on this process's stdin and stdout. */
export async function serveStdio(
  options: McpServerOptions & { log?: (line: string) => void },
): Promise<StdioServing> {
  // What the server declares depends on what its upstreams offer once started.
  await options.host.ready;
  const server = createMcpServer(options);
  // An over-long line is answered here, whole lines only reach the SDK's transport (whose own buffer
  // would otherwise give up and close on it).
  const lines = new LineLimit(MAX_STDIO_MESSAGE_BYTES, (line) => {
    options.log?.(`a message of ${line.bytes} bytes on standard input was over the limit and not read`);
    process.stdout.write(skippedLineError(line, MAX_STDIO_MESSAGE_BYTES));
  });
  process.stdin.pipe(lines);
  const transport = new StdioServerTransport(lines, process.stdout, {
    maxBufferSize: MAX_STDIO_MESSAGE_BYTES + 2,
  });
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
