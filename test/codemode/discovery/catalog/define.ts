/**
 * Builds the test catalog's tools from compact rows: `[name, description, parameters]`, where each
 * parameter is `"type: description"` (type `int`, `number`, `bool`, `string[]`, an enum `a|b|c`, or left
 * out for a string) and a name ending in `?` is optional. The tools are real cordon tools (`tool()`), so
 * the index sees what code mode sees; they return small fixture data.
 */

import { type AnyTool, type JsonSchema, tool } from "cordon";

/** One tool of the catalog: its name within the namespace, its description, its parameters. */
export type ToolRow = readonly [name: string, description: string, parameters?: Record<string, string>];

const TYPED = /^(int|number|bool|string\[\]|[a-z0-9_-]+(?:\|[a-z0-9_-]+)+):\s*(.*)$/s;

/** The tools of one namespace, named `<namespace>__<name>` as `cordon mcp` names upstream tools. */
export function namespaceTools(namespace: string, rows: readonly ToolRow[]): AnyTool[] {
  return rows.map(([name, description, parameters = {}]) => {
    const fullName = `${namespace}__${name}`;
    return tool({
      name: fullName,
      description,
      input: objectSchema(parameters),
      readOnly: /^(list|get|search|find|read|count|check|preview|export|download)_/.test(name) || undefined,
      run: (args: Record<string, unknown>) => fixtureResult(fullName, args),
    });
  });
}

function objectSchema(parameters: Record<string, string>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, spec] of Object.entries(parameters)) {
    const optional = key.endsWith("?");
    const name = optional ? key.slice(0, -1) : key;
    if (!optional) required.push(name);
    properties[name] = propertySchema(spec);
  }
  return { type: "object", properties, required, additionalProperties: false };
}

function propertySchema(spec: string): JsonSchema {
  const typed = TYPED.exec(spec);
  if (!typed) return { type: "string", description: spec };
  const [, type, description] = typed as unknown as [string, string, string];
  switch (type) {
    case "int":
      return { type: "integer", description };
    case "number":
      return { type: "number", description };
    case "bool":
      return { type: "boolean", description };
    case "string[]":
      return { type: "array", items: { type: "string" }, description };
    default:
      return { type: "string", enum: type.split("|"), description };
  }
}

/** What every catalog tool returns: which tool ran with which arguments, and one fixture item. */
function fixtureResult(name: string, args: Record<string, unknown>): unknown {
  const plural = /__(list|search|find)_/.test(name);
  const item = { id: `${name.split("__")[1]}-1`, ...args };
  return plural ? { items: [item], next_cursor: null } : item;
}
