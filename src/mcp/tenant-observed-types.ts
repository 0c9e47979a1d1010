/**
 * Learnt result types kept per tenant (see tenant.ts), for a server whose clients must not see what
 * another client's results taught: a store for each tenant, made at its first result. A connection's
 * store goes when the connection does; named tenants are kept up to {@link MAX_NAMED_TENANTS}.
 */

import { ObservedTypes } from "../codemode/observed/store.js";
import type { TenantKey } from "./tenant.js";

/** How many named tenants' stores are kept; past it, the one used least recently is dropped. */
export const MAX_NAMED_TENANTS = 256;

/** One {@link ObservedTypes} store per tenant. */
export class TenantObservedTypes {
  readonly #byObject = new WeakMap<object, ObservedTypes>();
  // In order of last use: the first one is dropped when there are too many.
  readonly #byName = new Map<string, ObservedTypes>();

  /** The store of `tenant`, made when it has none. */
  storeOf(tenant: TenantKey): ObservedTypes {
    let store = this.find(tenant);
    if (store) return store;
    store = new ObservedTypes();
    if (typeof tenant === "string") {
      this.#byName.set(tenant, store);
      if (this.#byName.size > MAX_NAMED_TENANTS) this.#byName.delete(this.#byName.keys().next().value!);
    } else {
      this.#byObject.set(tenant, store);
    }
    return store;
  }

  /** The store of `tenant`, when its results taught anything yet. */
  find(tenant: TenantKey): ObservedTypes | undefined {
    if (typeof tenant !== "string") return this.#byObject.get(tenant);
    const store = this.#byName.get(tenant);
    if (store) {
      this.#byName.delete(tenant);
      this.#byName.set(tenant, store);
    }
    return store;
  }
}
