/**
 * Turns a tool's `input` (a zod 4 schema, a Standard JSON Schema, or a plain JSON Schema object) into the
 * JSON Schema the model sees and a `validate` function that coerces and checks raw arguments.
 */

import { createRequire } from "node:module";
import type { Ajv, Options as AjvOptions, ErrorObject, ValidateFunction } from "ajv";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { z } from "zod";
import { type ArgumentIssue, messageOf, UserError } from "../../common/errors.js";
import { currentRuntime } from "../../common/runtime.js";
import { prepareArguments } from "./coerce.js";
import { fromAjvErrors, fromStandardIssues, fromZodIssues } from "./issues.js";
import {
  inlineRefs,
  isObject,
  normalizeSchema,
  toStrictSchema,
  typesOf,
  withoutNoise,
} from "./json-schema.js";
import type {
  StandardJSONSchemaConverter,
  StandardJSONSchemaV1,
  StandardResult,
  StandardSchemaV1,
} from "./standard-schema.js";
import type { JsonSchema, ValidationResult } from "./types.js";
import { unknownArguments } from "./unknown-arguments.js";

/** What a tool's `input` or `output` may be. */
export type SchemaInput = StandardSchemaV1 | StandardJSONSchemaV1 | JsonSchema;

/** A tool's input schema, ready for use: what the model sees and how arguments are checked. */
export interface CompiledInput<Args> {
  /** JSON Schema of the arguments for the model (refs inlined, strict when asked). */
  readonly parameters: JsonSchema;
  /** With strict mode: the same schema before it was made strict (optional fields optional). */
  readonly looseParameters?: JsonSchema;
  /** Coerces, (in strict mode) strips optional nulls, and validates against the original schema. */
  validate(args: unknown): ValidationResult<Args> | Promise<ValidationResult<Args>>;
}

const TARGET = "draft-2020-12";

const HOW_TO_PASS =
  "Pass a zod 4 schema, a Standard JSON Schema (a schema whose ~standard has jsonSchema), or a plain JSON Schema object.";

type Source =
  | { kind: "zod"; schema: z.core.$ZodType; json: JsonSchema }
  | { kind: "standard"; schema: StandardSchemaV1; json: JsonSchema }
  | { kind: "json"; json: JsonSchema; original: JsonSchema };

function isZod(value: object): value is z.core.$ZodType {
  return "_zod" in value && isObject((value as { _zod: unknown })._zod);
}

function standardProps(value: object): Record<string, unknown> | undefined {
  const props = (value as { "~standard"?: unknown })["~standard"];
  return isObject(props) ? props : undefined;
}

/** Reads `input` (or `output`) into a JSON Schema plus whatever validates it. */
function readSource(value: unknown, toolName: string, what: "input" | "output"): Source {
  if (!isObject(value) && typeof value !== "function") {
    throw new UserError(
      `Tool "${toolName}": ${what} must be a schema, got ${describe(value)}. ${HOW_TO_PASS}`,
    );
  }
  const io = what;
  if (isZod(value)) {
    // An input type JSON cannot carry (a Date, a bigint, a Map...) could never be sent by a model: refuse
    // it at definition. An output schema only documents results, so there it just becomes `{}`.
    const unrepresentable = what === "input" ? refuseUnrepresentable(toolName) : "any";
    const json = attempt(toolName, what, () =>
      z.toJSONSchema(value, { io, unrepresentable, target: TARGET }),
    );
    return { kind: "zod", schema: value, json };
  }
  const props = standardProps(value);
  if (props !== undefined) {
    const converter = props.jsonSchema as Partial<StandardJSONSchemaConverter> | undefined;
    if (!isObject(converter) || typeof converter[io] !== "function") {
      const zod3 = "_def" in value ? " It looks like a zod 3 schema: upgrade to zod 4." : "";
      throw new UserError(
        `Tool "${toolName}": the ${what} schema (from ${String(props.vendor)}) cannot produce JSON Schema.${zod3} ${HOW_TO_PASS}`,
      );
    }
    const json = attempt(toolName, what, () => converter[io]?.({ target: TARGET }) ?? {});
    if (typeof props.validate === "function")
      return { kind: "standard", schema: value as unknown as StandardSchemaV1, json };
    // A Standard JSON Schema that cannot validate: its own JSON Schema is checked with Ajv.
    return {
      kind: "json",
      json,
      original: { $schema: "https://json-schema.org/draft/2020-12/schema", ...json },
    };
  }
  if (typeof value === "function") {
    throw new UserError(`Tool "${toolName}": ${what} must be a schema, got a function. ${HOW_TO_PASS}`);
  }
  return { kind: "json", json: value, original: value };
}

type UnrepresentableHandler = z.core.UnrepresentableHandler<z.core.$ZodTypes>;

/** What to write instead of a zod type that JSON cannot carry, by the type's name in its def. */
const REPRESENTABLE_INSTEAD: Record<string, string> = {
  date:
    "A model sends dates as strings: use z.iso.datetime() (or z.iso.date()), or " +
    "z.iso.datetime().pipe(z.coerce.date()) to receive a Date (z.coerce.date() alone has no JSON Schema either)",
  bigint: "Use z.number().int(), or z.string().pipe(z.coerce.bigint()) to receive a bigint",
  map: "Use z.record(...) or an array of { key, value } objects",
  set: "Use z.array(...)",
  undefined: "Make the field optional with .optional() instead",
  void: "Make the field optional with .optional() instead",
  nan: "Use z.number()",
  function: "A model can only send JSON data",
  symbol: "A model can only send JSON data",
  literal: "Use literals of strings, numbers, booleans or null, and .optional() for a missing value",
  custom: "A model can only send JSON data: describe it with a JSON type (z.object, z.string...)",
};

/** Turns a path in the generated JSON Schema (`properties/a/items`) into a field path (`a[]`). */
function fieldPath(schemaPath: readonly (string | number)[]): string {
  let out = "";
  for (let i = 0; i < schemaPath.length; i++) {
    const segment = schemaPath[i];
    const next = schemaPath[i + 1];
    if ((segment === "properties" || segment === "$defs") && next !== undefined) {
      out += out === "" ? String(next) : `.${String(next)}`;
      i++;
    } else if (segment === "prefixItems" && next !== undefined) {
      out += `[${String(next)}]`;
      i++;
    } else if (segment === "items") {
      out += "[]";
    } else if (segment === "additionalProperties" || segment === "patternProperties") {
      out += "[*]";
      if (segment === "patternProperties") i++;
    } else if (["anyOf", "oneOf", "allOf"].includes(String(segment))) {
      i++; // a union or intersection member lives at the same field
    }
  }
  return out;
}

/**
 * The `unrepresentable` handler for a zod input: throws a `UserError` naming the tool and field, and what
 * to use instead. A plain `z.custom()` (a check that may well accept JSON values) becomes `{}`; a
 * `z.instanceof()` cannot match anything JSON produces and is refused.
 */
function refuseUnrepresentable(toolName: string): UnrepresentableHandler {
  return ({ zodSchema, path, message }) => {
    const def = zodSchema._zod.def;
    const bag = zodSchema._zod.bag as { Class?: unknown };
    if (def.type === "custom" && typeof bag.Class !== "function") return "any";
    const instead =
      def.type === "custom" && bag.Class === Date
        ? REPRESENTABLE_INSTEAD.date
        : (REPRESENTABLE_INSTEAD[def.type] ?? "A model can only send JSON data");
    const field = fieldPath(path);
    throw new UserError(
      `Tool "${toolName}": the input field ${field === "" ? "(the arguments object)" : `"${field}"`} cannot ` +
        `be sent as JSON (${message.replace(/\.$/, "")}). ${instead}.`,
    );
  };
}

function attempt(toolName: string, what: string, derive: () => unknown): JsonSchema {
  let json: unknown;
  try {
    json = derive();
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError(
      `Tool "${toolName}": could not derive JSON Schema from the ${what}: ${messageOf(error)}`,
    );
  }
  if (!isObject(json))
    throw new UserError(`Tool "${toolName}": the ${what} schema did not produce a JSON Schema object.`);
  return json;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

/**
 * Derives the JSON Schema of a tool's output (for `outputSchema` and type declarations). It is never used
 * to validate results.
 */
export function deriveOutputSchema(output: unknown, toolName: string): JsonSchema {
  const source = readSource(output, toolName, "output");
  return withoutNoise(inlineRefs(source.json, toolName), { dropFormatPatterns: source.kind === "zod" });
}

/**
 * Compiles a tool's `input` once, at definition. Throws `UserError` when the input is not a usable schema,
 * when its root is not an object, or (with `strict`) when it contains something strict mode cannot express.
 */
export function compileInput<Args>(
  input: unknown,
  options: { toolName: string; strict?: boolean },
): CompiledInput<Args> {
  const { toolName, strict = false } = options;
  const source = readSource(input, toolName, "input");
  const base = normalizeSchema(inlineRefs(source.json, toolName), {
    dropFormatPatterns: source.kind === "zod",
  });
  const types = typesOf(base);
  if (types.length !== 1 || types[0] !== "object") {
    throw new UserError(
      `Tool "${toolName}": the input schema must describe an object (type "object"), got ${
        types.length > 0 ? `type ${types.join(" | ")}` : "a schema without a type"
      }. Wrap the arguments in an object schema, e.g. z.object({ value: ... }).`,
    );
  }
  const parameters = strict ? toStrictSchema(base, toolName) : base;
  const check = checker<Args>(source, toolName);
  const prepareOptions = { stripOptionalNulls: strict };

  return {
    parameters,
    ...(strict ? { looseParameters: base } : {}),
    validate(args: unknown) {
      try {
        const prepared = prepareArguments(args, base, prepareOptions);
        const unknown = unknownArguments(prepared, base);
        const result = check(prepared);
        if (unknown.length === 0) return result instanceof Promise ? result.catch(failure<Args>) : result;
        // Unknown arguments come first, with whatever else is wrong with the call.
        return result instanceof Promise
          ? result.then((settled) => withUnknown(unknown, settled), failure<Args>)
          : withUnknown(unknown, result);
      } catch (error) {
        return failure<Args>(error);
      }
    },
  };
}

/** A failed validation listing the unknown arguments first, and every other issue once. */
function withUnknown<Args>(unknown: ArgumentIssue[], result: ValidationResult<Args>): ValidationResult<Args> {
  if (result.ok) return { ok: false, issues: unknown };
  const paths = new Set(unknown.map((issue) => issue.path));
  return { ok: false, issues: [...unknown, ...result.issues.filter((issue) => !paths.has(issue.path))] };
}

function failure<Args>(error: unknown): ValidationResult<Args> {
  return { ok: false, issues: [{ path: "", message: `could not be validated: ${messageOf(error)}` }] };
}

type Check<Args> = (data: unknown) => ValidationResult<Args> | Promise<ValidationResult<Args>>;

function checker<Args>(source: Source, toolName: string): Check<Args> {
  switch (source.kind) {
    case "zod":
      return zodChecker<Args>(source.schema);
    case "standard":
      return standardChecker<Args>(source.schema);
    case "json":
      return ajvChecker<Args>(source.original, toolName);
  }
}

function zodChecker<Args>(schema: z.core.$ZodType): Check<Args> {
  const settle = (data: unknown, result: z.ZodSafeParseResult<unknown>): ValidationResult<Args> =>
    result.success
      ? { ok: true, value: result.data as Args }
      : { ok: false, issues: nonEmpty(fromZodIssues(result.error.issues, data)) };
  return (data) => {
    try {
      // Parsing again for the issues' received values: `reportInput` makes every parse several times slower.
      const result = z.safeParse(schema, data);
      return settle(data, result.success ? result : z.safeParse(schema, data, { reportInput: true }));
    } catch (error) {
      // The schema has async refinements or transforms: parse asynchronously instead.
      if (!(error instanceof z.core.$ZodAsyncError)) throw error;
      return z.safeParseAsync(schema, data, { reportInput: true }).then((result) => settle(data, result));
    }
  };
}

function standardChecker<Args>(schema: StandardSchemaV1): Check<Args> {
  const settle = (result: StandardResult<unknown>): ValidationResult<Args> =>
    result.issues === undefined
      ? { ok: true, value: result.value as Args }
      : { ok: false, issues: nonEmpty(fromStandardIssues(result.issues)) };
  return (data) => {
    const result = schema["~standard"].validate(data);
    return result instanceof Promise ? result.then(settle) : settle(result);
  };
}

function ajvChecker<Args>(original: JsonSchema, toolName: string): Check<Args> {
  const validateFn = compileWithAjv(original, toolName);
  return (data) => {
    // Ajv writes defaults into the data it validates: give it a copy, never the caller's object.
    const copy = structuredClone(data);
    if (validateFn(copy)) return { ok: true, value: copy as Args };
    return { ok: false, issues: nonEmpty(fromAjvErrors((validateFn.errors ?? []) as ErrorObject[])) };
  };
}

const AJV_OPTIONS: AjvOptions = {
  allErrors: true,
  strict: false,
  useDefaults: true,
  verbose: true,
  // Unknown formats are not checked; Ajv would otherwise print a warning for each one.
  logger: { log: () => {}, warn: () => {}, error: (...args: unknown[]) => console.error(...args) },
};

/** Simple, conservative checks for the formats models are most often asked for. */
const FORMATS: Record<string, RegExp> = {
  date: /^\d{4}-\d{2}-\d{2}$/,
  time: /^\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[zZ]|[+-]\d{2}:\d{2})?$/,
  "date-time": /^\d{4}-\d{2}-\d{2}[tT ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[zZ]|[+-]\d{2}:\d{2})$/,
  // Same language as /^[^\s@]+@[^\s@]+\.[^\s@]+$/, which backtracks quadratically on a long domain.
  email: /^[^\s@]+@(?=[^\s@]+$)[^\s@][^\s@.]*\.[^\s@]/,
  uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
  uri: /^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]*$/,
  ipv4: /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/,
};

// One Ajv per dialect, created on first use: a new instance costs ~10 ms, a compile well under 1 ms. Ajv
// itself is loaded then too: most tools are zod schemas, and loading Ajv costs more than an instance.
const ajvInstances = new Map<"2020-12" | "draft-07", Ajv | Ajv2020>();

function ajvFor(dialect: "2020-12" | "draft-07"): Ajv | Ajv2020 {
  let ajv = ajvInstances.get(dialect);
  if (ajv === undefined) {
    const require = createRequire(import.meta.url);
    ajv =
      dialect === "2020-12"
        ? new (require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js")).Ajv2020(AJV_OPTIONS)
        : new (require("ajv") as typeof import("ajv")).Ajv(AJV_OPTIONS);
    for (const [name, pattern] of Object.entries(FORMATS)) ajv.addFormat(name, pattern);
    ajvInstances.set(dialect, ajv);
  }
  return ajv;
}

function compileWithAjv(original: JsonSchema, toolName: string): ValidateFunction {
  // Ajv compiles each schema into a function from source text, which a Worker may not do.
  if (currentRuntime().name === "workerd") {
    throw new UserError(
      `Tool "${toolName}": its input is a plain JSON Schema, which Ajv validates by generating code, and workerd refuses code generation: give the tool a zod schema (or another Standard Schema) instead.`,
    );
  }
  const declared = typeof original.$schema === "string" ? original.$schema : "";
  const is2020 = declared.includes("2020-12");
  const ajv = ajvFor(is2020 ? "2020-12" : "draft-07");
  // Plain Ajv knows draft-07 (and older drafts through it); any other declared dialect is read as draft-07.
  const schema =
    is2020 || declared === "" || declared.includes("draft-07") ? original : withoutDialect(original);
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw new UserError(`Tool "${toolName}": the input JSON Schema is invalid: ${messageOf(error)}`);
  } finally {
    // The compiled function stands alone. Forgetting the schema keeps the shared instance from growing
    // with every tool ever defined, and lets two tools use the same $id.
    ajv.removeSchema(schema);
  }
}

function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _s, ...rest } = schema;
  return rest;
}

function nonEmpty(issues: ArgumentIssue[]): ArgumentIssue[] {
  return issues.length > 0 ? issues : [{ path: "", message: "the arguments are invalid" }];
}

/** Output schemas compiled so far, by schema object: a tool's preview is checked on every call of a plan. */
const outputCheckers = new WeakMap<JsonSchema, ValidateFunction>();

/**
 * What is wrong with `value` as a result of a tool whose output schema is `schema` (empty when nothing
 * is): for a result cordon hands on as the tool's own, as `preview` results are (see ToolOptions).
 */
export function outputIssues(schema: JsonSchema, value: unknown, toolName: string): ArgumentIssue[] {
  let validateFn = outputCheckers.get(schema);
  if (validateFn === undefined) {
    validateFn = compileWithAjv(schema, toolName);
    outputCheckers.set(schema, validateFn);
  }
  let copy: unknown;
  try {
    // Ajv writes defaults into the data it validates: it gets a copy, never the value handed on.
    copy = structuredClone(value);
  } catch (error) {
    return [{ path: "", message: `cannot be checked: ${messageOf(error)}` }];
  }
  if (validateFn(copy)) return [];
  const issues = fromAjvErrors((validateFn.errors ?? []) as ErrorObject[]);
  return issues.length > 0 ? issues : [{ path: "", message: "does not match the output schema" }];
}
