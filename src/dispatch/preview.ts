/** How a gated call's arguments are shown to the person asked to approve it. */

/**
 * The arguments as one line of JSON, cut after `maxChars` characters with an ellipsis; undefined when
 * they cannot be shown as JSON (nothing, a cycle, a BigInt), so that the caller says so in its own words.
 */
export function previewArguments(args: unknown, maxChars: number): string | undefined {
  let json: string | undefined;
  try {
    json = JSON.stringify(args);
  } catch {
    return undefined;
  }
  if (json === undefined) return undefined;
  return json.length > maxChars ? `${json.slice(0, maxChars)}…` : json;
}
