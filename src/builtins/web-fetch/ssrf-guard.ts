/**
 * The SSRF guard of `HttpReader`: which hosts may be reached, and a DNS lookup that refuses non-public
 * addresses. The lookup is the one the socket connects with, so the address that was checked is the
 * address connected to: there is no second resolution an attacker's DNS could answer differently.
 */
import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { dns } from "../../../common/node-builtins.js";
import { ADDRESS_KIND_TEXT, type AddressClass, classifyAddress } from "./address.js";

/** `dns.lookup`, with node:dns loaded at the first lookup rather than with every import of cordon. */
const systemLookup: LookupFunction = (hostname, options, callback) => {
  dns().lookup(hostname, options, callback);
};

/** A host or one of its addresses is not public and the guard refuses it. */
export class BlockedAddressError extends Error {
  override name = "BlockedAddressError";
  readonly host: string;
  readonly verdict: AddressClass;

  constructor(host: string, verdict: AddressClass) {
    const subject =
      host === verdict.address ? `${host} is` : `${host} resolves to ${verdict.address}, which is`;
    super(
      `${subject} ${ADDRESS_KIND_TEXT[verdict.kind]} (${verdict.range}); web_fetch only reaches public internet addresses.`,
    );
    this.host = host;
    this.verdict = verdict;
  }
}

/** Which hosts the guard lets through without looking at their addresses. */
export interface GuardPolicy {
  /** Host names or IP addresses allowed whatever they resolve to; `*.example.com` allows subdomains. */
  allowHosts?: readonly string[];
  /** Turns the guard off: every address may be reached (for intranet use). */
  allowPrivate?: boolean;
}

/** Host text as compared: lower-case, IPv6 without brackets, no trailing dot. */
function normalizeHost(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  if (h.endsWith(".")) h = h.slice(0, -1);
  const ip = classifyAddress(h);
  return ip ? ip.address : h;
}

/** Decides, per host and per address, what the guard lets through. */
export class HostGuard {
  readonly #exact = new Set<string>();
  readonly #suffixes: string[] = [];
  readonly allowPrivate: boolean;

  constructor(policy: GuardPolicy = {}) {
    this.allowPrivate = policy.allowPrivate === true;
    for (const entry of policy.allowHosts ?? []) {
      const host = normalizeHost(entry);
      if (host.startsWith("*.")) this.#suffixes.push(host.slice(1));
      else this.#exact.add(host);
    }
  }

  /** Whether the guard is off for this host (allowed by name, or the guard is off altogether). */
  allows(host: string): boolean {
    if (this.allowPrivate) return true;
    const h = normalizeHost(host);
    return this.#exact.has(h) || this.#suffixes.some((suffix) => h.endsWith(suffix));
  }

  /**
   * Checks the host of a URL before connecting. An IP address is judged here (no DNS lookup happens for
   * it); a name is judged by {@link lookup} when the socket resolves it. Throws {@link BlockedAddressError}.
   */
  checkUrlHost(url: URL): void {
    const host = url.hostname;
    if (this.allows(host)) return;
    const verdict = classifyAddress(host);
    if (verdict !== undefined && verdict.kind !== "public") throw new BlockedAddressError(host, verdict);
  }

  /**
   * A `lookup` for sockets: resolves with `resolve` (default `dns.lookup`) and fails with
   * {@link BlockedAddressError} when any address of a host that is not allowed is not public.
   */
  lookup(resolve: LookupFunction = systemLookup): LookupFunction {
    return (hostname, options, callback) => {
      resolve(hostname, { ...options, all: true }, (error, result) => {
        if (error) return callback(error, "", 0);
        const addresses = (
          Array.isArray(result) ? result : [{ address: result, family: 0 }]
        ) as LookupAddress[];
        if (addresses.length === 0) {
          const notFound = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
            code: "ENOTFOUND",
          });
          return callback(notFound, "", 0);
        }
        if (!this.allows(hostname)) {
          for (const { address } of addresses) {
            const verdict = classifyAddress(address);
            if (verdict === undefined || verdict.kind !== "public") {
              const unknown: AddressClass = { kind: "reserved", range: "not an IP address", address };
              return callback(new BlockedAddressError(hostname, verdict ?? unknown), "", 0);
            }
          }
        }
        if (options.all) return (callback as unknown as AllCallback)(null, addresses);
        const [first] = addresses as [LookupAddress];
        return callback(null, first.address, first.family);
      });
    };
  }
}

type AllCallback = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;
