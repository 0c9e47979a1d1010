/** URLs found in pages: made absolute, and the best candidate of a `srcset`. */

/** An absolute http(s) URL for `href`, or `undefined` for data:, javascript:, bare anchors and junk. */
export function resolveHttp(href: string, base: string): string | undefined {
  const trimmed = href.trim();
  if (trimmed === "" || trimmed.startsWith("#")) return undefined;
  try {
    const url = new URL(trimmed, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The best candidate of a `srcset`: the widest `w`, else the highest density `x`, else the first. */
export function largestCandidate(srcset: string): string | undefined {
  let best: { url: string; score: number } | undefined;
  // Candidates are separated by commas followed by whitespace; a URL may itself contain commas.
  for (const candidate of srcset.split(/,\s+/)) {
    const [url, descriptor = "1x"] = candidate.trim().split(/\s+/);
    if (!url) continue;
    const match = /^(\d+(?:\.\d+)?)([wx])$/i.exec(descriptor);
    const score = match ? Number(match[1]) * (match[2]!.toLowerCase() === "w" ? 1 : 10_000) : 1;
    if (best === undefined || score > best.score) best = { url: url.replace(/,$/, ""), score };
  }
  return best?.url;
}
