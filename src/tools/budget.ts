import { BudgetExceeded } from "../../common/errors.js";

/** Limits per resource, like `{ toolCalls: 50 }`. A missing resource is unlimited. */
export type BudgetLimits = Readonly<Record<string, number>>;

/**
 * What a run may spend, and what it has spent. The dispatcher charges `toolCalls` for every call it
 * is about to execute; tools may charge their own resources (tokens, dollars) through `ctx.budget`.
 * A budget ends the run it belongs to when it runs out (see {@link BudgetExceeded}).
 */
export class Budget {
  readonly limits: BudgetLimits;
  readonly #spent = new Map<string, number>();

  constructor(limits: BudgetLimits = {}) {
    for (const [resource, limit] of Object.entries(limits)) {
      if (!(limit >= 0)) {
        throw new RangeError(`Budget limit for "${resource}" must be a number >= 0, got ${String(limit)}.`);
      }
    }
    this.limits = { ...limits };
  }

  /** How much of a resource has been spent so far. */
  spent(resource: string): number {
    return this.#spent.get(resource) ?? 0;
  }

  /** How much of a resource is left; `Infinity` when it has no limit. */
  remaining(resource: string): number {
    const limit = this.limits[resource];
    return limit === undefined ? Number.POSITIVE_INFINITY : Math.max(0, limit - this.spent(resource));
  }

  /** What has been spent, per resource. */
  usage(): Record<string, number> {
    return Object.fromEntries(this.#spent);
  }

  /**
   * Spends `amount` of `resource`, or throws {@link BudgetExceeded} (tied to this budget) without
   * spending anything when that would go over the limit.
   */
  charge(resource: string, amount = 1): void {
    const limit = this.limits[resource];
    const next = this.spent(resource) + amount;
    if (limit !== undefined && next > limit) {
      throw new BudgetExceeded(`The run's budget of ${limit} ${resource} is used up.`, {
        budget: this,
        resource,
      });
    }
    this.#spent.set(resource, next);
  }
}
