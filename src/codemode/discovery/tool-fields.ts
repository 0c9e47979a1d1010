/**
 * The searchable fields of one tool: the words of its name, its namespace, its description and its
 * parameters (names, descriptions and enum values), as search terms.
 */

import type { JsonSchema } from "../../tools/types.js";
import { identifierTerms, textTerms } from "./analyze.js";
import { splitNamespace } from "./namespace.js";

/** The fields a tool is searched by, in the order of {@link FIELD_WEIGHTS}. */
export type ToolField = "name" | "namespace" | "description" | "parameters";

/** The fields, in a fixed order. */
export const TOOL_FIELDS: readonly ToolField[] = ["name", "namespace", "description", "parameters"];

/** How deep parameter schemas are read for names and descriptions. */
const MAX_PARAMETER_DEPTH = 3;

/** How many parameter schema nodes of one tool are read at most. */
const MAX_PARAMETER_NODES = 200;

/** The terms of each field of a tool. */
export function toolFieldTerms(tool: {
  name: string;
  description: string;
  parameters: JsonSchema;
}): Record<ToolField, string[]> {
  const { namespace, local } = splitNamespace(tool.name);
  return {
    name: identifierTerms(local),
    namespace: namespace === undefined ? [] : identifierTerms(namespace),
    description: textTerms(tool.description),
    parameters: parameterTerms(tool.parameters),
  };
}

function parameterTerms(schema: JsonSchema): string[] {
  const terms: string[] = [];
  let nodes = 0;
  const visit = (node: unknown, depth: number): void => {
    if (!isRecord(node) || depth > MAX_PARAMETER_DEPTH || nodes++ >= MAX_PARAMETER_NODES) return;
    if (typeof node.description === "string") terms.push(...textTerms(node.description));
    if (Array.isArray(node.enum)) {
      for (const value of node.enum) if (typeof value === "string") terms.push(...textTerms(value));
    }
    if (isRecord(node.properties)) {
      for (const [key, property] of Object.entries(node.properties)) {
        terms.push(...identifierTerms(key));
        visit(property, depth + 1);
      }
    }
    if (isRecord(node.items)) visit(node.items, depth + 1);
    for (const key of ["anyOf", "oneOf", "allOf"] as const) {
      const list = node[key];
      if (Array.isArray(list)) for (const member of list) visit(member, depth + 1);
    }
  };
  // The root's own description repeats the tool's; its properties are what the parameters add.
  if (isRecord(schema.properties)) visit({ properties: schema.properties }, 0);
  return terms;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
