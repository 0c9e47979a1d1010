// The SSRF guard's address classifier, as a pure function: every special-purpose range, both edges,
// the public addresses just outside them, and every spelling of an address a URL or resolver may carry.
// Nothing here opens a socket.
import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { describe, expect, it } from "vitest";
import { classifyAddress, parseIPv4 } from "../../src/builtins/web-fetch/address.js";
import { BlockedAddressError, HostGuard } from "../../src/builtins/web-fetch/ssrf-guard.js";

const IPV4_RANGES: [range: string, first: string, last: string, kind: string][] = [
  ["0.0.0.0/8", "0.0.0.1", "0.255.255.255", "reserved"],
  ["10.0.0.0/8", "10.0.0.0", "10.255.255.255", "private"],
  ["100.64.0.0/10", "100.64.0.0", "100.127.255.255", "shared"],
  ["127.0.0.0/8", "127.0.0.0", "127.255.255.255", "loopback"],
  ["169.254.0.0/16", "169.254.0.0", "169.254.255.255", "link-local"],
  ["172.16.0.0/12", "172.16.0.0", "172.31.255.255", "private"],
  ["192.0.0.0/24", "192.0.0.0", "192.0.0.255", "reserved"],
  ["192.0.2.0/24", "192.0.2.0", "192.0.2.255", "documentation"],
  ["192.88.99.0/24", "192.88.99.0", "192.88.99.255", "reserved"],
  ["192.168.0.0/16", "192.168.0.0", "192.168.255.255", "private"],
  ["198.18.0.0/15", "198.18.0.0", "198.19.255.255", "benchmarking"],
  ["198.51.100.0/24", "198.51.100.0", "198.51.100.255", "documentation"],
  ["203.0.113.0/24", "203.0.113.0", "203.0.113.255", "documentation"],
  ["224.0.0.0/4", "224.0.0.0", "239.255.255.255", "multicast"],
  ["240.0.0.0/4", "240.0.0.0", "255.255.255.254", "reserved"],
];

const PUBLIC_IPV4 = [
  "1.1.1.1",
  "8.8.8.8",
  "1.0.0.0",
  "9.255.255.255",
  "11.0.0.0",
  "100.63.255.255",
  "100.128.0.0",
  "126.255.255.255",
  "128.0.0.0",
  "169.253.255.255",
  "169.255.0.0",
  "172.15.255.255",
  "172.32.0.0",
  "192.0.1.0",
  "192.0.3.0",
  "192.88.98.255",
  "192.88.100.0",
  "192.167.255.255",
  "192.169.0.0",
  "198.17.255.255",
  "198.20.0.0",
  "198.51.99.255",
  "198.51.101.0",
  "203.0.112.255",
  "203.0.114.0",
  "223.255.255.255",
];

describe("classifyAddress: IPv4", () => {
  it.each(IPV4_RANGES)("%s is refused at both edges (%s, %s) as %s", (range, first, last, kind) => {
    for (const address of [first, last]) {
      expect(classifyAddress(address)).toEqual({ kind, range, address });
    }
  });

  it("knows 0.0.0.0 as unspecified and 255.255.255.255 as broadcast", () => {
    expect(classifyAddress("0.0.0.0")?.kind).toBe("unspecified");
    expect(classifyAddress("255.255.255.255")?.kind).toBe("broadcast");
  });

  it.each(PUBLIC_IPV4)("%s is public", (address) => {
    expect(classifyAddress(address)).toEqual({ kind: "public", range: "", address });
  });

  it.each([
    ["2130706433", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"],
    ["0X7F000001", "127.0.0.1"],
    ["017700000001", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["0177.0.0.01", "127.0.0.1"],
    ["0x7f.0x0.0x0.0x1", "127.0.0.1"],
    ["10.1", "10.0.0.1"],
    ["192.168.257", "192.168.1.1"],
    ["0xa9.0xfe.0xa9.0xfe", "169.254.169.254"],
    ["2852039166", "169.254.169.254"],
    ["0", "0.0.0.0"],
  ])("reads the decimal, octal and hex form %s as %s", (text, address) => {
    expect(classifyAddress(text)?.address).toBe(address);
    expect(classifyAddress(text)?.kind).not.toBe("public");
  });

  it.each([
    "256.1.1.1",
    "1.2.3.4.5",
    "1..2.3",
    "08.1.1.1",
    "4294967296",
    "1.2.3.0x100",
    "example.com",
    "1e3",
    "",
  ])("%s is not an IPv4 address", (text) => {
    expect(parseIPv4(text)).toBeUndefined();
  });
});

describe("classifyAddress: IPv6", () => {
  it.each([
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf:ffff::1", "link-local"],
    ["fec0::1", "site-local"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["fdff:ffff::1", "unique-local"],
    ["ff02::1", "multicast"],
    ["ff0e::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["3fff::1", "documentation"],
    ["3fff:fff:ffff::1", "documentation"],
    ["2001:2::1", "benchmarking"],
    ["2001::1", "reserved"],
    ["2001:1ff:ffff::1", "reserved"],
    ["100::1", "reserved"],
    ["4000::1", "reserved"],
    ["1234::1", "reserved"],
    ["64:ff9b:1::1", "private"],
  ])("%s is %s", (address, kind) => {
    expect(classifyAddress(address)?.kind).toBe(kind);
  });

  it.each([
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["[::ffff:7f00:1]", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::ffff:a9fe:a9fe", "link-local"],
    ["::127.0.0.1", "loopback"],
    ["::ffff:0:192.168.0.1", "private"],
    ["64:ff9b::10.0.0.1", "private"],
    ["64:ff9b::7f00:1", "loopback"],
    ["2002:a00:1::", "private"],
    ["2002:7f00:1::1", "loopback"],
  ])("%s carries an IPv4 address and is judged by it: %s", (address, kind) => {
    const verdict = classifyAddress(address);
    expect(verdict?.kind).toBe(kind);
    expect(verdict?.range).toMatch(/carrying/);
  });

  it.each([
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "2001:200::1",
    "3fff:1000::1",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "2002:808:808::",
  ])("%s is public", (address) => {
    expect(classifyAddress(address)?.kind).toBe("public");
  });

  it("returns undefined for host names and malformed IPv6", () => {
    for (const text of ["localhost", "example.com", "::g", "1::2::3", "[::1"]) {
      expect(classifyAddress(text)).toBeUndefined();
    }
  });
});

describe("HostGuard", () => {
  it.each([
    "http://127.0.0.1/",
    "http://2130706433/",
    "http://0x7f.1/",
    "http://0177.0.0.1/",
    "http://127.1:8080/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00::1]/",
    "http://10.0.0.1/",
    "http://100.100.100.200/",
    "http://0.0.0.0/",
  ])("refuses %s before connecting, whatever the spelling", (url) => {
    const guard = new HostGuard();
    expect(() => guard.checkUrlHost(new URL(url))).toThrow(BlockedAddressError);
  });

  it("lets public IPs and host names through the URL check (names are judged at lookup)", () => {
    const guard = new HostGuard();
    expect(() => guard.checkUrlHost(new URL("http://8.8.8.8/"))).not.toThrow();
    expect(() => guard.checkUrlHost(new URL("http://example.com/"))).not.toThrow();
  });

  it("allowHosts matches exact names and IPs (case, brackets and a trailing dot ignored) and *.suffixes", () => {
    const guard = new HostGuard({ allowHosts: ["Intranet.Example", "127.0.0.1", "[::1]", "*.corp.example"] });
    expect(guard.allows("intranet.example.")).toBe(true);
    expect(guard.allows("INTRANET.example")).toBe(true);
    expect(guard.allows("127.0.0.1")).toBe(true);
    expect(guard.allows("::1")).toBe(true);
    expect(guard.allows("wiki.corp.example")).toBe(true);
    expect(guard.allows("corp.example")).toBe(false);
    expect(guard.allows("127.0.0.2")).toBe(false);
    expect(guard.allows("evilcorp.example")).toBe(false);
    expect(() => guard.checkUrlHost(new URL("http://127.0.0.2/"))).toThrow(BlockedAddressError);
  });

  it("allowPrivate turns the guard off", () => {
    const guard = new HostGuard({ allowPrivate: true });
    expect(() => guard.checkUrlHost(new URL("http://10.0.0.1/"))).not.toThrow();
  });

  /** A resolver that answers from a table, like dns.lookup with `all: true`. */
  const table =
    (answers: Record<string, LookupAddress[]>): LookupFunction =>
    (hostname, _options, callback) => {
      const found = answers[hostname];
      if (!found) return callback(Object.assign(new Error("ENOTFOUND"), { code: "ENOTFOUND" }), "", 0);
      (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, found);
    };

  const lookupOnce = (lookup: LookupFunction, host: string, all: boolean) =>
    new Promise<{ error: Error | null; result: unknown }>((resolve) => {
      lookup(host, { all }, (error, address, family) =>
        resolve({ error, result: all ? address : { address, family } }),
      );
    });

  it("its lookup refuses a name when any of its addresses is not public", async () => {
    const lookup = new HostGuard().lookup(
      table({
        "mixed.test": [
          { address: "93.184.216.34", family: 4 },
          { address: "10.0.0.7", family: 4 },
        ],
        "metadata.test": [{ address: "fd00:ec2::254", family: 6 }],
      }),
    );
    const mixed = await lookupOnce(lookup, "mixed.test", true);
    expect(mixed.error).toBeInstanceOf(BlockedAddressError);
    expect(mixed.error?.message).toMatch(
      /mixed\.test resolves to 10\.0\.0\.7, which is a private-network address/,
    );
    const v6 = await lookupOnce(lookup, "metadata.test", false);
    expect(v6.error?.message).toMatch(/unique-local/);
  });

  it("its lookup passes public answers on, in the form the socket asked for", async () => {
    const answers = {
      "public.test": [
        { address: "93.184.216.34", family: 4 },
        { address: "2606:2800:220:1::1", family: 6 },
      ],
    };
    const lookup = new HostGuard().lookup(table(answers));
    expect(await lookupOnce(lookup, "public.test", true)).toEqual({
      error: null,
      result: answers["public.test"],
    });
    expect(await lookupOnce(lookup, "public.test", false)).toEqual({
      error: null,
      result: { address: "93.184.216.34", family: 4 },
    });
    const failed = await lookupOnce(lookup, "missing.test", false);
    expect((failed.error as NodeJS.ErrnoException).code).toBe("ENOTFOUND");
  });

  it("its lookup lets an allowed host resolve to a private address", async () => {
    const lookup = new HostGuard({ allowHosts: ["intranet.test"] }).lookup(
      table({ "intranet.test": [{ address: "10.1.2.3", family: 4 }] }),
    );
    expect(await lookupOnce(lookup, "intranet.test", false)).toEqual({
      error: null,
      result: { address: "10.1.2.3", family: 4 },
    });
  });
});
