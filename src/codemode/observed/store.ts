/**
 * The learnt result types of a set of tools, by tool name: each tool's successful results merged into one
 * observed type (see `types.ts`). Cheap on the path of every call: a tool's first results are
 * all observed, later ones sampled, and a type that has widened to `unknown` is left alone. Bounded in
 * the number of tools it keeps. Plain JSON out and in (`toJSON`, `ObservedTypes.fromJSON`), so a host
 * can keep it between processes.
 */

import { UserError } from "../../../common/errors.js";
import { observedTypeFromJson } from "./json.js";
import { type ObservedType, observe } from "./types.js";

/** How many tools a store keeps types for; past it, the tool observed least recently is dropped. */
export const MAX_OBSERVED_TOOLS = 1_000;

/** How many of a tool's first successful results are each observed. */
export const OBSERVE_FIRST_RESULTS = 20;

/** After the first ones, one successful result in this many is observed. */
export const OBSERVE_EVERY_NTH_RESULT = 10;

/** The longest tool name a store keeps. */
const MAX_OBSERVED_TOOL_NAME_CHARS = 256;

/** What names the JSON of an {@link ObservedTypes} store. */
const OBSERVED_TYPES_FORMAT = "cordon-observed-types";

/** The version of that JSON this cordon writes and reads. */
const OBSERVED_TYPES_VERSION = 1;

/** A store as JSON: per tool, how many successful results it has had and their observed type. */
export interface ObservedTypesJson {
  format: typeof OBSERVED_TYPES_FORMAT;
  version: typeof OBSERVED_TYPES_VERSION;
  tools: Record<string, { results: number; type: ObservedType }>;
}

interface Entry {
  /** Successful results recorded, sampled or not. */
  results: number;
  type: ObservedType | undefined;
}

/** Learnt result types by tool name. Code mode keeps one (`CodeMode.observedTypes`). */
export class ObservedTypes {
  // In order of the last observation: the first one is dropped when the store is full.
  readonly #tools = new Map<string, Entry>();
  #changes = 0;

  /**
   * Records one successful result of `tool`: its JSON value (`undefined` is `null`, a date its string)
   * is merged into the tool's type, for the first {@link OBSERVE_FIRST_RESULTS} results and then one in
   * {@link OBSERVE_EVERY_NTH_RESULT}. Never fails for an unusual value: what cannot be described is `unknown`.
   */
  record(tool: string, value: unknown): void {
    let entry = this.#tools.get(tool);
    if (entry === undefined) {
      if (typeof tool !== "string" || tool === "" || tool.length > MAX_OBSERVED_TOOL_NAME_CHARS) {
        throw new UserError(
          `ObservedTypes.record(tool, value): tool must be a tool's name (1 to ${MAX_OBSERVED_TOOL_NAME_CHARS} characters), got ${String(tool).slice(0, 80)}.`,
        );
      }
      entry = { results: 0, type: undefined };
      this.#keep(tool, entry);
    }
    entry.results++;
    if (entry.results > OBSERVE_FIRST_RESULTS && entry.results % OBSERVE_EVERY_NTH_RESULT !== 0) return;
    // Nothing merged into `unknown` makes it anything else.
    if (entry.type?.unknown) return;
    try {
      entry.type = observe(entry.type, value === undefined ? null : value);
    } catch {
      // A value whose getters throw is rendered with a placeholder: its shape is unknown.
      entry.type = { unknown: true };
    }
    this.#keep(tool, entry);
    this.#changes++;
  }

  /** The observed type of `tool`'s results, when it has had any. */
  typeOf(tool: string): ObservedType | undefined {
    return this.#tools.get(tool)?.type;
  }

  /** How many successful results of `tool` were recorded (sampled or not). */
  resultsOf(tool: string): number {
    return this.#tools.get(tool)?.results ?? 0;
  }

  /** The names of the tools with an observed type. */
  tools(): string[] {
    return [...this.#tools].filter(([, entry]) => entry.type !== undefined).map(([name]) => name);
  }

  /**
   * Goes up each time a type changes: a host that writes the store somewhere compares it with the value
   * at its last write.
   */
  get changes(): number {
    return this.#changes;
  }

  /** The store as plain JSON, for {@link ObservedTypes.fromJSON}. */
  toJSON(): ObservedTypesJson {
    const tools: ObservedTypesJson["tools"] = {};
    for (const [name, { results, type }] of this.#tools) {
      if (type !== undefined)
        Object.defineProperty(tools, name, { value: { results, type }, enumerable: true });
    }
    return { format: OBSERVED_TYPES_FORMAT, version: OBSERVED_TYPES_VERSION, tools };
  }

  /**
   * A store from what {@link toJSON} gave (parsed JSON). Throws a UserError naming what is wrong when
   * `json` is not such a store, or holds more than a store keeps.
   */
  static fromJSON(json: unknown): ObservedTypes {
    const fail = (why: string) =>
      new UserError(
        `Not a store of observed types: ${why} It should be what ObservedTypes.toJSON() gave (for a file, delete it and cordon writes a new one).`,
      );
    if (!isRecord(json) || json.format !== OBSERVED_TYPES_FORMAT) {
      throw fail(`it has no "format": "${OBSERVED_TYPES_FORMAT}".`);
    }
    if (json.version !== OBSERVED_TYPES_VERSION) {
      throw fail(
        `its version is ${JSON.stringify(json.version)}; this cordon reads version ${OBSERVED_TYPES_VERSION}.`,
      );
    }
    if (!isRecord(json.tools)) throw fail('its "tools" is not an object.');
    const names = Object.keys(json.tools);
    if (names.length > MAX_OBSERVED_TOOLS) {
      throw fail(`it has ${names.length} tools; a store keeps at most ${MAX_OBSERVED_TOOLS}.`);
    }
    const store = new ObservedTypes();
    for (const name of names) {
      if (name.length > MAX_OBSERVED_TOOL_NAME_CHARS)
        throw fail(`a tool name is longer than ${MAX_OBSERVED_TOOL_NAME_CHARS} characters.`);
      const entry = json.tools[name];
      const at = `tools[${JSON.stringify(name)}]`;
      if (!isRecord(entry) || !Number.isSafeInteger(entry.results) || (entry.results as number) < 1) {
        throw fail(`${at} must be { "results": <whole number >= 1>, "type": <observed type> }.`);
      }
      let type: ObservedType;
      try {
        type = observedTypeFromJson(entry.type, `${at}.type`);
      } catch (error) {
        throw fail((error as Error).message);
      }
      store.#tools.set(name, { results: entry.results as number, type });
    }
    return store;
  }

  /** Keeps `entry` as the most recently observed tool, dropping the least recent one past the bound. */
  #keep(tool: string, entry: Entry): void {
    this.#tools.delete(tool);
    this.#tools.set(tool, entry);
    if (this.#tools.size > MAX_OBSERVED_TOOLS) this.#tools.delete(this.#tools.keys().next().value!);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
