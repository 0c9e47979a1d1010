/**
 * Turns validation failures (zod 4 issues, Ajv errors, Standard Schema issues) into compact
 * `{ path, message }` issues written for the model: `items[2].qty: expected number, got "abc"`.
 */

import type { ErrorObject } from "ajv";
import type { z } from "zod";
import type { ArgumentIssue } from "../../common/errors.js";
import type { StandardIssue } from "./standard-schema.js";

/** How many characters of a received value an issue quotes. */
const PREVIEW_CHARS = 40;

type Segment = PropertyKey;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Formats a path like `items[2].qty`; keys that are not identifiers are quoted: `tags["a b"]`. */
export function formatPath(segments: readonly Segment[]): string {
  let out = "";
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "symbol") out += `[${String(segment)}]`;
    else if (IDENTIFIER.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** A short JSON preview of a received value, capped at {@link PREVIEW_CHARS} characters. */
export function preview(value: unknown): string {
  let text: string;
  if (value === undefined) return "undefined";
  if (typeof value === "bigint") text = `${value}n`;
  else if (typeof value === "function" || typeof value === "symbol") return typeof value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = Object.prototype.toString.call(value);
    }
  }
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
}

function quoteAll(values: readonly unknown[]): string {
  return values.map((v) => preview(v)).join(" | ");
}

/** The value found at `path` inside `data`, and whether it exists there. */
function lookup(data: unknown, path: readonly Segment[]): { found: boolean; value: unknown } {
  let node = data;
  for (const segment of path) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, segment)) {
      return { found: false, value: undefined };
    }
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  return { found: node !== undefined, value: node };
}

function dedupe(issues: ArgumentIssue[]): ArgumentIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function sizeUnit(origin: string | undefined, count: number): string {
  if (origin === "string") return count === 1 ? "character" : "characters";
  if (origin === "array" || origin === "set") return count === 1 ? "item" : "items";
  if (origin === "object" || origin === "map" || origin === "record")
    return count === 1 ? "entry" : "entries";
  return "";
}

function sizeOf(value: unknown): number | undefined {
  if (typeof value === "string" || Array.isArray(value)) return value.length;
  if (value instanceof Set || value instanceof Map) return value.size;
  if (typeof value === "object" && value !== null) return Object.keys(value).length;
  return undefined;
}

/** `must be <= 50, got 99`, or `must have at most 3 items, got 5` for sizes. */
/** What an Ajv size keyword (minus its min/max prefix) measures, as boundMessage names it. */
const SIZE_ORIGINS: Record<string, string> = { Length: "string", Items: "array", Properties: "object" };

function boundMessage(
  direction: "max" | "min",
  origin: string | undefined,
  limit: unknown,
  inclusive: boolean,
  received: unknown,
): string {
  const unit = sizeUnit(origin, Number(limit));
  if (unit !== "") {
    const word = direction === "max" ? "at most" : "at least";
    const verb = origin === "string" ? "be" : "have";
    const size = sizeOf(received);
    return `must ${verb} ${word} ${String(limit)} ${unit}${size === undefined ? "" : `, got ${size}`}`;
  }
  const op = direction === "max" ? (inclusive ? "<=" : "<") : inclusive ? ">=" : ">";
  const shown = limit instanceof Date ? limit.toISOString() : String(limit);
  return `must be ${op} ${shown}, got ${preview(received)}`;
}

/** Converts zod 4 issues. `data` is what was validated, used to show received values. */
export function fromZodIssues(issues: readonly z.core.$ZodIssue[], data: unknown): ArgumentIssue[] {
  return dedupe(issues.flatMap((issue) => zodIssue(issue, [], data)));
}

function zodIssue(issue: z.core.$ZodIssue, prefix: readonly Segment[], data: unknown): ArgumentIssue[] {
  const segments = [...prefix, ...issue.path];
  const path = formatPath(segments);
  const at = lookup(data, segments);
  const received = "input" in issue && issue.input !== undefined ? issue.input : at.value;
  const got = `got ${preview(received)}`;

  switch (issue.code) {
    case "invalid_type":
      if (!at.found && received === undefined)
        return [{ path, message: `required (${issue.expected}) but missing` }];
      return [{ path, message: `expected ${issue.expected}, ${got}` }];
    case "too_big":
      return [
        {
          path,
          message: boundMessage("max", issue.origin, issue.maximum, issue.inclusive ?? true, received),
        },
      ];
    case "too_small":
      return [
        {
          path,
          message: boundMessage("min", issue.origin, issue.minimum, issue.inclusive ?? true, received),
        },
      ];
    case "invalid_value":
      if (issue.values.length === 1)
        return [{ path, message: `must be ${preview(issue.values[0])}, ${got}` }];
      return [{ path, message: `must be one of ${quoteAll(issue.values)}, ${got}` }];
    case "unrecognized_keys":
      return issue.keys.map((key) => ({
        path: formatPath([...segments, key]),
        message: "unknown field not allowed",
      }));
    case "invalid_format":
      return [{ path, message: `${formatExpectation(issue)}, ${got}` }];
    case "not_multiple_of":
      return [{ path, message: `must be a multiple of ${String(issue.divisor)}, ${got}` }];
    case "invalid_union":
      return zodUnion(issue, segments, data, received);
    case "invalid_key":
      return [{ path, message: `has an invalid key: ${issue.issues.map((i) => i.message).join("; ")}` }];
    case "invalid_element":
      return issue.issues.flatMap((inner) => zodIssue(inner, [...segments, issue.key as Segment], data));
    default:
      return [{ path, message: issue.message }];
  }
}

function formatExpectation(issue: z.core.$ZodIssueInvalidStringFormat): string {
  switch (issue.format) {
    case "regex":
      return `must match pattern ${issue.pattern ?? ""}`;
    case "starts_with":
      return `must start with ${preview((issue as { prefix?: string }).prefix)}`;
    case "ends_with":
      return `must end with ${preview((issue as { suffix?: string }).suffix)}`;
    case "includes":
      return `must include ${preview((issue as { includes?: string }).includes)}`;
    default:
      return `must be a valid ${issue.format}`;
  }
}

/**
 * A failed union: when every variant failed on the value's type alone, one line listing the accepted
 * types; otherwise the issues of the closest variant (the one with the fewest issues).
 */
function zodUnion(
  issue: z.core.$ZodIssueInvalidUnion,
  segments: readonly Segment[],
  data: unknown,
  received: unknown,
): ArgumentIssue[] {
  const path = formatPath(segments);
  const variants = issue.errors;
  if (variants.length === 0) {
    const discriminator = (issue as { discriminator?: string }).discriminator;
    const where = discriminator ? ` (check "${discriminator}")` : "";
    return [{ path, message: `matches none of the allowed variants${where}, got ${preview(received)}` }];
  }
  const typeOnly = variants.every(
    (v) =>
      v.length === 1 &&
      v[0].path.length === 0 &&
      (v[0].code === "invalid_type" || v[0].code === "invalid_value"),
  );
  if (typeOnly) {
    const expected = variants.map((v) => {
      const only = v[0];
      if (only.code === "invalid_type") return only.expected;
      if (only.code === "invalid_value") return quoteAll(only.values);
      return "?";
    });
    return [{ path, message: `expected ${[...new Set(expected)].join(" | ")}, got ${preview(received)}` }];
  }
  const closest = [...variants].sort((a, b) => a.length - b.length)[0];
  return closest.flatMap((inner) => zodIssue(inner, segments, data));
}

/** Converts Standard Schema issues (any library). */
export function fromStandardIssues(issues: readonly StandardIssue[]): ArgumentIssue[] {
  return dedupe(
    issues.map((issue) => ({
      path: formatPath((issue.path ?? []).map((s) => (typeof s === "object" ? s.key : s))),
      message: issue.message,
    })),
  );
}

function pointerToSegments(pointer: string): Segment[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s));
}

/** Converts Ajv errors (compile with `allErrors` and `verbose` for the best messages). */
export function fromAjvErrors(errors: readonly ErrorObject[]): ArgumentIssue[] {
  const issues: ArgumentIssue[] = [];
  const consumed = new Set<ErrorObject>();
  // Outer unions first, so that a union's branch errors are folded into its own message.
  const unions = errors
    .filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf")
    .sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  const unionMessages = new Map<ErrorObject, ArgumentIssue[]>();
  for (const union of unions) {
    if (consumed.has(union)) continue;
    // The same union fails once per array item: its branch errors are the ones at or below its own
    // instance, not those of the other items that went through the same schema.
    const branchErrors = errors.filter(
      (e) =>
        e !== union &&
        e.schemaPath.startsWith(`${union.schemaPath}/`) &&
        (e.instancePath === union.instancePath || e.instancePath.startsWith(`${union.instancePath}/`)),
    );
    for (const e of branchErrors) consumed.add(e);
    unionMessages.set(union, ajvUnion(union, branchErrors));
  }
  for (const error of errors) {
    if (consumed.has(error)) continue;
    issues.push(...(unionMessages.get(error) ?? ajvError(error)));
  }
  return dedupe(issues);
}

function ajvUnion(union: ErrorObject, branchErrors: readonly ErrorObject[]): ArgumentIssue[] {
  const path = formatPath(pointerToSegments(union.instancePath));
  const byBranch = new Map<string, ErrorObject[]>();
  for (const e of branchErrors) {
    const branch = e.schemaPath.slice(union.schemaPath.length + 1).split("/")[0];
    byBranch.set(branch, [...(byBranch.get(branch) ?? []), e]);
  }
  const variants = [...byBranch.values()];
  if (variants.length === 0) {
    return [{ path, message: `must match exactly one allowed variant, got ${preview(union.data)}` }];
  }
  const typeOnly = variants.every(
    (v) =>
      v.length === 1 &&
      v[0].instancePath === union.instancePath &&
      ["type", "const", "enum"].includes(v[0].keyword),
  );
  if (typeOnly) {
    const expected = variants.map(([e]) => {
      if (e.keyword === "type") return String(e.params.type);
      if (e.keyword === "const") return preview(e.params.allowedValue);
      return quoteAll(e.params.allowedValues as unknown[]);
    });
    return [{ path, message: `expected ${[...new Set(expected)].join(" | ")}, got ${preview(union.data)}` }];
  }
  const closest = [...variants].sort((a, b) => a.length - b.length)[0];
  return fromAjvErrors(closest);
}

function ajvError(error: ErrorObject): ArgumentIssue[] {
  const segments = pointerToSegments(error.instancePath);
  const path = formatPath(segments);
  const params = error.params as Record<string, unknown>;
  const got = `got ${preview(error.data)}`;
  switch (error.keyword) {
    case "required":
    case "dependentRequired": {
      const name = String(params.missingProperty);
      const parent = error.parentSchema as { properties?: Record<string, { type?: unknown }> } | undefined;
      const type = parent?.properties?.[name]?.type;
      const shown = Array.isArray(type) ? type.join(" | ") : typeof type === "string" ? type : "";
      return [
        {
          path: formatPath([...segments, name]),
          message: `required${shown ? ` (${shown})` : ""} but missing`,
        },
      ];
    }
    case "additionalProperties":
    case "unevaluatedProperties": {
      const name = String(params.additionalProperty ?? params.unevaluatedProperty);
      return [{ path: formatPath([...segments, name]), message: "unknown field not allowed" }];
    }
    case "type":
      return [{ path, message: `expected ${String(params.type).replace(/,/g, " | ")}, ${got}` }];
    case "enum":
      return [{ path, message: `must be one of ${quoteAll(params.allowedValues as unknown[])}, ${got}` }];
    case "const":
      return [{ path, message: `must be ${preview(params.allowedValue)}, ${got}` }];
    case "minimum":
    case "exclusiveMinimum":
      return [
        {
          path,
          message: boundMessage("min", undefined, params.limit, error.keyword === "minimum", error.data),
        },
      ];
    case "maximum":
    case "exclusiveMaximum":
      return [
        {
          path,
          message: boundMessage("max", undefined, params.limit, error.keyword === "maximum", error.data),
        },
      ];
    case "minLength":
    case "maxLength":
    case "minItems":
    case "maxItems":
    case "minProperties":
    case "maxProperties": {
      const direction = error.keyword.slice(0, 3) as "min" | "max";
      const origin = SIZE_ORIGINS[error.keyword.slice(3)];
      return [{ path, message: boundMessage(direction, origin, params.limit, true, error.data) }];
    }
    case "pattern":
      return [{ path, message: `must match pattern ${String(params.pattern)}, ${got}` }];
    case "format":
      return [{ path, message: `must be a valid ${String(params.format)}, ${got}` }];
    case "multipleOf":
      return [{ path, message: `must be a multiple of ${String(params.multipleOf)}, ${got}` }];
    case "uniqueItems":
      return [{ path, message: `items must be unique (items ${params.j} and ${params.i} are equal)` }];
    default:
      return [{ path, message: error.message ?? `fails "${error.keyword}"` }];
  }
}
