/**
 * The labels one run has received (see docs/effects.md). Sound per run: once an outcome of a labelled
 * tool (a value or an error) has reached the code, every later call to a tool a flow policy covers gets
 * the policy's action, whatever the code did to the data. Precise where it can be: for a call sent to a
 * person, the arguments holding text of a labelled result are marked. Outcomes are only kept as they
 * arrive (no copy, no parse); they are read once a call needs marks.
 */

import type { BridgeCallOutcome } from "../../sandbox/contract/index.js";
import type { ArgumentMark, FlowApproval } from "../dispatch/flow-approval.js";
import type { ResolvedFlows, ToolFlow } from "./flows.js";
import { TextIndex } from "./text-index.js";

/**
 * The shortest piece of a labelled result's text an argument must contain to be marked as holding it;
 * a shorter string is marked only when it equals a whole string of the result.
 */
export const MIN_MARKED_CHARS = 16;

/** The shortest string of a result whose exact value marks an argument equal to it. */
const MIN_EQUAL_CHARS = 3;

/** How many labelled outcomes a session keeps the text of, for marks in its later runs. */
const SESSION_KEPT_OUTCOMES = 100;

/** One outcome of a labelled tool that a run received. */
export interface LabelledOutcome {
  tool: string;
  /** The call's place in its run, from 0: it is `<tool> #<index + 1>`. */
  index: number;
  labels: readonly string[];
  /** How many calls the code had made when it arrived: calls from this one on may have used it. */
  after: number;
  /** What the code received; absent for an earlier run's outcome whose text was not kept. */
  outcome?: BridgeCallOutcome;
  /** It came in an earlier run of the same session: it applies to every call of this one. */
  earlier?: boolean;
}

/** A labelled outcome as a run's result names it: `{ label: "untrusted", from: "web_fetch #3" }`. */
export interface LabelSource {
  label: string;
  from: string;
}

/** What a flow policy says about one call: nothing, a refusal with its message, or an approval. */
export type FlowVerdict =
  | undefined
  | { action: "deny"; message: string }
  | { action: "approve"; flow: FlowApproval };

/** What a run's labels are made from: which tools label their results, and the code mode's flows. */
export interface RunLabelsInit {
  /** The labels of each tool that has any, by real name. */
  labelled: ReadonlyMap<string, readonly string[]>;
  flows: ResolvedFlows | undefined;
  /**
   * A name the code used that is not a real tool name, as the dispatcher would repair it; undefined for
   * a real name (it needs no repair) and for one nothing repairs.
   */
  resolve: (name: string) => string | undefined;
  /** Labelled outcomes of the session's earlier runs. */
  inherited?: readonly LabelledOutcome[];
}

/** The labels of one run (see the file's comment). */
export class RunLabels {
  readonly #init: RunLabelsInit;
  readonly #outcomes: LabelledOutcome[];
  /** The values of each outcome, made the first time a call needs marks. */
  readonly #values = new WeakMap<LabelledOutcome, OutcomeValues>();
  /** The text of the outcomes, indexed the first time a call needs marks (then as they come). */
  readonly #text = new TextIndex<LabelledOutcome>(MIN_MARKED_CHARS);
  /** How many of {@link #outcomes} are in {@link #values} and {@link #text}. */
  #indexed = 0;

  constructor(init: RunLabelsInit) {
    this.#init = init;
    this.#outcomes = [...(init.inherited ?? [])];
  }

  /** The labelled outcomes received so far (those of the session's earlier runs first). */
  get outcomes(): readonly LabelledOutcome[] {
    return this.#outcomes;
  }

  /** Whether the run has received anything labelled: its value, console and error are then fenced. */
  get labelled(): boolean {
    return this.#outcomes.length > 0;
  }

  /** The labelled outcomes, once each (label, call): what a run's result says it received. */
  sources(): LabelSource[] {
    const seen = new Set<string>();
    const sources: LabelSource[] = [];
    for (const outcome of this.#outcomes) {
      for (const label of outcome.labels) {
        const source = { label, from: nameOf(outcome) };
        const key = `${label}\u0000${source.from}`;
        if (seen.has(key)) continue;
        seen.add(key);
        sources.push(source);
      }
    }
    return sources;
  }

  /**
   * Call `index` of tool `tool` (the name the code or the journal used) ended with `outcome`, when the
   * code had made `after` calls. Costs a map lookup for a tool without labels.
   */
  received(index: number, tool: string, outcome: BridgeCallOutcome, after: number): void {
    const { labelled } = this.#init;
    if (labelled.size === 0) return;
    let labels = labelled.get(tool);
    if (labels === undefined) {
      const real = this.#init.resolve(tool);
      labels = real === undefined ? undefined : labelled.get(real);
      if (labels === undefined) return;
      tool = real!;
    }
    this.#outcomes.push({ tool, index, labels, after, outcome });
  }

  /**
   * What the flow policies say about call `index` to `tool` with `argsJson`: outcomes that arrived
   * before the code made it count, later ones do not (the code could not have used them).
   */
  verdict(index: number, tool: string, argsJson: string): FlowVerdict {
    const { flows } = this.#init;
    if (flows === undefined || this.#outcomes.length === 0) return undefined;
    let rules = flows.byTool.get(tool);
    if (rules === undefined) {
      const real = this.#init.resolve(tool);
      rules = real === undefined ? undefined : flows.byTool.get(real);
      if (rules === undefined) return undefined;
      tool = real!;
    }
    const approving: { rule: ToolFlow; sources: LabelledOutcome[] }[] = [];
    for (const rule of rules) {
      const sources = this.#outcomes.filter(
        (outcome) =>
          outcome.labels.includes(rule.label) && (outcome.earlier === true || outcome.after <= index),
      );
      if (sources.length === 0) continue;
      if (rule.action === "deny") return { action: "deny", message: denial(tool, rule.label, sources) };
      approving.push({ rule, sources });
    }
    if (approving.length === 0) return undefined;
    const marks: ArgumentMark[] = [];
    for (const { rule, sources } of approving) marks.push(...this.#marks(argsJson, rule.label, sources));
    const [{ rule, sources }] = approving as [(typeof approving)[number]];
    return {
      action: "approve",
      flow: {
        reason: `this run received data labelled "${rule.label}" from ${listed(sources)} before this call, and the code mode's flow policy sends ${tool} calls after such data to a person`,
        marks,
      },
    };
  }

  /**
   * The labelled outcomes to hand to the session's next run: the last {@link SESSION_KEPT_OUTCOMES}
   * with their text, and of the older ones (their text dropped) the newest of each tool and set of
   * labels, which is all a policy or a result's sources can still tell apart, so a long session's list
   * stays bounded.
   */
  forSession(): LabelledOutcome[] {
    const kept = this.#outcomes
      .slice(-SESSION_KEPT_OUTCOMES)
      .map((outcome) => ({ ...outcome, earlier: true }));
    const older = this.#outcomes.slice(0, Math.max(0, this.#outcomes.length - SESSION_KEPT_OUTCOMES));
    const newestOlder = new Map<string, LabelledOutcome>();
    for (const { outcome: _text, ...outcome } of older) {
      const key = `${outcome.tool}\u0000${outcome.labels.join("\u0000")}`;
      newestOlder.delete(key);
      newestOlder.set(key, { ...outcome, earlier: true });
    }
    return [...newestOlder.values(), ...kept];
  }

  /** The arguments of `argsJson` that hold text or values of `sources`. */
  #marks(argsJson: string, label: string, sources: readonly LabelledOutcome[]): ArgumentMark[] {
    let args: unknown;
    try {
      args = JSON.parse(argsJson);
    } catch {
      return [];
    }
    this.#index();
    const applies = new Set(sources);
    const marks: ArgumentMark[] = [];
    const top = typeof args === "object" && args !== null && !Array.isArray(args);
    walk(args, "", undefined, (value, path, argument) => {
      let holds: ArgumentMark["holds"] = "value";
      let source = sources.find((outcome) => this.#values.get(outcome)?.has(value) === true);
      if (source === undefined && typeof value === "string") {
        holds = "text";
        source = this.#text.find(value, (owner) => applies.has(owner));
      }
      if (source === undefined) return;
      marks.push({
        path: path === "" ? "(the arguments)" : path,
        ...(top && argument !== undefined ? { argument } : {}),
        holds,
        from: nameOf(source),
        label,
      });
    });
    return marks;
  }

  /** Indexes the outcomes not indexed yet: their strings' text, and their values. */
  #index(): void {
    for (; this.#indexed < this.#outcomes.length; this.#indexed++) {
      const source = this.#outcomes[this.#indexed]!;
      if (source.outcome === undefined) continue;
      const { texts, values } = contentOf(source.outcome);
      this.#values.set(source, values);
      this.#text.add(texts.join("\u0000"), source);
    }
  }
}

/** `web_fetch #3`, or `web_fetch #3 of an earlier run` for one of the session's earlier runs. */
function nameOf(outcome: LabelledOutcome): string {
  return `${outcome.tool} #${outcome.index + 1}${outcome.earlier === true ? " of an earlier run" : ""}`;
}

/** `web_fetch #3`, `web_fetch #3 and web_search #1`, `web_fetch #3 and 4 more calls`. */
function listed(sources: readonly LabelledOutcome[]): string {
  const first = nameOf(sources[0]!);
  if (sources.length === 1) return first;
  if (sources.length === 2) return `${first} and ${nameOf(sources[1]!)}`;
  return `${first} and ${sources.length - 1} more calls`;
}

/** The message of a call a flow policy refused: the label, the call it came from, and why it holds. */
function denial(tool: string, label: string, sources: readonly LabelledOutcome[]): string {
  return `${tool} was not run: this run received data labelled "${label}" from ${listed(sources)}, and the code mode's flow policy does not let "${label}" data reach ${tool}. This holds for the rest of the run, whatever the code did with the data.`;
}

/** The values of an outcome an argument is marked for equalling: strings and numbers that say something. */
type OutcomeValues = Set<unknown>;

/** An outcome's strings (its value's, or its error's message) and its values worth an equality mark. */
function contentOf(outcome: BridgeCallOutcome): { texts: string[]; values: OutcomeValues } {
  const texts: string[] = [];
  const values: OutcomeValues = new Set();
  const add = (value: unknown) => {
    if (typeof value === "string") {
      texts.push(value);
      if (value.length >= MIN_EQUAL_CHARS) values.add(value);
    } else if (typeof value === "number" && Math.abs(value) > 9) values.add(value);
  };
  if (outcome.ok) {
    try {
      walk(JSON.parse(outcome.valueJson), "", undefined, add);
    } catch {
      add(outcome.valueJson);
    }
  } else add(outcome.error.message);
  return { texts, values };
}

/** How deep {@link walk} goes: marks are a help to the person, the policy holds whatever the depth. */
const MAX_WALK_DEPTH = 64;

/** Calls `visit` with every string and number in `value`, its path and its top-level key. */
function walk(
  value: unknown,
  path: string,
  argument: string | undefined,
  visit: (value: unknown, path: string, argument: string | undefined) => void,
  depth = 0,
): void {
  if (depth > MAX_WALK_DEPTH) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) walk(value[i], `${path}[${i}]`, argument, visit, depth + 1);
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const step = /^[A-Za-z_$][\w$]*$/.test(key)
        ? `${path === "" ? "" : "."}${key}`
        : `[${JSON.stringify(key)}]`;
      walk(item, path + step, argument ?? key, visit, depth + 1);
    }
  } else visit(value, path, argument);
}
