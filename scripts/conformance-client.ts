/**
 * The client the official MCP conformance suite's client `auth/*` scenarios run (scripts/conformance.sh):
 * `node --import tsx scripts/conformance-client.ts <server URL>`. It starts the built CLI,
 * `cordon mcp --upstream s=<server URL>`, over stdio as an SDK client does, so the suite meets cordon's own
 * remote-upstream connection and OAuth client. When cordon logs "needs authorization: open <url>", the
 * harness plays the person's browser: it fetches that URL, and the suite's authorization server redirects
 * at once to cordon's loopback listener with a code. Once the upstream is ready, it calls the upstream's
 * tool through run_code (the scenarios with step-up ask for more scope on tools/call). A scenario's context
 * (MCP_CONFORMANCE_CONTEXT) of a client credentials scenario becomes a 0600 `--upstream-client` file.
 */

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const READY_WAIT_MS = 20_000;
const POLL_MS = 50;

async function main(serverUrl: string): Promise<number> {
  const folder = mkdtempSync(join(tmpdir(), "cordon-conformance-client-"));
  const args = [
    "--no-node-snapshot",
    fileURLToPath(new URL("../dist/src/cli/bin.js", import.meta.url)),
    "mcp",
    "--upstream",
    `s=${serverUrl}`,
    // The harness is the operator: the upstream's tool call is allowed, not asked of a person.
    "--approve",
    "all",
  ];
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Record<string, unknown>;
  // Only the client credentials scenarios are cordon's --upstream-client (a grant without a person); the
  // pre-registration scenario's client is for the authorization code flow, which that flag does not give.
  const clientCredentials = process.env.MCP_CONFORMANCE_SCENARIO?.startsWith("auth/client-credentials-");
  if (
    clientCredentials &&
    typeof context.client_id === "string" &&
    typeof context.client_secret === "string"
  ) {
    const file = join(folder, "client.json");
    writeFileSync(
      file,
      JSON.stringify({ client_id: context.client_id, client_secret: context.client_secret }),
    );
    chmodSync(file, 0o600);
    args.push("--upstream-client", `s=${file}`);
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { ...(process.env as Record<string, string>), XDG_CONFIG_HOME: join(folder, "config") },
    stderr: "pipe",
  });
  let log = "";
  const opened = new Set<string>();
  // Each authorization URL cordon logs is opened once, as a person would, also while a tool call waits
  // (a step-up to a larger scope logs a new one).
  transport.stderr?.on("data", (chunk: Buffer) => {
    log += chunk.toString();
    process.stderr.write(chunk);
    for (const match of log.matchAll(/needs authorization: open (\S+) in a browser/g)) {
      if (opened.has(match[1]!)) continue;
      opened.add(match[1]!);
      fetch(match[1]!).then(
        (answer) => process.stderr.write(`harness: opened the authorization URL: ${answer.status}\n`),
        (error: unknown) => process.stderr.write(`harness: ${(error as Error).message}\n`),
      );
    }
  });
  const client = new Client({ name: "cordon-conformance-client", version: "1.0.0" });
  try {
    await client.connect(transport);
    for (let waited = 0; !log.includes("upstream s: ready"); waited += POLL_MS) {
      if (waited > READY_WAIT_MS) throw new Error("upstream s did not become ready");
      if (log.includes("upstream s: not available: it could not be started"))
        throw new Error("upstream s could not be started");
      await new Promise((done) => setTimeout(done, POLL_MS));
    }
    const result = await client.callTool({
      name: "run_code",
      arguments: { code: "return await tools.s__test_tool({});" },
    });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await client.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

const url = process.argv[2];
if (!url) {
  process.stderr.write("usage: conformance-client.ts <MCP server URL>\n");
  process.exitCode = 2;
} else {
  main(url).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`harness: ${(error as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
