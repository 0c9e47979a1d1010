/**
 * Which IP addresses are on the public internet. A pure function over address text, so that the SSRF
 * guard of `HttpReader` can be tested over every range without sending a packet anywhere.
 *
 * The ranges are IANA's special-purpose registries for IPv4 and IPv6. IPv6 forms that carry an IPv4
 * address (IPv4-mapped, IPv4-compatible, NAT64, 6to4) are judged by the IPv4 address they carry.
 */
import { isIPv6 } from "node:net";

/** What kind of address it is; everything but `public` is refused by the guard. */
export type AddressKind =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "shared"
  | "link-local"
  | "multicast"
  | "broadcast"
  | "documentation"
  | "benchmarking"
  | "reserved"
  | "unique-local"
  | "site-local";

/** The verdict on one address: its kind, the range that decided it, and the address in canonical form. */
export interface AddressClass {
  kind: AddressKind;
  /** The special-purpose range it falls in, e.g. `10.0.0.0/8`; empty for public addresses. */
  range: string;
  /** The address as the classifier read it: dotted IPv4, or IPv6 in full lower-case groups. */
  address: string;
}

/** How a kind reads in an error message. */
export const ADDRESS_KIND_TEXT: Record<AddressKind, string> = {
  public: "a public address",
  unspecified: "the unspecified address",
  loopback: "a loopback address (this machine)",
  private: "a private-network address",
  shared: "a carrier-grade NAT (shared) address",
  "link-local": "a link-local address (cloud metadata services live here)",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
  documentation: "a documentation-only address",
  benchmarking: "a benchmarking-only address",
  reserved: "a reserved address",
  "unique-local": "a unique-local (private) IPv6 address",
  "site-local": "a site-local (private) IPv6 address",
};

interface Range4 {
  base: number;
  bits: number;
  kind: AddressKind;
  text: string;
}

const range4 = (text: string, kind: AddressKind): Range4 => {
  const [address, bits] = text.split("/") as [string, string];
  return { base: parseIPv4(address)!, bits: Number(bits), kind, text };
};

// Most specific first: the first range that contains the address decides.
const IPV4_RANGES: readonly Range4[] = [
  range4("255.255.255.255/32", "broadcast"),
  range4("0.0.0.0/32", "unspecified"),
  range4("0.0.0.0/8", "reserved"),
  range4("10.0.0.0/8", "private"),
  range4("100.64.0.0/10", "shared"),
  range4("127.0.0.0/8", "loopback"),
  range4("169.254.0.0/16", "link-local"),
  range4("172.16.0.0/12", "private"),
  range4("192.0.0.0/24", "reserved"),
  range4("192.0.2.0/24", "documentation"),
  range4("192.88.99.0/24", "reserved"),
  range4("192.168.0.0/16", "private"),
  range4("198.18.0.0/15", "benchmarking"),
  range4("198.51.100.0/24", "documentation"),
  range4("203.0.113.0/24", "documentation"),
  range4("224.0.0.0/4", "multicast"),
  range4("240.0.0.0/4", "reserved"),
];

/**
 * Reads an IPv4 address in any form `inet_aton` accepts, as a number: dotted decimal, and the forms a
 * URL host or a resolver may still pass on — one to four parts, each decimal, octal (leading `0`) or
 * hex (`0x`), the last part filling the remaining bytes (`127.1`, `0x7f000001`, `017700000001`,
 * `2130706433`). `undefined` when the text is not such an address.
 */
export function parseIPv4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length > 4 || parts.some((p) => p === "")) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) value = Number.parseInt(part.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) value = Number(part);
    else return undefined;
    if (!Number.isSafeInteger(value)) return undefined;
    values.push(value);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255)) return undefined;
  const lastMax = 2 ** (8 * (4 - values.length)) - 1;
  if (last > lastMax) return undefined;
  let result = 0;
  values.forEach((v, i) => {
    result += v * 2 ** (8 * (3 - i));
  });
  return result + last;
}

/** A 32-bit number as dotted decimal. */
function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join(".");
}

function inRange4(value: number, range: Range4): boolean {
  const size = 2 ** (32 - range.bits);
  return Math.floor(value / size) === Math.floor(range.base / size);
}

function classifyIPv4(value: number): AddressClass {
  const address = formatIPv4(value);
  for (const range of IPV4_RANGES) {
    if (inRange4(value, range)) return { kind: range.kind, range: range.text, address };
  }
  return { kind: "public", range: "", address };
}

/** An IPv6 address as eight 16-bit groups; `undefined` when the text is not one. Zone ids are dropped. */
function parseIPv6(text: string): number[] | undefined {
  let body = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = body.indexOf("%");
  if (zone !== -1) body = body.slice(0, zone);
  if (!isIPv6(body)) return undefined;
  // A trailing dotted IPv4 becomes two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (dotted) {
    const v4 = parseIPv4(dotted[1]!);
    if (v4 === undefined) return undefined;
    body = `${body.slice(0, dotted.index)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = "", tail] = body.split("::") as [string, string | undefined];
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":");
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(tail === undefined ? 0 : missing).fill("0"), ...tailGroups];
  if (groups.length !== 8) return undefined;
  return groups.map((g) => Number.parseInt(g, 16));
}

function formatIPv6(groups: readonly number[]): string {
  return groups.map((g) => g.toString(16)).join(":");
}

/** The IPv4 address in the last two groups. */
function embedded(groups: readonly number[], from = 6): number {
  return groups[from]! * 0x10000 + groups[from + 1]!;
}

function startsWith(groups: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i < prefix.length; i++) {
    const take = Math.min(16, bits - i * 16);
    if (take <= 0) return true;
    const mask = (0xffff << (16 - take)) & 0xffff;
    if ((groups[i]! & mask) !== (prefix[i]! & mask)) return false;
  }
  return true;
}

function classifyIPv6(groups: readonly number[]): AddressClass {
  const address = formatIPv6(groups);
  const verdict = (kind: AddressKind, range: string): AddressClass => ({ kind, range, address });
  const carried = (range: string, v4: number): AddressClass => {
    const inner = classifyIPv4(v4);
    return inner.kind === "public"
      ? verdict("public", "")
      : verdict(inner.kind, `${range} carrying ${inner.address} (${inner.range})`);
  };
  const zeroes = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeroes(8)) return verdict("unspecified", "::/128");
  if (zeroes(7) && groups[7] === 1) return verdict("loopback", "::1/128");
  if (zeroes(5) && groups[5] === 0xffff) return carried("::ffff:0:0/96 (IPv4-mapped)", embedded(groups));
  if (zeroes(6)) return carried("::/96 (IPv4-compatible)", embedded(groups));
  if (zeroes(4) && groups[4] === 0xffff && groups[5] === 0) {
    return carried("::ffff:0:0:0/96 (IPv4-translated)", embedded(groups));
  }
  if (startsWith(groups, [0x64, 0xff9b, 0, 0, 0, 0], 96)) {
    return carried("64:ff9b::/96 (NAT64)", embedded(groups));
  }
  if (startsWith(groups, [0x64, 0xff9b, 1], 48)) return verdict("private", "64:ff9b:1::/48 (local NAT64)");
  if (startsWith(groups, [0x2002], 16)) return carried("2002::/16 (6to4)", embedded(groups, 1));
  if (startsWith(groups, [0xfe80], 10)) return verdict("link-local", "fe80::/10");
  if (startsWith(groups, [0xfec0], 10)) return verdict("site-local", "fec0::/10");
  if (startsWith(groups, [0xfc00], 7)) return verdict("unique-local", "fc00::/7");
  if (startsWith(groups, [0xff00], 8)) return verdict("multicast", "ff00::/8");
  if (startsWith(groups, [0x2001, 0x0db8], 32)) return verdict("documentation", "2001:db8::/32");
  if (startsWith(groups, [0x3fff, 0], 20)) return verdict("documentation", "3fff::/20");
  if (startsWith(groups, [0x2001, 0x0002, 0], 48)) return verdict("benchmarking", "2001:2::/48");
  if (startsWith(groups, [0x2001, 0], 23))
    return verdict("reserved", "2001::/23 (IETF protocol assignments)");
  if (startsWith(groups, [0x0100, 0, 0, 0], 64)) return verdict("reserved", "100::/64 (discard-only)");
  // Global unicast is 2000::/3; everything else is unassigned or reserved.
  if (!startsWith(groups, [0x2000], 3)) return verdict("reserved", "outside 2000::/3 (global unicast)");
  return verdict("public", "");
}

/**
 * Classifies an IP address given as text: IPv4 in any `inet_aton` form, IPv6 with or without brackets
 * (IPv4-mapped and other IPv4-carrying forms judged by the IPv4 address they carry). `undefined` when
 * the text is not an IP address (a host name).
 */
export function classifyAddress(text: string): AddressClass | undefined {
  const v4 = parseIPv4(text);
  if (v4 !== undefined) return classifyIPv4(v4);
  const v6 = parseIPv6(text);
  if (v6 !== undefined) return classifyIPv6(v6);
  return undefined;
}
