/** The name a misspelt one most likely meant: for "did you mean" in messages a model reads. */

/** Names closer than this share most of their letters: `ammount` for `amount`, `orderId` for `order_id`. */
const MAX_DISTANCE_SHARE = 1 / 3;

/**
 * The candidate closest to `name`, or undefined when none is close: equal once case and separators
 * (`_`, `-`, spaces) are folded, else within an edit distance of a third of the name's length (at most
 * 3; a name of one or two letters must match once folded). Ties go to the first candidate.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const folded = fold(name);
  const limit = Math.min(3, Math.floor(folded.length * MAX_DISTANCE_SHARE));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const distance = editDistance(folded, fold(candidate), bestDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function fold(name: string): string {
  return name.toLowerCase().replace(/[\s_-]/g, "");
}

/** Levenshtein distance, giving up (returning `cap`) once it cannot be below `cap`. */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin >= cap) return cap;
    previous = current;
  }
  return Math.min(previous[b.length]!, cap);
}
