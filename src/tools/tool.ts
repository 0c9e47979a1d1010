/**
 * `tool()`: a Tool from a name, a description, an input schema and a function, checked at definition.
 * Also `defineTool()`/`isTool()` for Tools built by hand.
 */

import { UserError } from "../../common/errors.js";
import { isObject } from "./json-schema.js";
import { compileInput, deriveOutputSchema, type SchemaInput } from "./schema.js";
import type { InferStandardOutput, StandardSchemaV1 } from "./standard-schema.js";
import type { AnyTool, JsonSchema, RunContext, Tool, ToolOptions } from "./types.js";

/** What a label of a tool's results must look like (`untrusted`, `private`, `pii.email`). */
export const LABEL_PATTERN = /^[a-zA-Z0-9_.-]{1,64}$/;

/** What a tool name must look like (the rule every major provider accepts). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_.-]{1,64}$/;

/** The arguments `run` receives for an input schema: the schema's output type, or a plain record. */
export type InferArgs<Input> = Input extends StandardSchemaV1
  ? InferStandardOutput<Input>
  : Record<string, unknown>;

/** What {@link tool} takes. */
export interface ToolConfig<Input extends SchemaInput, Result> extends ToolOptions<InferArgs<Input>> {
  /** Unique among the tools the model sees; letters, digits, `_`, `.`, `-`, at most 64 characters. */
  name: string;
  /** What the model reads to decide when and how to call the tool: say what it does and returns. */
  description: string;
  /** The arguments: a zod 4 schema, a Standard JSON Schema, or a plain JSON Schema (an object schema). */
  input?: Input;
  /** The shape of what `run` returns, for declarations and documentation. It does not validate results. */
  output?: SchemaInput;
  /** The function: receives validated arguments and the run context; may be sync or async. */
  run: (args: InferArgs<Input>, ctx: RunContext) => Result;
}

const NO_ARGUMENTS: JsonSchema = { type: "object", properties: {} };

const OPTION_KEYS = [
  "strict",
  "parallel",
  "retries",
  "timeout",
  "maxOutputChars",
  "needsApproval",
  "approvalKeys",
  "waitsForHuman",
  "policies",
  "render",
  "readOnly",
  "idempotent",
  "effect",
  "revert",
  "preview",
  "copiesToSubagents",
  "observeResults",
  "labels",
] as const satisfies readonly (keyof ToolOptions)[];

const CONFIG_KEYS = new Set<string>(["name", "description", "input", "output", "run", ...OPTION_KEYS]);

const LIKELY_MEANT: Record<string, string> = {
  handler: "run",
  execute: "run",
  fn: "run",
  parameters: "input",
  schema: "input",
  inputSchema: "input",
  outputSchema: "output",
  requiresApproval: "needsApproval",
  requiresConfirmation: "needsApproval",
  maxRetries: "retries",
  timeoutMs: "timeout",
};

/**
 * Defines a tool. The JSON Schema the model sees comes from `input` (its input side, refs inlined,
 * descriptions kept); arguments are coerced and validated before `run` ever sees them. With
 * `strict: true` the schema is made OpenAI-strict (every object closed, every property required, optional
 * ones nullable) and nulls sent for optional fields are removed again before validation.
 *
 * Throws `UserError` at definition for a bad name, an empty description, a `run` that is not a function,
 * an unusable schema, or invalid options.
 *
 * @example
 * const getOrder = tool({
 *   name: "get_order",
 *   description: "Look up one order by its full id (e.g. A123). Returns status, item and amount.",
 *   input: z.object({ order_id: z.string().describe("Full order id, e.g. A123") }),
 *   run: async ({ order_id }) => lookup(order_id),
 * });
 */
export function tool<const Input extends SchemaInput, Result>(
  config: ToolConfig<Input, Result>,
): Tool<InferArgs<Input>, Awaited<Result>> {
  if (!isObject(config))
    throw new UserError("tool() takes one object: { name, description, input, run, ... }.");
  const name = checkName(config.name);
  checkDescription(name, config.description);
  for (const key of Object.keys(config)) {
    if (CONFIG_KEYS.has(key)) continue;
    const hint = LIKELY_MEANT[key] ? ` Did you mean "${LIKELY_MEANT[key]}"?` : "";
    throw new UserError(
      `Tool "${name}": unknown option "${key}".${hint} Known options: ${[...CONFIG_KEYS].join(", ")}.`,
    );
  }
  if (typeof config.run !== "function") {
    throw new UserError(
      `Tool "${name}": run must be a function (args, ctx) => result, got ${typeof config.run}.`,
    );
  }
  const options: ToolOptions<InferArgs<Input>> = {};
  for (const key of OPTION_KEYS) {
    if (config[key] !== undefined) Object.assign(options, { [key]: config[key] });
  }
  checkOptions(name, options);

  const compiled = compileInput<InferArgs<Input>>(config.input ?? NO_ARGUMENTS, {
    toolName: name,
    strict: options.strict === true,
  });
  const outputSchema = config.output === undefined ? undefined : deriveOutputSchema(config.output, name);
  return {
    name,
    description: config.description,
    parameters: compiled.parameters,
    ...(compiled.looseParameters ? { looseParameters: compiled.looseParameters } : {}),
    outputSchema,
    validate: compiled.validate,
    // `run` returns Result, which is Awaited<Result> or a promise of it.
    run: config.run as (
      args: InferArgs<Input>,
      ctx: RunContext,
    ) => Awaited<Result> | Promise<Awaited<Result>>,
    options,
  };
}

function checkName(name: unknown): string {
  if (typeof name !== "string" || name === "") {
    throw new UserError('A tool needs a name: tool({ name: "get_order", ... }).');
  }
  if (!TOOL_NAME_PATTERN.test(name)) {
    throw new UserError(
      `Tool name "${name}" is not allowed: use 1 to 64 letters, digits, "_", "." or "-" (no spaces), e.g. "get_order".`,
    );
  }
  return name;
}

function checkDescription(name: string, description: unknown): void {
  if (typeof description !== "string" || description.trim() === "") {
    throw new UserError(
      `Tool "${name}" needs a description: it is all the model reads to decide when and how to call it. ` +
        "Say what the tool does, what its arguments mean and what it returns.",
    );
  }
}

function isNonNegativeInteger(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function isPositiveNumber(value: unknown): boolean {
  return typeof value === "number" && value > 0 && !Number.isNaN(value);
}

/** Checks a tool's options; throws `UserError` naming the option and what it accepts. */
function checkOptions(name: string, options: unknown): void {
  if (!isObject(options)) throw new UserError(`Tool "${name}": options must be an object.`);
  const bad = (option: string, expected: string) =>
    new UserError(`Tool "${name}": ${option} must be ${expected}, got ${String(options[option])}.`);
  for (const key of [
    "strict",
    "parallel",
    "readOnly",
    "idempotent",
    "effect",
    "copiesToSubagents",
    "waitsForHuman",
    "observeResults",
  ]) {
    if (options[key] !== undefined && typeof options[key] !== "boolean") throw bad(key, "true or false");
  }
  if (options.retries !== undefined && !isNonNegativeInteger(options.retries)) {
    throw bad("retries", "a whole number >= 0 (attempts after the first)");
  }
  if (options.timeout !== undefined && !isPositiveNumber(options.timeout)) {
    throw bad("timeout", "a number of milliseconds > 0");
  }
  if (
    options.maxOutputChars !== undefined &&
    !(isPositiveNumber(options.maxOutputChars) && Number.isInteger(options.maxOutputChars))
  ) {
    throw bad("maxOutputChars", "a whole number of characters > 0");
  }
  const approval = options.needsApproval;
  if (approval !== undefined && typeof approval !== "boolean" && typeof approval !== "function") {
    throw bad("needsApproval", "true, false or a function (args, ctx) => boolean");
  }
  const keys = options.approvalKeys;
  if (keys !== undefined && !(Array.isArray(keys) && keys.every((key) => typeof key === "string"))) {
    throw bad("approvalKeys", "an array of argument names");
  }
  if (options.policies !== undefined) {
    if (!Array.isArray(options.policies) || options.policies.some((p) => typeof p !== "function")) {
      throw new UserError(
        `Tool "${name}": policies must be an array of functions (invoke, args, ctx) => result.`,
      );
    }
  }
  const labels = options.labels;
  if (
    labels !== undefined &&
    !(
      Array.isArray(labels) && labels.every((label) => typeof label === "string" && LABEL_PATTERN.test(label))
    )
  ) {
    throw new UserError(
      `Tool "${name}": labels must be an array of label names (1 to 64 letters, digits, "_", "." or "-"), such as ["untrusted"]; got ${JSON.stringify(labels)}.`,
    );
  }
  if (options.render !== undefined && typeof options.render !== "function") {
    throw bad("render", "a function (value, ctx) => string");
  }
  if (options.revert !== undefined && typeof options.revert !== "function") {
    throw bad("revert", "a function (args, result, ctx) => unknown that undoes a successful call");
  }
  if (options.preview !== undefined) {
    if (typeof options.preview !== "function") {
      throw bad("preview", "a function (args, ctx) => a result like the real one");
    }
    if (options.effect !== true) {
      throw new UserError(
        `Tool "${name}": preview is what cm.plan gives the code in place of running a tool that has effects; set effect: true as well (a tool without effects runs in a plan as it is).`,
      );
    }
  }
}

/** What is wrong with a value meant to be a Tool (empty when nothing is). */
function toolProblems(value: unknown): string[] {
  if (!isObject(value)) return ["it is not an object"];
  const problems: string[] = [];
  if (typeof value.name !== "string" || !TOOL_NAME_PATTERN.test(value.name)) {
    problems.push(`name must match ${TOOL_NAME_PATTERN} (got ${JSON.stringify(value.name) ?? "undefined"})`);
  }
  if (typeof value.description !== "string" || value.description.trim() === "") {
    problems.push("description must be a non-empty string");
  }
  if (!isObject(value.parameters) || value.parameters.type !== "object") {
    problems.push('parameters must be a JSON Schema object with type "object"');
  }
  if (value.looseParameters !== undefined && !isObject(value.looseParameters)) {
    problems.push("looseParameters must be a JSON Schema object or undefined");
  }
  if (value.outputSchema !== undefined && !isObject(value.outputSchema)) {
    problems.push("outputSchema must be a JSON Schema object or undefined");
  }
  if (typeof value.validate !== "function") problems.push("validate must be a function (args) => result");
  if (typeof value.run !== "function") problems.push("run must be a function (args, ctx) => result");
  if (!isObject(value.options)) problems.push("options must be an object (it may be empty)");
  return problems;
}

/** Whether a value has the shape of a {@link Tool}. */
export function isTool(value: unknown): value is AnyTool {
  return toolProblems(value).length === 0;
}

/**
 * Checks a hand-built Tool (shape and options) and returns it. Throws `UserError` listing every problem.
 * Use `tool()` unless you need full control of `parameters` and `validate`.
 */
export function defineTool<T extends AnyTool>(t: T): T {
  const problems = toolProblems(t);
  const label = isObject(t) && typeof t.name === "string" ? `Tool "${t.name}"` : "This value";
  if (problems.length > 0) {
    throw new UserError(
      `${label} is not a valid Tool: ${problems.join("; ")}. Build it with tool() or fix these fields.`,
    );
  }
  checkOptions(t.name, t.options);
  return t;
}
