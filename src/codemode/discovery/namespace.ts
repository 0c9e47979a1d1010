/**
 * A tool's namespace: the server or product its name starts with (`github__create_issue`,
 * `github.create_issue`), which the index text groups tools by.
 */

/** What separates a namespace from the tool's own name; `__` is how `cordon mcp` names upstream tools. */
const NAMESPACE_SEPARATORS: readonly string[] = ["__", "."];

/** A tool name cut at its first namespace separator; `namespace` is undefined when it has none. */
export function splitNamespace(name: string): { namespace: string | undefined; local: string } {
  let cut: { at: number; length: number } | undefined;
  for (const separator of NAMESPACE_SEPARATORS) {
    const at = name.indexOf(separator);
    if (at > 0 && at + separator.length < name.length && (cut === undefined || at < cut.at)) {
      cut = { at, length: separator.length };
    }
  }
  if (cut === undefined) return { namespace: undefined, local: name };
  return { namespace: name.slice(0, cut.at), local: name.slice(cut.at + cut.length) };
}
