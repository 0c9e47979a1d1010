// The SSRF guard of HttpReader over real sockets, only on 127.0.0.0/8: a server on 127.0.0.2 stands for
// the internal service an attacker wants to reach, and must never see a request.
import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { HttpReader } from "../../src/builtins/web-fetch/http-reader.js";
import { webFetch } from "../../src/builtins/web-fetch/web-fetch.js";
import { Dispatcher, type ToolResult, Toolset } from "../../src/index.js";
import { html, redirect, startServer, type TestServer } from "./servers.js";

let page: TestServer; // 127.0.0.1: the page the model was given
let internal: TestServer; // 127.0.0.2: what must stay unreachable
const readers: HttpReader[] = [];

beforeAll(async () => {
  internal = await startServer({ "/admin": html("<p>internal secrets</p>") }, { host: "127.0.0.2" });
  const internalUrl = `${internal.origin}/admin`;
  page = await startServer({
    "/ok": html("<p>public page</p>"),
    "/to-internal": redirect(internalUrl),
    "/hop": redirect("/to-internal"),
    "/to-decimal": redirect(`http://2130706434:${internal.port}/admin`),
    "/to-name": redirect(`http://internal.test:${internal.port}/admin`),
  });
});

afterAll(async () => {
  for (const reader of readers) await reader.close();
  await page.close();
  await internal.close();
});

beforeEach(() => {
  internal.requests.length = 0;
});

function reader(options: ConstructorParameters<typeof HttpReader>[0] = {}): HttpReader {
  const made = new HttpReader(options);
  readers.push(made);
  return made;
}

async function fetchWith(r: HttpReader, url: string): Promise<ToolResult> {
  const dispatcher = new Dispatcher(new Toolset([webFetch(r)]));
  const [result] = await dispatcher.dispatch([{ id: "1", name: "web_fetch", arguments: { url } }]).results();
  return result!;
}

/** A resolver answering from a table (no DNS traffic), counting its calls. */
function tableLookup(answers: Record<string, string[]>) {
  const calls: string[] = [];
  const lookup: LookupFunction = (hostname, options, callback) => {
    calls.push(hostname);
    const addresses = (answers[hostname] ?? []).map((address): LookupAddress => ({ address, family: 4 }));
    if (addresses.length === 0) {
      return callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), "", 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0]!.address, 4);
  };
  return { lookup, calls };
}

describe("the SSRF guard", () => {
  it("refuses a loopback page by default, before any request is sent", async () => {
    const before = page.requests.length;
    const result = await fetchWith(reader(), `${page.origin}/ok`);
    expect(result.ok).toBe(false);
    expect(result.output).toContain(
      `Refused to fetch ${page.origin}/ok: 127.0.0.1 is a loopback address (this machine) (127.0.0.0/8); web_fetch only reaches public internet addresses.`,
    );
    expect(page.requests.length).toBe(before);
  });

  it("refuses a host name that resolves to loopback (localhost), through the socket's own lookup", async () => {
    const before = page.requests.length;
    const result = await fetchWith(reader(), `http://localhost:${page.port}/ok`);
    expect(result.output).toMatch(/localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/);
    expect(page.requests.length).toBe(before);
  });

  it("refuses decimal, octal and hex spellings of a loopback address", async () => {
    for (const host of ["2130706434", "0x7f000002", "017700000002", "127.2"]) {
      const result = await fetchWith(reader(), `http://${host}:${internal.port}/admin`);
      expect(result.output).toContain("127.0.0.2 is a loopback address");
    }
    expect(internal.requests).toEqual([]);
  });

  it("lets an allowed page through but refuses its redirect to another internal host (127.0.0.2 sees nothing)", async () => {
    const r = reader({ allowHosts: ["127.0.0.1"] });
    expect((await fetchWith(r, `${page.origin}/ok`)).output).toContain("public page");
    const result = await fetchWith(r, `${page.origin}/to-internal`);
    expect(result.ok).toBe(false);
    expect(result.output).toContain(
      `Refused to fetch ${internal.origin}/admin: 127.0.0.2 is a loopback address`,
    );
    expect(internal.requests).toEqual([]);
  });

  it("checks every hop of a redirect chain, and every spelling on the way", async () => {
    const r = reader({ allowHosts: ["127.0.0.1"] });
    expect((await fetchWith(r, `${page.origin}/hop`)).output).toContain("127.0.0.2 is a loopback address");
    expect((await fetchWith(r, `${page.origin}/to-decimal`)).output).toContain(
      "127.0.0.2 is a loopback address",
    );
    expect(internal.requests).toEqual([]);
  });

  it("refuses a redirect to a name that resolves to an internal address", async () => {
    const { lookup } = tableLookup({ "internal.test": ["127.0.0.2"] });
    const r = reader({ allowHosts: ["127.0.0.1"], lookup });
    const result = await fetchWith(r, `${page.origin}/to-name`);
    expect(result.output).toContain("internal.test resolves to 127.0.0.2, which is a loopback address");
    expect(internal.requests).toEqual([]);
  });

  it("resolves a name once and connects to exactly the address it checked", async () => {
    // The resolver answers 127.0.0.1 first and 127.0.0.2 afterwards, as a rebinding DNS server would.
    let answer = 0;
    const calls: string[] = [];
    const rebinding: LookupFunction = (hostname, options, callback) => {
      calls.push(hostname);
      const address = answer++ === 0 ? "127.0.0.1" : "127.0.0.2";
      if (options.all) {
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [{ address, family: 4 }]);
      }
      return callback(null, address, 4);
    };
    const r = reader({ allowHosts: ["rebind.test"], lookup: rebinding, cacheTtl: 0 });
    const result = await fetchWith(r, `http://rebind.test:${page.port}/ok`);
    expect(result.output).toContain("public page");
    expect(calls).toEqual(["rebind.test"]);
    expect(page.requests.at(-1)?.headers.host).toBe(`rebind.test:${page.port}`);
    expect(internal.requests).toEqual([]);
  });

  it("allowHosts opens a host by name; allowPrivate opens everything", async () => {
    const { lookup } = tableLookup({ "wiki.corp.test": ["127.0.0.2"] });
    const byName = reader({ allowHosts: ["*.corp.test"], lookup });
    expect((await fetchWith(byName, `http://wiki.corp.test:${internal.port}/admin`)).output).toContain(
      "internal secrets",
    );
    const open = reader({ allowPrivate: true });
    expect((await fetchWith(open, `${page.origin}/to-internal`)).output).toContain("internal secrets");
    expect(internal.requests).toHaveLength(2);
  });

  it("reports a name that does not resolve", async () => {
    const { lookup } = tableLookup({});
    const result = await fetchWith(reader({ lookup }), "http://nowhere.test/");
    expect(result.output).toContain("The host nowhere.test was not found (the DNS lookup failed).");
  });
});
