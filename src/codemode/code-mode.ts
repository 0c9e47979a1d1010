/**
 * `codeMode()` made in two steps: its options resolved (`resolve-options.ts`, a function of the options
 * alone), then the wiring here: declarations, the index, the type checker, sessions, the run_code tool,
 * and what runs share.
 */

import { UserError } from "../../common/errors.js";
import { currentRuntime, stripsTypeScript } from "../../common/runtime.js";
import type { Environment } from "../../sandbox/contract/index.js";
import { Dispatcher } from "../dispatch/dispatcher.js";
import type { ToolResult } from "../dispatch/types.js";
import type { Toolset } from "../tools/toolset.js";
import type { Tool } from "../tools/types.js";
import { CHECKED_TOOLS_INTERFACE, type DeclaredTool, toolDeclarations } from "./declarations.js";
import { declaredToolsOf } from "./declared-tools.js";
import { toolIndexText } from "./discovery/index-text.js";
import { estimateTokens } from "./discovery/token-estimate.js";
import { createToolIndex, type ToolIndex } from "./discovery/tool-index.js";
import type { IncompleteRun } from "./durable/run-journal.js";
import type { ResolvedFlows } from "./flows.js";
import { changedSince } from "./given-tools.js";
import { codeModeInstructions, type InstructionFacts, toolDescription } from "./instructions.js";
import { type CodeModeLimits, sandboxLimitsOf } from "./limits.js";
import { type ObservedResults, observeResultsOf } from "./observed/results.js";
import type { ObservedTypes } from "./observed/store.js";
import { type ObservedType, renderObservedType } from "./observed/types.js";
import type { CodeModeOptions } from "./options.js";
import { CheckpointRefused, digestOf } from "./pause/checkpoint.js";
import {
  type CheckpointClaims,
  type CheckpointSummary,
  claimCheckpoint,
  confirmUse,
  decisionsFor,
  inspectPausedRun,
  openPausedRun,
  peopleFor,
  type ResumeDecisions,
} from "./pause/pause.js";
import { incompleteRuns, type RecoverOptions, recoverRun } from "./recover-run.js";
import {
  isClaims,
  JOURNAL_WITHOUT_SESSIONS,
  journalOf,
  type ResolvedCodeModeOptions,
  resolveCodeModeOptions,
} from "./resolve-options.js";
import type { CodeRunResult } from "./result.js";
import { RevertableRuns, type RevertOutcome } from "./revert.js";
import { type CodeRunOptions, failedRun, type RunSetup, runCode, SESSIONS_DO_NOT_PAUSE } from "./run.js";
import { callResult, type PausedToolCall, type RunCodeArgs, runCodeTool } from "./run-code-tool.js";
import { SessionPool } from "./sessions.js";
import { typescriptPath } from "./typecheck/resolve-typescript.js";
import { TypeChecker } from "./typecheck/type-checker.js";

export type {
  CodeModeOptions,
  DiscoveryMode,
  DiscoveryOptions,
  ObserveOptions,
  PauseOptions,
  SessionOptions,
  TypeCheckOptions,
} from "./options.js";
export { DEFAULT_INLINE_BUDGET } from "./resolve-options.js";
export {
  type CodeRunOptions,
  SESSION_REPLACED,
  SESSION_TAMPERED,
} from "./run.js";
export { CodeRunFailed, type PausedToolCall, type RunCodeArgs } from "./run-code-tool.js";

/** What {@link CodeMode.resume} is given besides the checkpoint. */
export interface ResumeOptions extends Omit<ResumeDecisions, "decisions"> {
  /**
   * Decisions on the calls that wait for approval and, for a plan, on its effects, by call id; or
   * `"approve-all"`: every effect and every approval the sealed checkpoint lists is approved.
   */
  decisions?: ResumeDecisions["decisions"] | "approve-all";
  /**
   * How a call that needs a person is met from here on: `"pause"` (the default) pauses the run again;
   * `"wait"` waits for the answer as a run that does not pause would (the dispatcher's approval handler
   * or stream reader decide; a pending call given no decision is then asked about too).
   */
  approval?: "wait" | "pause";
  /** Cancels the resumed run. */
  signal?: AbortSignal;
  /**
   * `"revert"`: a resumed run that fails (or whose replay diverges) reverts its effects, those made
   * before the pause too (see `CodeRunOptions.onFailure`). A checkpoint does not keep the paused run's
   * own choice; a durable run's journal does, and its recovery follows it.
   */
  onFailure?: CodeRunOptions["onFailure"];
  /** The context of the run_code call that resumes it, when dispatched. */
  parent?: CodeRunOptions["parent"];
  /**
   * Resume the paused run again on purpose, as a fork: the checkpoint is neither checked for a claim nor
   * claimed, so it may have been resumed before and may be resumed after. Each fork runs its decided
   * calls live: their effects happen once per fork. Default false: a checkpoint resumes once.
   */
  fork?: boolean;
  /**
   * Where this resume claims its checkpoint, instead of the code mode's `pause.store` (or this
   * process's memory): for an adapter that keeps the checkpoints it resumes in a store of its own, as
   * `cordon/ai-sdk`'s pausing does. Needs `claim` and `release`.
   */
  claimIn?: CheckpointClaims;
}

/** What {@link codeMode} returns. */
export interface CodeMode {
  /** The run_code tool: add it to what the model sees. */
  readonly tool: Tool<RunCodeArgs, CodeRunResult>;
  /** TypeScript declarations of `tools`, with descriptions as JSDoc. */
  readonly declarations: string;
  /**
   * Prompt text: how to write the code, the limits, the isolation, and (with `discovery: {
   * declarationsIn: "instructions" }`) the declarations.
   */
  readonly instructions: string;
  /** The resolved limits. */
  readonly limits: Readonly<CodeModeLimits>;
  /**
   * How the model learns the tools, as decided: `"inline"` (it reads {@link declarations}) or `"search"`
   * (it reads an index, and its code has `tools.$search` and `tools.$describe`).
   */
  readonly discovery: "inline" | "search";
  /** Runs code without a model. */
  run(code: string, options?: CodeRunOptions): Promise<CodeRunResult>;
  /**
   * Makes a plan of the code: it runs with the calls of tools without `effect: true` live (and
   * journaled), and each call of an `effect: true` tool not run: its `preview` result goes to the code
   * and the call is listed. Ends `planned`, with a `checkpoint` and the `effects` ({ id, tool, args });
   * `resume(checkpoint, { decisions })` then carries it out: the reads are replayed, each approved effect
   * runs once, and anything else (an effect not approved, or asked with other arguments) pauses. An
   * effect without a preview ends the plan `paused` there, listed in `pending`. Needs the code mode's
   * `pause.key`; not with sessions or a journal. Its options are a run's, but for `approval` and
   * `journal`. See docs/effects.md.
   */
  plan(code: string, options?: Omit<CodeRunOptions, "approval" | "journal">): Promise<CodeRunResult>;
  /**
   * Goes on with a paused run: its code runs again from the start in a fresh sandbox, every call its
   * checkpoint recorded gets its recorded outcome (the tool does not run again), the clock and
   * Math.random give what they gave, and then the calls that waited proceed with `decisions` (by pending
   * id: approved, or denied) and `answers` (for questions). A pending call with neither waits again, and
   * the run pauses again. A checkpoint resumes once: the resume claims it (see `PauseOptions.store`) after
   * every check and before anything runs, and a second resume is refused, problem `reused`, unless it
   * asks to `fork`. A resume that ends before any call went live (the sandbox did not start, the replay
   * diverged, it was cancelled or timed out while replaying) gives the claim back. Rejects with
   * `CheckpointRefused` (nothing ran) when the checkpoint was altered, made with another key, expired,
   * made for other tools or limits, resumed already, or refused by `onCheckpointUsed`, and with a
   * `UserError` when a decision names a call that does not wait.
   */
  resume(checkpoint: string, options?: ResumeOptions): Promise<CodeRunResult>;
  /**
   * {@link resume} for a run_code call that paused (its result failed with kind `paused`, carrying
   * `error.paused`): the resumed run as the result of that same call, as the model reads it. A run that
   * pauses again gives a `paused` failure again, with the new checkpoint. Rejects as `resume` does.
   */
  resumeCall(call: PausedToolCall, options?: ResumeOptions): Promise<ToolResult>;
  /**
   * What a checkpoint waits for (its id, times and pending calls), read from the sealed checkpoint after
   * the checks a resume makes: show this to the person, not a copy kept elsewhere. Throws
   * `CheckpointRefused` as `resume` rejects.
   */
  inspect(checkpoint: string): CheckpointSummary;
  /** The learnt result types (see `CodeModeOptions.observe`), for saving or sharing. */
  readonly observedTypes: ObservedTypes;
  /**
   * The observed result type of a tool (by its name, or its name in code), when it is observed and has
   * one: what `Returns (observed): ...` shows, rendered by `renderObservedType`.
   */
  observedTypeOf(toolName: string): ObservedType | undefined;
  /**
   * Makes the declarations again with the result types learnt so far, so that `declarations`,
   * `instructions` and the run_code tool's description show `Returns (observed): <type>` for the tools
   * that have one. They never change otherwise: what a model was given stays the same for as long as a
   * conversation wants its prompt cached. Call it between conversations (or when a changed prompt is
   * fine). Returns whether they changed.
   */
  refreshDeclarations(): boolean;
  /**
   * Continues a durable run (`codeMode({ journal })`) whose process died, or that paused, in this
   * process: its journal is read and every record's seal checked, its lease claimed (of several
   * recoverers one wins), and its code runs again; the journaled calls get their journaled outcomes and
   * the run goes on live, in the same journal. A call that was in flight when the process died runs
   * again (with the same `ctx.idempotencyKey`) when its tool is `idempotent: true`; otherwise the
   * recovery ends `paused` with a pending call of kind `unknown-outcome` and nothing runs until
   * `decisions` settles it (`{ rerun: true }`, `{ failed: reason }` or `{ result }`). Decisions and
   * answers for a paused run's approvals and questions are given as to {@link resume}. Rejects with
   * `RecoveryRefused` (nothing ran) when the journal was altered, sealed with another key, is another
   * run's, was made for other tools or limits, is still leased, or was claimed by another recoverer
   * first. A run that ended answers with its result, replayed from its journal: no call runs again and
   * nothing is written. `journal` names the run's own store when it had one (`cm.run(code, { journal })`).
   * See docs/durability.md.
   */
  recover(runId: string, options?: RecoverOptions): Promise<CodeRunResult>;
  /**
   * The durable runs whose lease ran out and that did not end (their process died, or they paused and
   * wait for a person), oldest first, at most `limit` (default 100): what {@link recover} takes.
   */
  incompleteRuns(limit?: number): Promise<IncompleteRun[]>;
  /**
   * Reverts the effects of a finished run (its result as `run` gave it, with its `revertToken`), last
   * first, each through its tool's `revert` as a dispatcher call of its own, as `onFailure: "revert"`
   * does for a run that fails. Effects a revert undid already are not reverted again (listed in
   * `alreadyReverted`); one whose revert failed or was denied is tried again. The effects are kept in
   * this process, for the code mode's most recent runs with effects. Throws `UserError` for a result
   * whose effects are not kept. See docs/effects.md.
   */
  revert(result: CodeRunResult, options?: { signal?: AbortSignal }): Promise<RevertOutcome>;
  /** Disposes every sandbox and the environment. */
  close(): Promise<void>;
}

/**
 * Code mode in the environment `options.environment`: what `codeMode()` is once the public surface
 * (`src/defaults.ts`) has filled in the default environment. cordon's own command and MCP server, which
 * always choose an environment, call it directly.
 */
export function createCodeMode(options: CodeModeOptions & { environment: Environment }): CodeMode {
  const resolved = resolveCodeModeOptions(options);
  const { environment } = resolved;
  if (environment === undefined) {
    throw new UserError("codeMode needs an environment, for example isolateEnvironment().");
  }
  return wire({ ...resolved, environment });
}

/** The code mode made of resolved options. */
function wire(options: ResolvedCodeModeOptions & { environment: Environment }): CodeMode {
  const { toolset, environment, name, limits, state } = options;
  const dispatcher = options.dispatcher ?? new Dispatcher(toolset);
  const { identifiers, declared: declaredTools } = declaredToolsOf(toolset);
  // The tools as declared: a run refuses to start once one of them is gone from the toolset or replaced.
  const declaredAsMade = new Map(toolset.list().map((t) => [t.name, t]));
  // Learnt result types: recorded from every successful call; shown only when declarations are made.
  const observed = observeResultsOf(options.observe, toolset, dispatcher, identifiers);
  const declarations = toolDeclarations(observed.declare(declaredTools));
  const discovery = discoveryMode(options.discovery, declarations);
  const index = discovery === "search" ? searchIndex(toolset, observed) : undefined;
  const checker = typeChecker(options.typecheck, declaredTools, identifiers, index !== undefined);
  // Calls of these may wait minutes for a person: the sandbox does not hold a thread waiting inside them.
  const { flows } = options;
  const waitingTools = [...new Set(Object.values(identifiers))].filter((real) => {
    const options = toolset.get(real)?.options;
    // A flow policy that sends a tool's calls to a person makes them wait for one too.
    const flowApproves = flows?.byTool.get(real)?.some((flow) => flow.action === "approve") === true;
    return (
      options !== undefined &&
      (flowApproves || options.waitsForHuman === true || (options.needsApproval ?? false) !== false)
    );
  });
  const sandboxLimits = sandboxLimitsOf(limits);
  const sessions = new SessionPool(environment, sandboxLimits, {
    idleMs: options.sessions.idleMs,
    maxSessions: options.sessions.max,
  });
  const facts: InstructionFacts = {
    toolName: name,
    declarations,
    limits,
    state,
    sessionIdleMs: options.sessions.idleMs,
    isolation: environment.isolation,
    environmentName: environment.name,
    declarationsIn: options.discovery.declarationsIn,
    humanTools: Object.entries(identifiers)
      .filter(([, real]) => toolset.get(real)?.options.waitsForHuman === true)
      .map(([identifier]) => identifier),
    typecheck: options.typecheck.mode,
    language: stripsTypeScript(currentRuntime()) ? "TypeScript" : "JavaScript",
    discovery: index
      ? {
          index: toolIndexText(index, { budget: options.discovery.inlineBudget, measure: estimateTokens }),
          tools: index.size,
        }
      : undefined,
  };
  const setup: RunSetup = {
    environment,
    dispatcher,
    limits,
    sandboxLimits,
    toolName: name,
    toolNames: identifiers,
    waitingTools,
    sessions: state === "session" ? sessions : undefined,
    approval: options.approval,
    pause: options.pause && { settings: options.pause, binding: bindingOf(toolset, limits) },
    durable:
      options.journal && options.pause
        ? { ...options.journal, key: options.pause.key, binding: bindingOf(toolset, limits) }
        : undefined,
    typecheck:
      checker && options.typecheck.mode !== "off"
        ? { mode: options.typecheck.mode, checker, sessionNames: new WeakMap() }
        : undefined,
    index,
    reverts: new RevertableRuns(),
    labels: labelSetup(toolset, flows),
  };
  let closed = false;
  /** Whether a run may start: the code mode is open, and its declared tools are still the dispatcher's. */
  const refusal = (): CodeRunResult | undefined => {
    if (closed) return failedRun("Error", "This code mode has been closed.", performance.now());
    const changed = changedSince(declaredAsMade, dispatcher.toolset);
    if (changed !== undefined) {
      throw new UserError(
        `codeMode: the dispatcher's tools changed after this code mode was made (${changed}), so what the model read no longer says what its calls would run: make a new code mode for the new tools.`,
      );
    }
    return undefined;
  };
  /** The setup of one run: the code mode's, with the run's own journal when it gives one. */
  const setupFor = (journal: CodeRunOptions["journal"], where: string): RunSetup => {
    if (journal === undefined) return setup;
    if (!setup.pause) {
      throw new UserError(
        `${where}: journal needs the code mode's pause.key: the secret that seals the journal's records, the same wherever the run is recovered.`,
      );
    }
    if (state === "session") throw new UserError(`${where}: ${JOURNAL_WITHOUT_SESSIONS}`);
    const { store, leaseMs } = journalOf(journal, where)!;
    return {
      ...setup,
      durable: { store, leaseMs, key: setup.pause.settings.key, binding: setup.pause.binding },
    };
  };
  const run = async (code: string, runOptions?: CodeRunOptions): Promise<CodeRunResult> =>
    refusal() ?? runCode(setupFor(runOptions?.journal, "run"), code, runOptions);
  const plan = async (code: string, planOptions: CodeRunOptions = {}): Promise<CodeRunResult> => {
    if (!setup.pause) {
      throw new UserError(
        "plan needs the code mode's pause.key: a plan is a checkpoint, sealed with that key, that carries it out later.",
      );
    }
    if (state === "session") throw new UserError(`plan: ${SESSIONS_DO_NOT_PAUSE}`);
    if (setup.durable) {
      throw new UserError(
        "plan: a code mode with a journal does not make plans yet: make the plan with a code mode that has the same tools and pause.key and no journal.",
      );
    }
    const { journal: _j, ...rest } = planOptions;
    return refusal() ?? runCode(setup, code, { ...rest, approval: "plan" });
  };
  // A run_code call's plan with nothing to approve is carried out at once: only reads were in it.
  const planForCall = async (code: string, callOptions: CodeRunOptions): Promise<CodeRunResult> => {
    const made = await plan(code, callOptions);
    if (made.status !== "planned" || made.effects?.length !== 0 || made.pending?.length) return made;
    const { signal, parent } = callOptions;
    return resumeRun(setup, made.checkpoint!, {
      ...(signal ? { signal } : {}),
      ...(parent ? { parent } : {}),
    });
  };
  const runCodeToolMade = runCodeTool({
    name,
    description: toolDescription(facts),
    state,
    language: facts.language,
    maxOutputChars: limits.maxOutputChars,
    clientOf: options.typecheck.clientOf,
    run: (code, callOptions) =>
      (callOptions.approval ?? setup.approval) === "plan"
        ? planForCall(code, callOptions)
        : run(code, callOptions),
  });

  let instructions = codeModeInstructions(facts);
  observed.start();
  return {
    tool: runCodeToolMade,
    get declarations() {
      return facts.declarations;
    },
    get instructions() {
      return instructions;
    },
    limits,
    discovery,
    run,
    plan,
    async resume(checkpoint, resumeOptions = {}) {
      return refusal() ?? (await resumeRun(setup, checkpoint, resumeOptions));
    },
    inspect(checkpoint) {
      if (!setup.pause)
        throw new UserError("inspect needs the code mode's pause.key: the key the run paused with.");
      return inspectPausedRun(setup.pause.settings, checkpoint, setup.pause.binding);
    },
    async resumeCall(call, resumeOptions = {}) {
      const started = performance.now();
      const result = await this.resume(call.paused.checkpoint, resumeOptions);
      return callResult(call, result, name, limits.maxOutputChars, started);
    },
    async recover(runId, recoverOptions) {
      return (
        refusal() ?? (await recoverRun(setupFor(recoverOptions?.journal, "recover"), runId, recoverOptions))
      );
    },
    async incompleteRuns(limit) {
      return incompleteRuns(setup, limit);
    },
    async revert(result, revertOptions = {}) {
      const token = (result as Partial<CodeRunResult> | undefined)?.revertToken;
      return setup.reverts!.revert(dispatcher, token, revertOptions);
    },
    observedTypes: observed.store,
    observedTypeOf: observed.typeOf,
    refreshDeclarations() {
      const made = toolDeclarations(observed.declare(declaredTools));
      if (made === facts.declarations) return false;
      facts.declarations = made;
      instructions = codeModeInstructions(facts);
      (runCodeToolMade as { description: string }).description = toolDescription(facts);
      return true;
    },
    async close() {
      if (closed) return;
      closed = true;
      observed.stop();
      await checker?.close();
      await sessions.close();
      await environment.close();
    },
  };
}

/** Goes on with a paused run (see {@link CodeMode.resume}). */
async function resumeRun(
  setup: RunSetup,
  checkpoint: string,
  options: ResumeOptions,
): Promise<CodeRunResult> {
  const { pause } = setup;
  if (!pause) throw new UserError("resume needs the code mode's pause.key: the key the run paused with.");
  if (setup.sessions) throw new UserError(`resume: ${SESSIONS_DO_NOT_PAUSE}`);
  const { signal, parent, approval, fork = false, claimIn } = options;
  if (typeof fork !== "boolean") {
    throw new UserError(`resume: fork must be true or false, got ${JSON.stringify(fork)}.`);
  }
  if (claimIn !== undefined && !isClaims(claimIn)) {
    throw new UserError("resume: claimIn must have claim(id, expires) and release(id).");
  }
  const { body, run: paused } = await openPausedRun(pause.settings, checkpoint, pause.binding);
  const given = options.decisions;
  if (given !== undefined && given !== "approve-all" && (typeof given !== "object" || given === null)) {
    throw new UserError(
      `resume: decisions must be an object of decisions by call id, or "approve-all"; got ${JSON.stringify(given)}.`,
    );
  }
  const decisions = decisionsFor(paused, given);
  if (paused.runId !== undefined) {
    // A durable run's journal is what goes on, claimed there once: never the checkpoint beside it.
    if (!setup.durable) {
      throw new CheckpointRefused(
        "store",
        `This checkpoint is of durable run ${paused.runId}: resume it where its journal is (codeMode({ journal })), or cm.recover("${paused.runId}", { decisions }). Nothing ran.`,
      );
    }
    const { answers } = options;
    return recoverRun(setup, paused.runId, {
      ...(decisions ? { decisions } : {}),
      ...(answers ? { answers } : {}),
      ...(approval ? { approval } : {}),
      ...(signal ? { signal } : {}),
    });
  }
  const people = peopleFor(paused, {
    ...(decisions ? { decisions } : {}),
    ...(options.answers ? { answers: options.answers } : {}),
  });
  // Last of the checks, first of the steps that change anything: of two resumes, one goes on.
  const release = fork ? undefined : await claimCheckpoint(claimIn ?? pause.settings.claims, body);
  let live = false;
  try {
    await confirmUse(pause.settings, body, fork);
    return await runCode(
      setup,
      paused.code,
      {
        ...(signal ? { signal } : {}),
        ...(parent ? { parent } : {}),
        ...(approval ? { approval } : {}),
        ...(options.onFailure === undefined ? {} : { onFailure: options.onFailure }),
      },
      {
        run: paused,
        people,
        onLive: () => {
          live = true;
        },
      },
    );
  } finally {
    // Nothing went live: the checkpoint may resume again. A release that fails leaves it claimed,
    // which never causes a double effect.
    if (release && !live) await release().catch(() => {});
  }
}

/**
 * What a code mode's checkpoints are bound to: the tools' names, schemas and labels, and the limits. A key alone
 * lets this code mode resume what another one paused, when both agree on these.
 */
function bindingOf(toolset: Toolset, limits: CodeModeLimits): NonNullable<RunSetup["pause"]>["binding"] {
  const tools = toolset
    .names()
    .sort()
    .map((name) => {
      const t = toolset.get(name)!;
      // What a tool's results carry binds too: a resume with other labels would track other flows.
      const labels = t.options.labels;
      return {
        name,
        parameters: t.parameters,
        output: t.outputSchema ?? null,
        ...(labels !== undefined && labels.length > 0 ? { labels: [...new Set(labels)].sort() } : {}),
      };
    });
  return { tools: digestOf(tools), limits: digestOf(limits) };
}

/** What runs track of labels: nothing when no tool labels its results and there are no flows. */
function labelSetup(toolset: Toolset, flows: ResolvedFlows | undefined): RunSetup["labels"] {
  const labelled = new Map<string, readonly string[]>();
  for (const t of toolset.list()) {
    const labels = t.options.labels;
    if (labels !== undefined && labels.length > 0) labelled.set(t.name, [...new Set(labels)]);
  }
  if (labelled.size === 0) return undefined;
  return { labelled, flows, sessions: new WeakMap() };
}

/** How the model learns the tools, as decided: `"auto"` inlines them while they fit its budget. */
function discoveryMode(
  discovery: ResolvedCodeModeOptions["discovery"],
  declarations: string,
): "inline" | "search" {
  if (discovery.mode !== "auto") return discovery.mode;
  return estimateTokens(declarations) > discovery.inlineBudget ? "search" : "inline";
}

/**
 * The index `tools.$search` and `tools.$describe` answer from. Both declare a tool through it
 * (`declareTool`), with the tool's observed result type as it is at that moment: they are answers in a
 * run, not part of a cached prompt.
 */
function searchIndex(toolset: Toolset, observed: ObservedResults): ToolIndex {
  return createToolIndex(
    toolset.names().map((real) => toolset.get(real)!),
    {
      observedReturns: (real) => {
        const type = observed.typeOf(real);
        return type && renderObservedType(type);
      },
    },
  );
}

/** The type checker, started now so that it is warm by the first run; none with `typecheck` off. */
function typeChecker(
  typecheck: ResolvedCodeModeOptions["typecheck"],
  declared: readonly DeclaredTool[],
  identifiers: Readonly<Record<string, string>>,
  searching: boolean,
): TypeChecker | undefined {
  if (typecheck.mode === "off") return undefined;
  return new TypeChecker({
    typescriptPath: typescriptPath(typecheck.resolveTypeScript, `codeMode: typecheck "${typecheck.mode}"`),
    declarations:
      toolDeclarations(declared, { forChecking: true }) +
      (searching ? `\n${CHECKED_DISCOVERY_DECLARATIONS}` : ""),
    toolNames: identifiers,
    limits: typecheck.limits,
    workers: typecheck.workers,
  });
}

/** What `tools.$search` and `tools.$describe` are for the type check (merged into `interface Tools`). */
const CHECKED_DISCOVERY_DECLARATIONS = `interface ${CHECKED_TOOLS_INTERFACE} {
  $search(query: string, options?: { limit?: number }): Promise<{ name: string; description: string; declaration: string }[]>;
  $describe(name: string): Promise<string>;
}`;
