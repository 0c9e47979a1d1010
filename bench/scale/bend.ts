// Where a curve bends, found from its data (never written in advance): the first size at which the
// marginal cost of one more unit (a concurrent run, a session, a call, a tool, a recorded call) grows to
// more than twice any marginal cost before it, and the figure grew by a noticeable share there too (so
// that noise on a flat curve does not count as a bend).

import type { Point } from "./svg.js";

/** The bend of a curve: where the marginal cost jumps, and by how much. */
export interface Bend {
  /** The size at which the marginal cost first grew past `factor` times every earlier one. */
  x: number;
  /** The size before it. */
  previousX: number;
  /** The marginal cost per unit just before the bend (the largest before it), and at it. */
  before: number;
  at: number;
  /** `at / before` (Infinity when the cost was flat before). */
  growth: number;
}

/** How the bend is looked for. */
export interface BendOptions {
  /** How much the marginal cost must grow to count. Default 2. */
  factor?: number;
  /** How much the figure itself must grow over the step, as a share of its value before. Default 0.2. */
  minRise?: number;
}

/** The marginal cost per unit between consecutive points: (y1 - y0) / (x1 - x0), at x1. */
export function marginalCosts(points: readonly Point[]): Point[] {
  const sorted = [...points].sort((a, b) => a.x - b.x);
  return sorted.slice(1).map((p, i) => ({ x: p.x, y: (p.y - sorted[i]!.y) / (p.x - sorted[i]!.x) }));
}

/**
 * The first point at which the marginal cost grows past `factor` times the largest marginal cost before
 * it, the figure rising by at least `minRise` of itself over that step; undefined when the cost grows no
 * faster than it started (a straight or flattening curve).
 */
export function findBend(points: readonly Point[], options: BendOptions = {}): Bend | undefined {
  const factor = options.factor ?? 2;
  const minRise = options.minRise ?? 0.2;
  const sorted = [...points].sort((a, b) => a.x - b.x);
  const marginal = marginalCosts(sorted);
  for (let i = 1; i < marginal.length; i++) {
    const before = Math.max(0, ...marginal.slice(0, i).map((m) => m.y));
    const at = marginal[i]!.y;
    const previous = sorted[i]!.y;
    const rose = sorted[i + 1]!.y - previous > minRise * Math.abs(previous);
    if (at > 0 && at > factor * before && rose) {
      return {
        x: marginal[i]!.x,
        previousX: sorted[i]!.x,
        before,
        at,
        growth: before > 0 ? at / before : Number.POSITIVE_INFINITY,
      };
    }
  }
  return undefined;
}

/**
 * Where a rate stops growing: the first size whose figure reaches `share` of the curve's peak (for
 * runs/s against concurrency, the concurrency from which more at once no longer buys throughput).
 */
export function levelsOffAt(points: readonly Point[], share = 0.9): Point | undefined {
  const sorted = [...points].sort((a, b) => a.x - b.x);
  const peak = Math.max(...sorted.map((p) => p.y));
  return sorted.find((p) => p.y >= share * peak);
}
