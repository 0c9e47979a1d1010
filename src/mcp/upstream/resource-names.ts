/**
 * How upstream resources and prompts are named towards cordon's clients, so that two upstreams never clash
 * and every request finds its way back. A resource (or template) URI becomes `cordon://<upstream>/<its own
 * URI>` (the upstream's URI appended unchanged, so a template's `{variables}` stay templates); a prompt is
 * `<upstream>__<its own name>`, as tools are. Upstream names hold no `/` and no `__` (spec.ts), so the
 * first `/` after the prefix, and the first `__`, end the upstream's name.
 */

/** What starts every upstream resource URI cordon hands out. */
export const UPSTREAM_URI_PREFIX = "cordon://";

/** Between an upstream's name and its prompt's name, as between its name and its tools'. */
const PROMPT_SEPARATOR = "__";

/** An upstream's URI, or prompt name, and which upstream it belongs to. */
export interface UpstreamRef {
  upstream: string;
  /** The upstream's own URI or prompt name. */
  own: string;
}

/** The URI a client sees for `uri` of upstream `upstream`. */
export function namespacedUri(upstream: string, uri: string): string {
  return `${UPSTREAM_URI_PREFIX}${upstream}/${uri}`;
}

/** The upstream and its own URI of a URI cordon handed out; undefined for any other URI. */
export function parseNamespacedUri(uri: string): UpstreamRef | undefined {
  if (!uri.startsWith(UPSTREAM_URI_PREFIX)) return undefined;
  const rest = uri.slice(UPSTREAM_URI_PREFIX.length);
  const slash = rest.indexOf("/");
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  return { upstream: rest.slice(0, slash), own: rest.slice(slash + 1) };
}

/** The name a client sees for prompt `name` of upstream `upstream`. */
export function namespacedPrompt(upstream: string, name: string): string {
  return `${upstream}${PROMPT_SEPARATOR}${name}`;
}

/** The upstream and its own prompt name of a name cordon handed out; undefined for any other name. */
export function parseNamespacedPrompt(name: string): UpstreamRef | undefined {
  const separator = name.indexOf(PROMPT_SEPARATOR);
  if (separator <= 0 || separator + PROMPT_SEPARATOR.length === name.length) return undefined;
  return { upstream: name.slice(0, separator), own: name.slice(separator + PROMPT_SEPARATOR.length) };
}
