/**
 * `Toolset`: the tools a model may call, by unique name, and their export to provider formats.
 */
import { UserError } from "../../common/errors.js";
import { type CommandCall, type ParseCommandOptions, parseCommandLine } from "./command.js";
import { defineTool } from "./tool.js";
import type { AnyTool, JsonSchema } from "./types.js";

/** A tool as every provider describes it: name, description, JSON Schema of the arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** A tool in OpenAI's Chat Completions format. `strict` is present only for strict tools. */
export interface OpenAITool {
  type: "function";
  function: { name: string; description: string; parameters: JsonSchema; strict?: true };
}

/** A tool in Anthropic's Messages API format. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

/**
 * A collection of tools with unique names, in insertion order.
 *
 * `only()` and `without()` shrink what the model SEES; they are not authorization. A tool that must never
 * run for some caller has to be refused by an approval or a policy, not merely hidden.
 */
export class Toolset implements Iterable<AnyTool> {
  readonly #tools = new Map<string, AnyTool>();

  /** Starts with the given tools; a duplicate name throws `UserError`. */
  constructor(tools: Iterable<AnyTool> = []) {
    for (const t of tools) this.add(t);
  }

  /**
   * Adds a tool (checked with `defineTool`). A tool with the same name already present throws `UserError`
   * unless `replace: true`, which puts the new tool in the old one's place.
   */
  add(tool: AnyTool, options: { replace?: boolean } = {}): this {
    defineTool(tool);
    if (this.#tools.has(tool.name) && options.replace !== true) {
      throw new UserError(
        `A tool named "${tool.name}" is already in this toolset. Rename one of them, or add(tool, { replace: true }) to replace it.`,
      );
    }
    this.#tools.set(tool.name, tool);
    return this;
  }

  /** Removes a tool by name; false when there was none. */
  remove(name: string): boolean {
    return this.#tools.delete(name);
  }

  /** The tool with that name, if any. */
  get(name: string): AnyTool | undefined {
    return this.#tools.get(name);
  }

  /** Whether a tool with that name is present. */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** The tools, in insertion order. */
  list(): AnyTool[] {
    return [...this.#tools.values()];
  }

  /** The names of the tools, in insertion order. */
  names(): string[] {
    return [...this.#tools.keys()];
  }

  /** How many tools there are. */
  get size(): number {
    return this.#tools.size;
  }

  /**
   * A new Toolset holding only the named tools (in this set's order). Unknown names throw `UserError`.
   * This shrinks what the model sees; it is not authorization.
   */
  only(names: Iterable<string>): Toolset {
    const wanted = this.#known(names);
    return new Toolset(this.list().filter((t) => wanted.has(t.name)));
  }

  /**
   * A new Toolset without the named tools. Unknown names throw `UserError`.
   * This shrinks what the model sees; it is not authorization.
   */
  without(names: Iterable<string>): Toolset {
    const unwanted = this.#known(names);
    return new Toolset(this.list().filter((t) => !unwanted.has(t.name)));
  }

  /**
   * A new Toolset of the read-only tools only (`readOnly: true`): what a plan mode may run. Like `only()`,
   * it shrinks what the model sees; refusing a call outright is a job for approval or a policy.
   */
  readOnly(): Toolset {
    return new Toolset(this.list().filter((t) => t.options.readOnly === true));
  }

  /**
   * The toolset for a sub-agent: the tools that may be handed to sub-agents (`copiesToSubagents`, by
   * default true for read-only tools), each as a shallow copy made for this sub-agent (same prototype,
   * own properties copied), so the sub-agent cannot change the parent's tool objects. `names`, when
   * given, is the sub-agent's own whitelist: a listed tool that may not be handed over stays out; a
   * name this set does not have at all throws `UserError`.
   */
  forSubagent(names?: Iterable<string>): Toolset {
    const allowed = names === undefined ? undefined : this.#known(names);
    const copies: AnyTool[] = [];
    for (const t of this.list()) {
      if (allowed && !allowed.has(t.name)) continue;
      if (!(t.options.copiesToSubagents ?? t.options.readOnly === true)) continue;
      copies.push(shallowCopy(t));
    }
    return new Toolset(copies);
  }

  /**
   * Parses one typed command line (Bub's command prefix), e.g. `,get_order A123 verbose=true`, into a
   * validated call of the named tool, to run with `dispatcher.dispatch([call])` like a model's call.
   * Positional words fill the required parameters in order; `name=value` words set any parameter; quote
   * a value with spaces ("two words"). Resolves to `undefined` when the line does not start with the
   * prefix (default `,`); rejects with `UsageError`, whose message shows the tool's parameters, when the
   * command does not fit the tool.
   */
  parseCommand(line: string, options: ParseCommandOptions = {}): Promise<CommandCall | undefined> {
    return parseCommandLine(
      line,
      (name) => this.#tools.get(name),
      () => this.names(),
      options,
    );
  }

  #known(names: Iterable<string>): Set<string> {
    const set = new Set(typeof names === "string" ? [names] : names);
    const unknown = [...set].filter((n) => !this.#tools.has(n));
    if (unknown.length > 0) {
      const available = this.names();
      throw new UserError(
        `Unknown tool name${unknown.length > 1 ? "s" : ""}: ${unknown.map((n) => `"${n}"`).join(", ")}. ` +
          `Available: ${available.length > 0 ? available.join(", ") : "(none)"}.`,
      );
    }
    return set;
  }

  /** `{ name, description, parameters }` for every tool. */
  definitions(): ToolDefinition[] {
    return this.list().map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
  }

  /** The tools in OpenAI's format; `strict: true` is set only for tools defined with `strict: true`. */
  toOpenAITools(): OpenAITool[] {
    return this.list().map((t) => ({
      type: "function",
      function: {
        name: t.name,
        description: t.description,
        parameters: t.parameters,
        ...(t.options.strict === true ? { strict: true as const } : {}),
      },
    }));
  }

  /** The tools in Anthropic's format. */
  toAnthropicTools(): AnthropicTool[] {
    return this.list().map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
  }

  /** Iterates over the tools, in insertion order. */
  [Symbol.iterator](): Iterator<AnyTool> {
    return this.#tools.values();
  }
}

function shallowCopy(t: AnyTool): AnyTool {
  const copy = Object.create(Object.getPrototypeOf(t), Object.getOwnPropertyDescriptors(t)) as AnyTool;
  // The options object is shared by reference otherwise: copy it too, so neither side can change the other's.
  if (Object.getOwnPropertyDescriptor(copy, "options")?.writable) {
    (copy as { options: AnyTool["options"] }).options = { ...t.options };
  }
  return copy;
}
