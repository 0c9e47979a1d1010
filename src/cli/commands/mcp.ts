/**
 * `cordon mcp`: an MCP server (stdio, or Streamable HTTP with --http) whose one run_code tool reaches the
 * tools module's tools and the tools of upstream MCP servers. Runs until the client leaves (stdio) or
 * the process is told to stop (SIGINT, SIGTERM).
 */

import { messageOf, UsageError } from "../../../common/errors.js";
import { cordonVersion } from "../../../common/version.js";
import { MAX_TYPECHECK_WORKERS } from "../../codemode/typecheck/limits.js";
import { MCP_APPROVE_POLICIES } from "../../mcp/approve-policy.js";
import { ToolCatalog } from "../../mcp/catalog.js";
import { CodeHost, type SearchToolsMode } from "../../mcp/code-host.js";
import { ALLOW_SVG_OPTION } from "../../mcp/content-policy.js";
import { isLoopbackName, serveHttp } from "../../mcp/http.js";
import { McpTasks } from "../../mcp/run-tasks.js";
import { serveStdio } from "../../mcp/stdio.js";
import { UpstreamServer } from "../../mcp/upstream/server.js";
import {
  DEFAULT_UPSTREAM_MAX_MESSAGE_BYTES,
  DEFAULT_UPSTREAM_START_TIMEOUT_MS,
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  MAX_UPSTREAM_MAX_MESSAGE_BYTES,
  MIN_UPSTREAM_MAX_MESSAGE_BYTES,
  parseUpstreamSpec,
} from "../../mcp/upstream/spec.js";
import type { AnyTool } from "../../tools/types.js";
import { EXIT } from "../cli-error.js";
import {
  choiceOption,
  flagOption,
  integerOption,
  type ParsedCommand,
  stringOption,
  stringsOption,
} from "../command-spec.js";
import { createEnvironment } from "../env-choices.js";
import { loadToolsModule } from "../load-tools.js";
import { checkMcpAuthFlags, type McpAuthFlags, mcpAuthOf } from "../mcp-auth.js";
import { openMcpTaskState } from "../mcp-task-state.js";
import { observedTypesSaver, readObservedTypesFile } from "../observed-types-file.js";
import { TYPECHECK_CHOICES } from "../typecheck-choice.js";
import { applyRemoteAuth } from "../upstream-auth.js";
import { MAX_TIMEOUT_MS } from "./run.js";

const SEARCH_MODES: readonly SearchToolsMode[] = ["auto", "on", "off"];

/** Runs the command; resolves with the exit code once the server has stopped. */
export async function run(input: ParsedCommand): Promise<number> {
  const toolsPath = stringOption(input, "tools");
  const specs = stringsOption(input, "upstream").map(parseUpstreamSpec);
  if (toolsPath === undefined && specs.length === 0) {
    throw new UsageError(
      "nothing to serve: give --tools <module>, one or more --upstream NAME=COMMAND, or both.",
    );
  }
  const names = new Set<string>();
  for (const spec of specs) {
    if (names.has(spec.name))
      throw new UsageError(`--upstream ${spec.name} is given twice; give each server its own name.`);
    names.add(spec.name);
  }
  for (const trusted of stringsOption(input, "trust-upstream")) {
    const spec = specs.find((given) => given.name === trusted);
    if (spec === undefined) {
      throw new UsageError(
        `--trust-upstream ${trusted} names no --upstream server; give the NAME of one of: ${specs.map((given) => given.name).join(", ") || "(none given)"}.`,
      );
    }
    spec.trusted = true;
  }
  await applyRemoteAuth(specs, {
    tokens: stringsOption(input, "upstream-token"),
    clients: stringsOption(input, "upstream-client"),
    env: process.env,
  });
  const approve = choiceOption(input, "approve", MCP_APPROVE_POLICIES);
  const searchTools = choiceOption(input, "search-tools", SEARCH_MODES);
  const typecheck = choiceOption(input, "typecheck", TYPECHECK_CHOICES);
  const plan = flagOption(input, "plan");
  const typecheckWorkers = integerOption(input, "typecheck-workers", { min: 1, max: MAX_TYPECHECK_WORKERS });
  if (typecheckWorkers !== undefined && typecheck === "off") {
    throw new UsageError(
      "--typecheck-workers only applies with --typecheck block or report: add one of them, or leave it out.",
    );
  }
  const timeoutMs = integerOption(input, "timeout", { min: 1, max: MAX_TIMEOUT_MS });
  const callTimeoutMs =
    integerOption(input, "upstream-timeout", { min: 1, max: MAX_TIMEOUT_MS }) ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const startTimeoutMs =
    integerOption(input, "upstream-start-timeout", { min: 1, max: MAX_TIMEOUT_MS }) ??
    DEFAULT_UPSTREAM_START_TIMEOUT_MS;
  const maxMessageBytes =
    integerOption(input, "upstream-max-message", {
      min: MIN_UPSTREAM_MAX_MESSAGE_BYTES,
      max: MAX_UPSTREAM_MAX_MESSAGE_BYTES,
    }) ?? DEFAULT_UPSTREAM_MAX_MESSAGE_BYTES;
  const allowSvg = flagOption(input, ALLOW_SVG_OPTION.slice(2));
  const port = integerOption(input, "http", { min: 0, max: 65_535 });
  const hostname = stringOption(input, "host");
  let allowedHosts = stringsOption(input, "allow-host");
  if ((hostname !== undefined || allowedHosts.length > 0) && port === undefined)
    throw new UsageError("--host and --allow-host only apply with --http <port>.");
  const authFlags: McpAuthFlags = {
    issuer: stringOption(input, "auth-issuer"),
    audience: stringOption(input, "auth-audience"),
    tokenFile: stringOption(input, "auth-token-file"),
    noAuth: flagOption(input, "no-auth"),
  };
  checkMcpAuthFlags(authFlags, {
    ...(port === undefined ? {} : { port }),
    ...(hostname ? { hostname } : {}),
  });
  const auth = await mcpAuthOf(authFlags);
  // Clients reach an authenticated server by its audience's name.
  if (authFlags.audience !== undefined)
    allowedHosts = [...allowedHosts, new URL(authFlags.audience).hostname];
  const observedFile = stringOption(input, "observed-types") || undefined;
  const shareObserved = flagOption(input, "share-observed-types");
  if (shareObserved && port === undefined) {
    throw new UsageError(
      "--share-observed-types only applies with --http <port>: on stdio cordon serves one client, whose learnt result types are its own anyway.",
    );
  }
  if (observedFile !== undefined && port !== undefined && !shareObserved) {
    throw new UsageError(
      `--observed-types ${observedFile} keeps one file of learnt result types for every client of --http, so one client's result keys (an e-mail address, a code name) would be shown to the others: add --share-observed-types if every client may see them, or leave out --observed-types to keep each session's types to itself (forgotten when it ends).`,
    );
  }
  if (approve === "web" && port === undefined) {
    throw new UsageError(
      "--approve web serves its approval pages on cordon's HTTP port, and stdio has none: add --http <port>, or choose --approve ask, all or none.",
    );
  }
  const log = (line: string) => process.stderr.write(`cordon mcp: ${line}\n`);
  const version = cordonVersion();

  const observed =
    observedFile === undefined
      ? undefined
      : await readObservedTypesFile(observedFile, "empty", { "--tools": toolsPath });
  const saver =
    observedFile === undefined || observed === undefined
      ? undefined
      : observedTypesSaver(observedFile, observed, log);

  const taskState = await openMcpTaskState(stringOption(input, "task-dir") || undefined, process.env, log);
  const local: AnyTool[] = toolsPath === undefined ? [] : await loadToolsModule(toolsPath);
  const environment = await createEnvironment(stringOption(input, "env"), {
    oneShot: false,
    env: process.env,
  });
  const upstreams = specs.map(
    (spec) =>
      new UpstreamServer(spec, {
        startTimeoutMs,
        callTimeoutMs,
        maxMessageBytes,
        clientVersion: version,
        log,
      }),
  );
  const catalog = new ToolCatalog({ local, upstreams, timeoutMs: callTimeoutMs, log });
  let host: CodeHost;
  try {
    host = new CodeHost({
      catalog,
      environment,
      searchTools,
      log,
      typecheck,
      ...(plan ? { plan } : {}),
      ...(typecheckWorkers === undefined ? {} : { typecheckWorkers }),
      ...(timeoutMs === undefined ? {} : { limits: { timeoutMs } }),
      // On stdio one client is served: its learnt types are kept (and shown) as one store.
      shareObservedTypes: port === undefined || shareObserved,
      ...(observed === undefined ? {} : { observedTypes: observed.store }),
      ...(saver === undefined ? {} : { afterRun: () => void saver.save() }),
      ...(taskState ? { pause: taskState.pause } : {}),
    });
  } catch (error) {
    await environment.close();
    throw error;
  }

  const content = { allowSvg };
  const tasks =
    taskState && new McpTasks({ host, records: taskState.records, policy: approve, content, log });
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  process.once("SIGINT", () => stop());
  process.once("SIGTERM", () => stop());
  let close: () => Promise<void>;
  try {
    if (port === undefined) {
      const serving = await serveStdio({
        host,
        approve,
        version,
        log,
        allowSvg,
        ...(tasks ? { tasks } : {}),
      });
      serving.closed.then(() => stop());
      close = () => serving.close();
      log(`serving on stdio: ${local.length} local tools, ${upstreams.length} upstream servers`);
    } else {
      const serving = await serveHttp({
        host,
        approve,
        version,
        port,
        log,
        allowedHosts,
        allowSvg,
        ...(tasks ? { tasks } : {}),
        ...(hostname ? { hostname } : {}),
        ...(auth ? { auth } : {}),
      });
      close = () => serving.close();
      if (hostname !== undefined && !isLoopbackName(hostname) && auth === undefined) {
        log(
          `warning: listening on ${hostname}, beyond this machine, without authentication (--no-auth): anyone who can reach it can run code against your tools, unless something in front of cordon authenticates them.`,
        );
      }
      log(`serving on ${serving.url}: ${local.length} local tools, ${upstreams.length} upstream servers`);
    }
  } catch (error) {
    await host.close();
    throw new UsageError(`could not start serving: ${messageOf(error)}`);
  }
  await stopped;
  log("stopping");
  tasks?.close();
  await close().catch(() => {});
  await host.close();
  await saver?.save();
  return EXIT.ok;
}
