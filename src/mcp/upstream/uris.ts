/**
 * The URIs upstream servers sent during one run_code request (their resources' and resource links'),
 * kept beside the request's client link: an item the code returns with one of them passes the content
 * policy's scheme rule as the upstream sent it (see content-policy.ts), so a server's own `file:` or
 * custom-scheme links still reach the client while the code cannot make up its own.
 */

import type { ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { ClientLink } from "../client-link.js";

/** The most URIs kept for one request; one past it is not kept, and an item carrying it is judged as the code's own. */
const MAX_UPSTREAM_URIS = 10_000;

const sent = new WeakMap<ClientLink, Set<string>>();

/** Keeps the URIs of the resources and links in an upstream's result, for the request of `link`. */
export function noteUpstreamUris(link: ClientLink | undefined, content: readonly ContentBlock[]): void {
  if (link === undefined) return;
  let uris = sent.get(link);
  for (const block of content) {
    const uri =
      block.type === "resource_link" ? block.uri : block.type === "resource" ? block.resource.uri : undefined;
    if (typeof uri !== "string") continue;
    if (uris === undefined) {
      uris = new Set();
      sent.set(link, uris);
    }
    if (uris.size < MAX_UPSTREAM_URIS) uris.add(uri);
  }
}

/** The URIs upstream servers sent during the request of `link`. */
export function upstreamUrisOf(link: ClientLink): ReadonlySet<string> {
  return sent.get(link) ?? new Set();
}
