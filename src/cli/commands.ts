/**
 * The commands of `cordon`, by name. A command is one entry: its help and options, and a lazy import of
 * its code. `cordon serve` and `cordon image build` (remote and Docker sandboxes) join as entries here.
 */

import { DEFAULT_CODE_MODE_LIMITS } from "../codemode/limits.js";
import {
  DEFAULT_TYPECHECK_TIME_MS,
  DEFAULT_TYPECHECK_WORKERS,
  MAX_TYPE_DIAGNOSTICS,
  MAX_TYPECHECK_WORKERS,
} from "../codemode/typecheck/limits.js";
import { DEFAULT_MAX_SANDBOXES, DEFAULT_SERVE_PORT, MIN_TOKEN_CHARS } from "../load-driver.js";
import { APPROVE_POLICIES, MCP_APPROVE_POLICIES } from "../mcp/approve-policy.js";
import { MIN_STATIC_TOKEN_CHARS } from "../mcp/auth-token-file.js";
import { ALLOW_SVG_OPTION, SVG_MIME_TYPE } from "../mcp/content-policy.js";
import { requireMcpSdk } from "../mcp/sdk-package.js";
import {
  DEFAULT_UPSTREAM_MAX_MESSAGE_BYTES,
  DEFAULT_UPSTREAM_START_TIMEOUT_MS,
  DEFAULT_UPSTREAM_TIMEOUT_MS,
} from "../mcp/upstream/spec.js";
import { CHECKPOINT_KEY_VARIABLE } from "./checkpoint-key.js";
import { EXIT } from "./cli-error.js";
import type { CommandSpec, OptionSpec } from "./command-spec.js";
import { ENVIRONMENTS, environmentNames } from "./env-choices.js";
import { RUN_APPROVE_CHOICES } from "./run-approve.js";

const TOOLS: OptionSpec = {
  name: "tools",
  type: "string",
  placeholder: "<module>",
  description: "A .ts or .js module whose default export is a Toolset or an array of tools.",
};

const ENV: OptionSpec = {
  name: "env",
  type: "string",
  placeholder: "<name>",
  description: `Where the code runs. ${environmentNames()
    .map((name) => `${name}: ${ENVIRONMENTS[name]!.description}`)
    .join(". ")}. Default: default.`,
};

const TIMEOUT: OptionSpec = {
  name: "timeout",
  type: "string",
  placeholder: "<ms>",
  description: `Wall-clock limit of one run, in milliseconds (default ${DEFAULT_CODE_MODE_LIMITS.timeoutMs}).`,
};

const TYPECHECK: OptionSpec = {
  name: "typecheck",
  type: "string",
  placeholder: "block|report|off",
  description:
    "Type-check the code against the tools' declarations before it runs (needs the typescript package, version 5): block runs nothing when it has a type error, report runs it anyway and reports the errors, off does not check (the default).",
};

/** `--observed-types <file>` for the commands that run code and learn result types as they go. */
const OBSERVED_TYPES: OptionSpec = {
  name: "observed-types",
  type: "string",
  placeholder: "<file>",
  description:
    "A JSON file of the result types learnt from the tools' results (tools without an output schema): read at the start, made when it does not exist, and written again after runs with what was learnt. cordon types --observed-types shows them.",
};

const JSON_OUTPUT: OptionSpec = { name: "json", type: "boolean", description: "Print JSON instead of text." };

function approve(asks: string): OptionSpec {
  return {
    name: "approve",
    type: "string",
    placeholder: APPROVE_POLICIES.join("|"),
    description: `Gated tool calls: ask ${asks}, and deny when nobody can be asked (the default); all allows every one; none denies every one.`,
  };
}

/** `cordon run --approve`: the shared policies, and pause. */
const RUN_APPROVE: OptionSpec = {
  ...approve("on the terminal"),
  placeholder: RUN_APPROVE_CHOICES.join("|"),
  description: `${approve("on the terminal").description} pause ends the run at the first gated call or question instead, saves it to the --checkpoint file and exits ${EXIT.paused}, for cordon resume.`,
};

/** Where the key that seals checkpoints comes from, for the help. */
const KEY_SOURCE = `Checkpoints are sealed with the key in ${CHECKPOINT_KEY_VARIABLE} when it is set, otherwise with the key file $XDG_CONFIG_HOME/cordon/checkpoint.key (~/.config/cordon/checkpoint.key), which is made on first use, readable by you only. To resume on another machine, set ${CHECKPOINT_KEY_VARIABLE} there to the same key.`;

/** The exit codes of a command that runs code, for the help. */
const RUN_EXIT_CODES = `Exit code: ${EXIT.ok} when the run ended ok, ${EXIT.codeFailed} when the code failed (an error, a timeout, a limit), ${EXIT.usage} for a usage error, ${EXIT.paused} when the run paused (calls wait for a person), ${EXIT.interrupted} when interrupted with Ctrl-C.`;

/** Every command, in the order `cordon --help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  {
    name: "run",
    summary: "Run a TypeScript file as a model's run_code call against your tools.",
    usage: ["run <file.ts | -> --tools <module> [options]"],
    details: [
      "Runs the code exactly as the run_code tool would: in a sandbox, where `await tools.<name>(args)` calls your tools through cordon's pipeline (validation, approval, retries, timeouts). Prints the console output, each tool call with its status and time, and the result. Give - to read the code from standard input.",
      "With --approve pause --checkpoint <file>, a gated call (or an ask_human question) does not wait for an answer: the run ends paused, its checkpoint is written to the file (readable by you only), and the calls that wait are printed with the cordon resume command that goes on. " +
        KEY_SOURCE,
      `With --plan, the code first runs as a plan: reads live, and each call of a tool with effects (effect: true) not run but answered by its preview. The plan's effects are printed, each with every argument, and asked about once: y carries the plan out (the reads are not run again, each approved effect runs once, and any effect the code then asks for otherwise is asked about on its own), e decides each effect, anything else carries nothing out. --approve all carries it out without asking; --approve none only prints it. With --approve pause --checkpoint <file>, the plan is saved instead (exit ${EXIT.paused}), for a person to decide and carry out later with cordon resume, in this process's place or another's with the same key.`,
      RUN_EXIT_CODES,
    ],
    options: [
      TOOLS,
      ENV,
      JSON_OUTPUT,
      RUN_APPROVE,
      {
        name: "plan",
        type: "boolean",
        description:
          "Run the code as a plan first (effects previewed, not run), print its effects and ask once whether to carry it out; with --approve pause, save it to --checkpoint for cordon resume.",
      },
      {
        name: "checkpoint",
        type: "string",
        placeholder: "<file>",
        description:
          "With --approve pause: the file a paused run is saved to (mode 0600), for cordon resume. Required with --approve pause, and only with it.",
      },
      TIMEOUT,
      TYPECHECK,
      OBSERVED_TYPES,
    ],
    positionals: { min: 1, max: 1 },
    examples: [
      "cordon run examples/shop/task.ts --tools examples/shop/tools.ts",
      'echo "return await tools.list_customers({})" | cordon run - --tools examples/shop/tools.ts --json',
      "cordon run examples/shop/task.ts --tools examples/shop/tools.ts --approve pause --checkpoint run.ckpt",
      "cordon run refunds.ts --tools refund-tools.ts --plan",
      "cordon run refunds.ts --tools refund-tools.ts --plan --approve pause --checkpoint plan.ckpt",
    ],
    load: () => import("./commands/run.js"),
  },
  {
    name: "resume",
    summary:
      "Go on with a run that paused (cordon run --approve pause), or carry out a saved plan, once decided.",
    usage: ["resume <run.ckpt> --tools <module> [--approve ask|all|none] [options]"],
    details: [
      "Reads the checkpoint that cordon run --approve pause wrote, checks it (its seal and key, its expiry, and that the tools and limits are the ones it was made with: give the same --tools module and --timeout), then decides each call that waits: --approve ask (the default) asks on the terminal, one call at a time; all approves every one; none denies every one. Questions (ask_human) are asked on the terminal whatever --approve says. Then the code runs again from the start: the calls made before the pause get their recorded results (nothing happens twice), the decided calls go on, and the run is printed as cordon run prints it.",
      "A plan saved by cordon run --plan --approve pause is shown with each effect and every argument and decided once, as cordon run --plan decides: --approve ask asks once on the terminal (y carries it out, e decides each effect, anything else carries nothing out and keeps the file), all carries it out, none only shows it. Carried out, the reads are not run again and each approved effect runs once; anything else the code asks for pauses the run.",
      "If it pauses again (at the next gated call or question), the new checkpoint replaces the file and it exits " +
        `${EXIT.paused} again. A checkpoint resumes once: while the run goes on it is kept as <file>.used, which becomes a note of when it was resumed once the run ends ok, is removed when it pauses again, and is kept whole when the run failed (resuming it again would repeat the decided calls); resuming the file again says it was resumed already. A refused checkpoint (altered, expired, another key, other tools or limits) exits ${EXIT.codeFailed} and nothing runs. ` +
        KEY_SOURCE,
      RUN_EXIT_CODES,
    ],
    options: [
      { ...TOOLS, description: `${TOOLS.description} The same module the run paused with.` },
      {
        ...approve("on the terminal"),
        description:
          "The calls that wait for approval: ask on the terminal, one at a time (the default); all approves every one; none denies every one.",
      },
      ENV,
      JSON_OUTPUT,
      {
        ...TIMEOUT,
        description: `${TIMEOUT.description} Give the --timeout the run paused with: a checkpoint is bound to its limits.`,
      },
      OBSERVED_TYPES,
    ],
    positionals: { min: 1, max: 1 },
    examples: [
      "cordon resume run.ckpt --tools examples/shop/tools.ts",
      "cordon resume run.ckpt --tools examples/shop/tools.ts --approve all --json",
      "cordon resume plan.ckpt --tools refund-tools.ts",
    ],
    load: () => import("./commands/resume.js"),
  },
  {
    name: "check",
    summary: "Type-check a TypeScript file as a model's run_code code, against your tools' declarations.",
    usage: ["check <file.ts | -> --tools <module> [--json]"],
    details: [
      "Reads the code as run_code does (a markdown fence, top-level await and return, the last expression as the result) and checks it with TypeScript against the declarations of `tools` and the sandbox's globals, without running it. Prints each error with its line and column in the file, the line of code, and the fix TypeScript suggests (at most " +
        `${MAX_TYPE_DIAGNOSTICS}, then how many more). A check that takes longer than ${DEFAULT_TYPECHECK_TIME_MS} ms is stopped. Needs the typescript package, version 5. Give - to read the code from standard input.`,
      `Exit code: ${EXIT.ok} when the code has no type error, ${EXIT.codeFailed} when it has (or does not parse, or could not be checked), ${EXIT.usage} for a usage error.`,
    ],
    options: [TOOLS, JSON_OUTPUT],
    positionals: { min: 1, max: 1 },
    examples: ["cordon check examples/shop/task.ts --tools examples/shop/tools.ts"],
    load: () => import("./commands/check.js"),
  },
  {
    name: "types",
    summary: "Print the declarations and the instructions a model gets for your tools.",
    usage: ["types --tools <module> [options]"],
    details: [
      "Prints the TypeScript declarations of `tools` that code mode shows the model, then the full instructions (the system-prompt text, which quotes the declarations, the rules and the limits).",
      "With --observed-types <file> (written by cordon run or cordon mcp with the same option), a tool without an output schema whose results were seen gets `Returns (observed): <type>` in its JSDoc: the type learnt from those results, a hint (its signature still returns unknown).",
    ],
    options: [
      TOOLS,
      ENV,
      TIMEOUT,
      JSON_OUTPUT,
      {
        ...OBSERVED_TYPES,
        description:
          "The file of learnt result types that cordon run or cordon mcp wrote with --observed-types: show them in the declarations.",
      },
    ],
    positionals: { min: 0, max: 0 },
    examples: ["cordon types --tools examples/shop/tools.ts"],
    load: () => import("./commands/types.js"),
  },
  {
    name: "mcp",
    summary: "Serve one run_code tool over MCP: your tools and other MCP servers' tools, from code.",
    usage: ["mcp [--tools <module>] [--upstream NAME=COMMAND|URL ...] [--http <port>] [options]"],
    details: [
      "An MCP server (stdio by default, or Streamable HTTP with --http) with one tool, run_code, whose description carries the instructions and the declarations of every tool the code can call: the tools module's, and those of each upstream MCP server, named <NAME>__<tool>. Upstream servers are started as child processes (the command is split into words; no shell) and restarted on their next call if they exit; an upstream given by URL (https://, or http:// on loopback) is reached over Streamable HTTP, authorized by OAuth when it asks (its tokens kept, mode 600, under $XDG_CONFIG_HOME/cordon/upstream-auth), and reconnected when it restarts.",
      "Gated calls are decided by --approve: with ask, the MCP client's user is asked through elicitation when the client supports it (a client that supports only URL-mode elicitation, over --http, is sent the URL of cordon's approval page); otherwise the call is denied. With web (only with --http), every gated call is decided on an approval page cordon serves on its own port at a one-time URL, sent to a client that supports URL-mode elicitation and always written to the log.",
      "Log lines go to standard error.",
    ],
    options: [
      { ...TOOLS, description: `${TOOLS.description} Optional when --upstream is given.` },
      {
        name: "upstream",
        type: "string",
        multiple: true,
        placeholder: "NAME=COMMAND|URL",
        description:
          "An MCP server to start (COMMAND) or to reach over Streamable HTTP (URL: https://, or http:// on loopback), called from code as tools.NAME__<tool>(...). Repeatable.",
      },
      {
        name: "upstream-token",
        type: "string",
        multiple: true,
        placeholder: "NAME=FILE",
        description:
          "Send the remote --upstream server NAME this bearer token (the first line of FILE, mode 600), issued beforehand, instead of OAuth. Repeatable.",
      },
      {
        name: "upstream-client",
        type: "string",
        multiple: true,
        placeholder: "NAME=FILE",
        description:
          'Authorize cordon at the remote --upstream server NAME with OAuth\'s client credentials grant, no person needed: FILE (mode 600) holds {"client_id": ..., "client_secret": ..., "issuer"?: ..., "scope"?: ...}. Repeatable.',
      },
      {
        name: "trust-upstream",
        type: "string",
        multiple: true,
        placeholder: "NAME",
        description:
          "Trust what the --upstream server NAME returns (repeatable): its tools' results are not labelled untrusted, so a run that read them is not fenced (see docs/effects.md).",
      },
      {
        name: "http",
        type: "string",
        placeholder: "<port>",
        description: "Serve Streamable HTTP on this port (0 picks a free one) at /mcp, instead of stdio.",
      },
      {
        name: "host",
        type: "string",
        placeholder: "<address>",
        description:
          "The address --http listens on (default 127.0.0.1). Beyond loopback it needs --auth-issuer, --auth-token-file or, explicitly, --no-auth.",
      },
      {
        name: "auth-issuer",
        type: "string",
        placeholder: "<url>",
        description:
          "With --http: accept the OAuth access tokens (JWTs) of this authorization server, checked against its published keys; cordon publishes /.well-known/oauth-protected-resource naming it. Needs --auth-audience.",
      },
      {
        name: "auth-audience",
        type: "string",
        placeholder: "<url>",
        description:
          "With --auth-issuer: the audience tokens must be issued for: the URL clients reach /mcp by (e.g. https://mcp.example.com/mcp), which clients ask tokens for.",
      },
      {
        name: "auth-token-file",
        type: "string",
        placeholder: "<file>",
        description: `With --http: also accept the bearer token in this file (its first line, at least ${MIN_STATIC_TOKEN_CHARS} characters; the file must be mode 600), for scripts.`,
      },
      {
        name: "no-auth",
        type: "boolean",
        description:
          "With --http beyond loopback: serve without authentication (something in front of cordon authenticates clients).",
      },
      {
        name: "allow-host",
        type: "string",
        multiple: true,
        placeholder: "<name>",
        description:
          "Another name clients address --http by (repeatable). Requests naming any other host are refused (DNS rebinding); loopback names and the --host address are always allowed.",
      },
      ENV,
      {
        ...approve("the MCP client's user"),
        placeholder: MCP_APPROVE_POLICIES.join("|"),
        description: `${approve("the MCP client's user").description} web decides each one on a one-time approval page on the --http port, whose URL goes to the client (URL-mode elicitation) and to the log; only with --http.`,
      },
      TIMEOUT,
      {
        name: "upstream-timeout",
        type: "string",
        placeholder: "<ms>",
        description: `How long an upstream server may take to answer one call, in ms (default ${DEFAULT_UPSTREAM_TIMEOUT_MS}); a call it does not answer in time fails with kind timeout.`,
      },
      {
        name: "upstream-start-timeout",
        type: "string",
        placeholder: "<ms>",
        description: `How long an upstream server may take to start and list its tools, in ms (default ${DEFAULT_UPSTREAM_START_TIMEOUT_MS}).`,
      },
      {
        name: "upstream-max-message",
        type: "string",
        placeholder: "<bytes>",
        description: `The longest message read from an upstream server, in bytes (default ${DEFAULT_UPSTREAM_MAX_MESSAGE_BYTES}); a longer one fails the call it answers, and the server keeps running.`,
      },
      {
        name: "search-tools",
        type: "string",
        placeholder: "auto|on|off",
        description:
          "Also offer search_tools, and list only tool names in run_code's description: auto does so when the declarations are too long (default).",
      },
      {
        name: ALLOW_SVG_OPTION.slice(2),
        type: "boolean",
        description: `Also send the client SVG images the code returns (${SVG_MIME_TYPE}). SVG can carry scripts and links: allow it only for a client that shows images without running them.`,
      },
      {
        name: "plan",
        type: "boolean",
        description:
          "run_code makes a plan first: reads run, each call of a tool with effects (effect: true) gives its preview, and the whole plan is decided at once by --approve (one approval page or question listing every effect); allowed, it is carried out, each effect once, and anything else the code asks for is denied.",
      },
      TYPECHECK,
      {
        name: "typecheck-workers",
        type: "string",
        placeholder: "<n>",
        description: `With --typecheck block or report: how many threads type-check at once, 1 to ${MAX_TYPECHECK_WORKERS} (default ${DEFAULT_TYPECHECK_WORKERS}, about 115 MB each, started when needed). Each client connection's checks go one at a time and connections take turns, so one client's slow checks hold up another's by about one check's time budget (${DEFAULT_TYPECHECK_TIME_MS} ms), not by its whole queue.`,
      },
      {
        ...OBSERVED_TYPES,
        description: `${OBSERVED_TYPES.description} The types read at the start are in run_code's description; those learnt while serving are written as they come and show in search_tools, and in the description once the tools change or the server starts again. With --http the file is every client's, so it needs --share-observed-types.`,
      },
      {
        name: "task-dir",
        type: "string",
        placeholder: "<dir>",
        description:
          "Where the tasks of run_code called as a task are kept (each 0600; the folder 0700), so that they outlive a restart: default $XDG_STATE_HOME/cordon/mcp-tasks (~/.local/state/cordon/mcp-tasks). They are sealed with the checkpoint key (CORDON_CHECKPOINT_KEY, else ~/.config/cordon/checkpoint.key).",
      },
      {
        name: "share-observed-types",
        type: "boolean",
        description:
          "With --http: show the result types learnt from one client's results (their keys: e-mail addresses, code names...) to every client, as search_tools hints and in run_code's description. Without it each session learns its own, shown to it alone in search_tools, and forgotten when it ends.",
      },
    ],
    positionals: { min: 0, max: 0 },
    examples: [
      "cordon mcp --tools examples/shop/tools.ts",
      'cordon mcp --tools examples/shop/tools.ts --upstream files="npx -y @modelcontextprotocol/server-filesystem ." --http 3000',
    ],
    load: async () => {
      // The MCP SDK is an optional peer: say how to install it before the server's modules fail to load.
      requireMcpSdk("cordon mcp");
      return import("./commands/mcp.js");
    },
  },
  {
    name: "serve",
    summary: "Run sandboxes for remote agents (their remoteEnvironment connects here).",
    usage: [
      "serve [--port <port>] [--host <address>] [--env default|docker] [--max-sandboxes <n>] [--max-sandboxes-per-client <n>]",
    ],
    details: [
      "Serves sandboxes over an authenticated WebSocket at /sandbox: agents elsewhere use remoteEnvironment({ url, token }) or `--env remote`, and their tools stay on their side (calls from code travel back over the connection, so approval and policies happen where the tools live). The token is read from CORDON_TOKEN (at least " +
        `${MIN_TOKEN_CHARS} characters), never from the command line, where other users could read it.`,
      "It listens on 127.0.0.1 by default and speaks plain ws://: put a TLS reverse proxy in front of it to serve other hosts (the README shows nginx). Runs until SIGINT or SIGTERM.",
    ],
    options: [
      {
        name: "port",
        type: "string",
        placeholder: "<port>",
        description: `The port to listen on (0 picks a free one). Default ${DEFAULT_SERVE_PORT}.`,
      },
      {
        name: "host",
        type: "string",
        placeholder: "<address>",
        description: "The address to listen on. Default 127.0.0.1.",
      },
      {
        name: "env",
        type: "string",
        placeholder: "default|docker",
        description: "Where the served sandboxes run: default (sandbox processes on this host) or docker.",
      },
      {
        name: "max-sandboxes",
        type: "string",
        placeholder: "<n>",
        description: `Sandboxes open at once over every client; beyond it a run ends with a busy error. The environment may run as many sandbox processes (or containers), one per sandbox when tenants cannot share, so that no client's share keeps another's runs waiting. Default ${DEFAULT_MAX_SANDBOXES}.`,
      },
      {
        name: "max-sandboxes-per-client",
        type: "string",
        placeholder: "<n>",
        description:
          "Sandboxes one client may hold at once, so that no token holder takes them all. Default: half of --max-sandboxes.",
      },
    ],
    positionals: { min: 0, max: 0 },
    examples: ["CORDON_TOKEN=$(openssl rand -hex 24) cordon serve --port 7700"],
    load: () => import("./commands/serve.js"),
  },
  {
    name: "image build",
    summary: "Build the sandbox container image for --env docker, with no registry.",
    usage: ["image build [--tag <tag>]"],
    details: [
      "Builds the image dockerEnvironment() runs, FROM scratch, on the Docker engine of DOCKER_HOST (or the local one): this machine's own node binary and the libraries it loads, the sandbox-host program and isolated-vm. Nothing is pulled. Each engine keeps its own images: build on every engine you use.",
    ],
    options: [
      {
        name: "tag",
        type: "string",
        placeholder: "<tag>",
        description: "The image tag. Default: the tag this version of cordon runs.",
      },
    ],
    positionals: { min: 0, max: 0 },
    examples: ["cordon image build", "DOCKER_HOST=tcp://10.0.0.7:2375 cordon image build"],
    load: () => import("./commands/image-build.js"),
  },
];

/** The command named by the first words of `argv`, and how many words named it. */
export function findCommand(argv: readonly string[]): { spec: CommandSpec; words: number } | undefined {
  for (const spec of COMMANDS) {
    const words = spec.name.split(" ");
    if (words.every((word, i) => argv[i] === word)) return { spec, words: words.length };
  }
  return undefined;
}
