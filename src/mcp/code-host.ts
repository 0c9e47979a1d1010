/**
 * The code mode behind cordon's MCP server: one `run_code` tool over the catalog (local tools and
 * upstream servers' tools), rebuilt whenever the catalog changes, with approvals for gated calls
 * decided per request by whoever the caller names (an MCP client's person, or a policy).
 */

import { randomBytes, randomUUID } from "node:crypto";
import { messageOf, UserError } from "../../common/errors.js";
import type { Environment } from "../../sandbox/contract/index.js";
import { type CodeMode, createCodeMode } from "../codemode/code-mode.js";
import { createToolIndex, type ToolIndex } from "../codemode/discovery/tool-index.js";
import { type CodeModeLimits, DEFAULT_CODE_MODE_LIMITS } from "../codemode/limits.js";
import { observesResults } from "../codemode/observed/results.js";
import { ObservedTypes } from "../codemode/observed/store.js";
import { type ObservedType, renderObservedType } from "../codemode/observed/types.js";
import type { PauseOptions } from "../codemode/options.js";
import type { ResumeDecisions } from "../codemode/pause/pause.js";
import type { CodeRunResult } from "../codemode/result.js";
import type { TypeCheckMode } from "../codemode/typecheck/types.js";
import { Dispatcher } from "../dispatch/dispatcher.js";
import type { FlowApproval } from "../dispatch/flow-approval.js";
import type { PausedWork, PendingCall } from "../dispatch/paused-work.js";
import type { DispatchEvent, ToolResult } from "../dispatch/types.js";
import { Toolset } from "../tools/toolset.js";
import type { JsonSchema } from "../tools/types.js";
import type { CatalogSnapshot, ToolCatalog } from "./catalog.js";
import { ClientDirectory, type ClientLink, clientLinkOf, linkDeps } from "./client-link.js";
import { MAX_CONTENT_ITEMS } from "./content.js";
import { consoleToClient, withRunConsole } from "./run-console.js";
import { runProgress } from "./run-progress.js";
import {
  namesOnlyDeclarations,
  SEARCH_THRESHOLD_CHARS,
  SEARCH_TOOL_INPUT,
  SEARCH_TOOL_NAME,
  searchToolDescription,
  searchTools,
} from "./search-tools.js";
import type { TenantKey } from "./tenant.js";
import { TenantObservedTypes } from "./tenant-observed-types.js";
import { UpstreamGateway } from "./upstream/gateway.js";

/** When to offer search_tools: always, never, or when the declarations are too long to list. */
export type SearchToolsMode = "auto" | "on" | "off";

/** One gated call the code made, waiting for a decision. */
export interface ApprovalRequest {
  /** The tool's name as registered (`github__delete_repo`). */
  toolName: string;
  /** The validated arguments: what the tool receives if the call is allowed. */
  args: unknown;
  /** The arguments to show first (the tool's `approvalKeys`). */
  approvalKeys?: readonly string[];
  /** Set when a flow policy asks: why, and the arguments holding labelled data. */
  flow?: FlowApproval;
  /** Aborts when the call no longer waits (the run ended, or the approval timed out). */
  signal: AbortSignal;
  /**
   * For a plan (`CodeHostOptions.plan`): the whole plan, decided at once: every effect, and any call
   * that waits for approval. `toolName` is then run_code's and `args` the plan's effects.
   */
  plan?: readonly PendingCall[];
}

/** A decision on a gated call. */
export type ApprovalDecision = { approved: true } | { approved: false; reason: string };

/** Decides gated calls; a rejection (or a throw) denies. */
export type Approver = (request: ApprovalRequest) => Promise<ApprovalDecision>;

/** A tool as the MCP server lists it. */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** Options of {@link CodeHost}. */
export interface CodeHostOptions {
  catalog: ToolCatalog;
  /** Where code runs; the host owns it and closes it in {@link CodeHost.close}. */
  environment: Environment;
  limits?: Partial<CodeModeLimits>;
  searchTools?: SearchToolsMode;
  /** Whether run_code type-checks the code first (see `CodeModeOptions.typecheck`). Default "off". */
  typecheck?: TypeCheckMode;
  /**
   * How many threads type-check at once (see `TypeCheckOptions.workers`). Each MCP connection
   * (a stdio client, an HTTP session) is a client of its own: its checks go one at a time, and
   * connections take turns.
   */
  typecheckWorkers?: number;
  /** Where to report a catalog change that could not be taken up. */
  log?: (line: string) => void;
  /**
   * Whether the result types learnt from one client's results are shown to every client. Default false:
   * each tenant (the tenant of the run's link: by default its connection, one stdio client or HTTP
   * session) learns its own, search_tools shows a client its tenant's latest, and run_code's description
   * shows none. True: one store for all (`observedTypes`, else a new one), which search_tools shows as it
   * is and run_code's description as it was when the tools last changed.
   */
  shareObservedTypes?: boolean;
  /**
   * The store shared when `shareObservedTypes` is true (see `ObserveOptions.store`), e.g. one
   * read from a file; it is every client's, so it is refused without `shareObservedTypes`.
   */
  observedTypes?: ObservedTypes;
  /** Told after each run_code call has ended (for example to save what `observedTypes` learnt). */
  afterRun?: () => void;
  /**
   * Whether run_code makes a plan first (code mode's `approval: "plan"`): the reads run, each call of an
   * `effect: true` tool gives its preview, and `approve` is asked once for the whole plan; approved, it
   * is carried out (each effect once; anything else the code then asks for is denied), denied, the code
   * sees each effect denied. Default false.
   */
  plan?: boolean;
  /**
   * How runs of run_code called as a task pause and resume (see {@link CodeHost.runPausing}): the
   * checkpoint key and the store the checkpoints' large values and claims go to. Without it, no run pauses.
   */
  pause?: PauseOptions;
}

/** What a pausing run goes on from: a paused run's checkpoint, and the person's decisions and answers. */
export interface PausedRunAnswers extends ResumeDecisions {
  checkpoint: string;
}

interface Generation {
  cm: CodeMode;
  /** The dispatcher the run_code call itself goes through; its stream carries the approvals. */
  outer: Dispatcher;
  snapshot: CatalogSnapshot;
  searching: boolean;
  description: string;
  /** The search index of the snapshot's tools, built at the first search. */
  index?: ToolIndex;
  /** run_code calls running on this generation now. */
  running: number;
  /** A newer generation serves new calls: this one is closed once its last call ends. */
  retired: boolean;
}

/** Where learnt result types are kept: one store for every client, or one per tenant. */
type LearntTypes = { shared: ObservedTypes } | { perTenant: TenantObservedTypes };

/** Tells the model that content items it returns reach its client as MCP content. */
const RETURNED_CONTENT_NOTE = `MCP content in the result: a valid image, audio, embedded resource or resource link item the code returns (\`{ type: "image" | "audio", mimeType, data }\` with base64 data, \`{ type: "resource", resource: { uri, mimeType?, text | blob } }\`, \`{ type: "resource_link", uri, name }\`), as the result, an element of a returned array or a property of a returned object, or one level inside those, is sent to you as MCP content of that type (at most ${MAX_CONTENT_ITEMS} items), and the report shows a short note in its place; an item of a MIME type or URI scheme that is not sent (only common image and audio types, and http(s) links or those an upstream tool gave) is replaced by a note saying why.`;

/** What a run_code call is run with. */
export interface RunCodeOptions {
  signal: AbortSignal;
  /** Decides the gated calls the code makes. */
  approve: Approver;
  /** The MCP client the call is for: it gets the run's progress and console output, and upstreams' questions. */
  link?: ClientLink;
}

/** The run_code tool (and search_tools) over a changing catalog. */
export class CodeHost {
  /** The MCP clients connected now; each server connection adds itself. */
  readonly clients = new ClientDirectory();
  /** The upstreams' resources, prompts and completions, for every connection to serve. */
  readonly gateway: UpstreamGateway;
  readonly #options: CodeHostOptions;
  readonly #environment: Environment;
  readonly #listeners = new Set<() => void>();
  readonly #ready: Promise<void>;
  #generation: Generation;
  /** Every generation not closed yet: the current one, and retired ones with calls still running. */
  readonly #open = new Set<Generation>();
  readonly #learnt: LearntTypes;
  #unsubscribe: () => void;

  constructor(options: CodeHostOptions) {
    this.#options = options;
    if (options.shareObservedTypes === true) {
      this.#learnt = { shared: options.observedTypes ?? new ObservedTypes() };
    } else if (options.observedTypes !== undefined) {
      throw new UserError(
        "CodeHost: an observedTypes store is shown to every client; give it with shareObservedTypes: true, or leave it out to keep each client's learnt types apart.",
      );
    } else {
      this.#learnt = { perTenant: new TenantObservedTypes() };
    }
    const shared = options.environment;
    const maxLogChars = options.limits?.maxLogChars ?? DEFAULT_CODE_MODE_LIMITS.maxLogChars;
    // Every generation's code mode shares one environment (its warm pool); only the host closes it.
    // Each sandbox sends its run's console output to the run's client as well.
    this.#environment = {
      name: shared.name,
      isolation: shared.isolation,
      open: async (limits) => consoleToClient(await shared.open(limits), maxLogChars),
      close: async () => {},
    };
    for (const upstream of options.catalog.upstreams) upstream.useClients(this.clients);
    this.gateway = new UpstreamGateway(options.catalog.upstreams, options.log);
    this.#generation = this.#build();
    this.#unsubscribe = options.catalog.onChange(() => this.#rebuild());
    this.#ready = options.catalog.start();
  }

  /** Resolves once every upstream has started or failed. */
  get ready(): Promise<void> {
    return this.#ready;
  }

  /** The name of the run_code tool. */
  get runCodeName(): string {
    return this.#generation.cm.tool.name;
  }

  /** How many characters of report a run_code call's text may have. */
  get maxOutputChars(): number {
    return this.#generation.cm.limits.maxOutputChars;
  }

  /**
   * How many generations of the catalog hold a code mode now: 1, plus one for each replaced generation
   * whose run_code calls have not ended yet (each holds its own type checker while it is open).
   */
  get openGenerations(): number {
    return this.#open.size;
  }

  /** Whether search_tools is offered now. */
  get searching(): boolean {
    return this.#generation.searching;
  }

  /** Calls `listener` when the tools (or run_code's description) changed. Returns an unsubscribe. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The tools an MCP client sees: run_code, and search_tools when the catalog is searched. */
  listTools(): ListedTool[] {
    const { cm, searching, description } = this.#generation;
    const tools: ListedTool[] = [{ name: cm.tool.name, description, inputSchema: cm.tool.parameters }];
    if (searching) {
      tools.push({
        name: SEARCH_TOOL_NAME,
        description: searchToolDescription(cm.tool.name),
        inputSchema: SEARCH_TOOL_INPUT,
      });
    }
    return tools;
  }

  /**
   * Declarations of the tools matching `query` (search_tools), with the result types learnt from
   * `tenant`'s results (every client's when they are shared; none for no tenant).
   */
  search(query: string, limit?: number, tenant?: TenantKey): string {
    const generation = this.#generation;
    const observedReturns = (name: string) => {
      const type = this.#observedTypeOf(generation, name, tenant);
      return type && renderObservedType(type);
    };
    // The index only ranks; the declarations it answers with are made from observedReturns above.
    generation.index ??= createToolIndex(generation.snapshot.tools);
    return searchTools(generation.snapshot.tools, query, limit, generation.index, observedReturns);
  }

  #observedTypeOf(
    generation: Generation,
    name: string,
    tenant: TenantKey | undefined,
  ): ObservedType | undefined {
    if ("shared" in this.#learnt) return generation.cm.observedTypeOf(name);
    const tool = generation.snapshot.tools.get(name);
    if (tenant === undefined || tool === undefined || !observesResults(tool)) return undefined;
    return this.#learnt.perTenant.find(tenant)?.typeOf(name);
  }

  /**
   * Runs one run_code call (`{ code, restart? }`) through the same pipeline a model's call takes. Gated
   * calls the code makes are decided by `approve`, one at a time. A run that did not end `ok` is a
   * failed result (`ok: false`) whose output is the whole report. With a `link`, the calls the code makes
   * go to it as progress, its console lines as log messages, and the upstream tools it calls find it.
   */
  async runCode(args: unknown, options: RunCodeOptions): Promise<ToolResult> {
    const { link } = options;
    try {
      return await (link
        ? withRunConsole(link, () => this.#runCode(args, options, link))
        : this.#runCode(args, options));
    } finally {
      try {
        this.#options.afterRun?.();
      } catch {
        // What the host does after a run must not change the run's result.
      }
    }
  }

  async #runCode(args: unknown, options: RunCodeOptions, link?: ClientLink): Promise<ToolResult> {
    const generation = this.#generation;
    generation.running++;
    try {
      return await this.#runOn(generation, args, options, link);
    } finally {
      generation.running--;
      if (generation.retired && generation.running === 0) await this.#closeGeneration(generation);
    }
  }

  async #runOn(
    generation: Generation,
    args: unknown,
    options: RunCodeOptions,
    link?: ClientLink,
  ): Promise<ToolResult> {
    const { cm, outer } = generation;
    // The link goes to every call of the run as its deps (nested dispatches inherit them).
    const handle = outer.dispatch(
      [{ id: `mcp-${randomUUID().slice(0, 8)}`, name: cm.tool.name, arguments: toArguments(args) }],
      { signal: options.signal, ...(link ? { deps: linkDeps(link) } : {}) },
    );
    const progress = link ? runProgress((message) => link.progress(message)) : undefined;
    const waiting = new Map<string, AbortController>();
    let queue = Promise.resolve();
    for await (const event of handle) {
      progress?.(event);
      if (event.type === "approval_required") {
        const controller = new AbortController();
        waiting.set(event.callId, controller);
        // The stream goes on while a person thinks; decisions are asked for one at a time.
        // Once answered, the question is no longer waiting: the decision event must not cancel it.
        const answered = () => waiting.delete(event.callId);
        queue = queue.then(() => decide(event, controller.signal, options.approve, answered));
      } else if (event.type === "approval_decided") {
        waiting.get(event.callId)?.abort();
        waiting.delete(event.callId);
      }
    }
    const { results } = await handle.outcome();
    const result = results[0]!;
    const paused = result.error?.kind === "paused" ? result.error.paused : undefined;
    if (paused?.effects === undefined) return result;
    return this.#carryOut(cm, result.callId, paused, options);
  }

  /**
   * A plan made by a run_code call: asked about once, whole, then carried out with every effect approved
   * or every one denied. What the code asks for beyond the plan finds no approver: it is denied.
   */
  async #carryOut(
    cm: CodeMode,
    callId: string,
    paused: PausedWork,
    options: RunCodeOptions,
  ): Promise<ToolResult> {
    let decision: ApprovalDecision;
    try {
      decision = await options.approve({
        toolName: cm.tool.name,
        args: paused.effects,
        signal: options.signal,
        plan: paused.pending,
      });
    } catch (error) {
      decision = { approved: false, reason: `the approval could not be asked for (${messageOf(error)})` };
    }
    const decisions = decision.approved
      ? ("approve-all" as const)
      : Object.fromEntries(
          paused.pending
            .filter((call) => call.kind === "approval")
            .map((call) => [call.id, { approved: false, reason: decision.reason }]),
        );
    return cm.resumeCall({ callId, paused }, { decisions, approval: "wait", signal: options.signal });
  }

  /**
   * Runs run_code's code (`{ code }`), or goes on with a paused one (`from`), so that a call that needs a
   * person pauses the run instead of waiting: the run of a task, which the person answers later, maybe
   * after a restart. Needs the `pause` option. `tenant` takes its turn in the type checks.
   */
  async runPausing(
    args: unknown,
    options: { signal: AbortSignal; tenant?: TenantKey; from?: PausedRunAnswers },
  ): Promise<CodeRunResult> {
    const generation = this.#generation;
    generation.running++;
    try {
      const { cm } = generation;
      const { signal, from } = options;
      if (from) {
        const { checkpoint, ...given } = from;
        return await cm.resume(checkpoint, { ...given, approval: "pause", signal });
      }
      const code = typeof args === "object" && args !== null ? (args as { code?: unknown }).code : undefined;
      if (typeof code !== "string")
        throw new UserError(`${cm.tool.name} needs { code: string }: the TypeScript to run.`);
      const client = tenantIdOf(options.tenant);
      return await cm.run(code, { approval: "pause", signal, ...(client === undefined ? {} : { client }) });
    } finally {
      generation.running--;
      if (generation.retired && generation.running === 0) await this.#closeGeneration(generation);
      try {
        this.#options.afterRun?.();
      } catch {
        // What the host does after a run must not change the run's result.
      }
    }
  }

  /** Stops the upstreams and the environment. */
  async close(): Promise<void> {
    this.#unsubscribe();
    this.gateway.close();
    await this.#options.catalog.close();
    await Promise.all([...this.#open].map((generation) => this.#closeGeneration(generation)));
    await this.#options.environment.close();
  }

  async #closeGeneration(generation: Generation): Promise<void> {
    if (!this.#open.delete(generation)) return;
    try {
      await generation.cm.close();
    } catch (error) {
      this.#options.log?.(`a replaced generation of the tools could not be closed: ${messageOf(error)}`);
    }
  }

  #rebuild(): void {
    const previous = this.#generation;
    try {
      this.#generation = this.#build();
    } catch (error) {
      // An upstream's new tools could not be declared: keep serving the previous generation.
      this.#options.log?.(
        `the changed tools could not be taken up, the previous ones stay: ${messageOf(error)}`,
      );
      return;
    }
    // Calls already running on the previous generation finish there; it closes (its type checker
    // worker with it) when the last one ends, so a burst of catalog changes holds no more than that.
    previous.retired = true;
    if (previous.running === 0) void this.#closeGeneration(previous);
    for (const listener of this.#listeners) listener();
  }

  #build(): Generation {
    const snapshot = this.#options.catalog.snapshot();
    const dispatcher = new Dispatcher(snapshot.tools);
    const learnt = this.#learnt;
    if ("perTenant" in learnt) {
      // Each result is learnt for the tenant of the run that made the call, never into the code mode's
      // own store, which its declarations (run_code's description, for every client) would show.
      dispatcher.observeResults((tool, value, ctx) => {
        const tenant = clientLinkOf(ctx.deps)?.tenant;
        if (tenant === undefined || snapshot.tools.get(tool.name) !== tool || !observesResults(tool)) return;
        learnt.perTenant.storeOf(tenant).record(tool.name, value);
      });
    }
    // An MCP client shows the model only the tool's description: it carries the declarations as well.
    const cm = createCodeMode({
      environment: this.#environment,
      dispatcher,
      // The server lists or searches its catalog itself (search_tools), from the declarations.
      discovery: { mode: "inline", declarationsIn: "instructions" },
      observe: "shared" in learnt ? { store: learnt.shared } : { results: false },
      typecheck: {
        mode: this.#options.typecheck ?? "off",
        ...(this.#options.typecheckWorkers === undefined ? {} : { workers: this.#options.typecheckWorkers }),
        // Type checks take turns by tenant (a connection unless the server names tenants), so one client's
        // hostile checks do not hold up another's.
        clientOf: (ctx) => tenantIdOf(clientLinkOf(ctx.deps)?.tenant),
      },
      ...(this.#options.limits ? { limits: this.#options.limits } : {}),
      ...(this.#options.pause ? { pause: this.#options.pause } : {}),
      // A plan is carried out within the run_code call that made it: without the server's own pause key,
      // a key of the generation's own seals it.
      ...(this.#options.plan
        ? { approval: "plan" as const, ...(this.#options.pause ? {} : { pause: { key: randomBytes(32) } }) }
        : {}),
    });
    const outer = new Dispatcher(new Toolset([cm.tool]), { approvalHandler: () => "ask" });
    const mode = this.#options.searchTools ?? "auto";
    const searching = mode === "on" || (mode === "auto" && cm.declarations.length > SEARCH_THRESHOLD_CHARS);
    let description = `${cm.instructions}\n${RETURNED_CONTENT_NOTE}\n`;
    if (searching && description.includes(cm.declarations)) {
      description = description.replace(cm.declarations, () => namesOnlyDeclarations(snapshot.tools));
    }
    if (snapshot.unavailable.length > 0) {
      const lines = snapshot.unavailable.map(({ name, reason }) => `- ${name}: ${reason}`);
      description += `\nThese MCP servers are not available now, so their tools are missing above:\n${lines.join("\n")}\n`;
    }
    const generation: Generation = {
      cm,
      outer,
      snapshot,
      searching,
      description,
      running: 0,
      retired: false,
    };
    this.#open.add(generation);
    return generation;
  }
}

/** A name for each tenant: its own when the server names tenants, else one per connection object. */
const tenantIds = new WeakMap<object, string>();
let unnamedTenants = 0;

function tenantIdOf(tenant: TenantKey | undefined): string | undefined {
  if (tenant === undefined) return undefined;
  if (typeof tenant === "string") return `tenant:${tenant}`;
  let id = tenantIds.get(tenant);
  if (id === undefined) {
    id = `connection:${++unnamedTenants}`;
    tenantIds.set(tenant, id);
  }
  return id;
}

async function decide(
  event: Extract<DispatchEvent, { type: "approval_required" }>,
  signal: AbortSignal,
  approve: Approver,
  answered: () => void,
): Promise<void> {
  if (signal.aborted) return;
  try {
    const { name: toolName, args, approvalKeys, flow } = event;
    const decision = await approve({
      toolName,
      args,
      signal,
      ...(approvalKeys ? { approvalKeys } : {}),
      ...(flow ? { flow } : {}),
    });
    answered();
    if (decision.approved) event.approve();
    else event.reject(decision.reason);
  } catch (error) {
    // The SDK repeats an error's "MCP error <code>: " when a client's error response is raised again.
    const message = messageOf(error).replace(/^(MCP error -?\d+: )\1+/, "$1");
    answered();
    event.reject(`the approval could not be asked for (${message})`);
  }
}

function toArguments(args: unknown): Record<string, unknown> | string | undefined {
  if (typeof args === "string") return args;
  if (typeof args === "object" && args !== null && !Array.isArray(args))
    return args as Record<string, unknown>;
  return undefined;
}
