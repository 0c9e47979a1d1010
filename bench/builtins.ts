// web_fetch of a 1 MB HTML page from a server on 127.0.0.1: what the download, the conversion to
// Markdown and the fence cost, how much text comes out, and a cache hit against a miss. Also the
// conversion of two hostile 1 MB pages (deep nesting, a flat run of siblings). Figures, not pass/fail;
// every timed run is checked for success and the expected output, and the bench aborts otherwise.
// Run: make bench (it measures the built package: "cordon" resolves to dist/).

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { Dispatcher, type ToolResult, Toolset } from "cordon";
import { FENCE_BEGIN, HttpReader, neutralize, type WebFetchResult, webFetch } from "cordon/builtins";
import { request } from "undici";
// The converter is internal (not exported by the package): the bench takes it from the sources.
import { convertHtml } from "../src/builtins/web-fetch/html.js";
import { DEFAULT_MAX_BYTES } from "../src/builtins/web-fetch/http-reader.js";
import { DEFAULT_WEB_FETCH_MAX_CHARS } from "../src/builtins/web-fetch/web-fetch.js";
import { fmt, median, sample } from "./stats.js";

function check(condition: unknown, what: string): asserts condition {
  if (!condition) {
    console.error(`bench/builtins.ts: check failed: ${what}`);
    process.exit(1);
  }
}

const END_MARKER = "END-OF-PAGE-MARKER";

/** A documentation page just under the download cap: chrome, then sections of prose, lists, tables, code. */
function documentationPage(targetBytes: number): string {
  const head = `<!doctype html><html><head><title>Widget SDK reference</title><meta charset="utf-8"></head><body>
<header><a href="/">Home</a> <a href="/docs">Docs</a></header><nav><ul>${Array.from({ length: 40 }, (_, i) => `<li><a href="/docs/${i}">Topic ${i}</a></li>`).join("")}</ul></nav><main>`;
  const tail = `<p>${END_MARKER}</p></main><footer>© Widget Corp</footer></body></html>`;
  const section = (i: number) => `<section><h2 id="s${i}">Section ${i}: configuring widgets</h2>
<p>The <a href="/docs/widgets/${i}">widget ${i}</a> accepts a <code>timeout</code> and a <strong>retry policy</strong>; see the table below for defaults. Values are in milliseconds unless stated otherwise, and every option can be overridden per call.</p>
<ul><li>timeout: how long one attempt may take</li><li>retries: attempts after the first</li><li>backoff: doubled each time, capped</li></ul>
<table><thead><tr><th>Option</th><th>Default</th><th>Range</th></tr></thead><tbody><tr><td>timeout</td><td>${1000 + i}</td><td>1–60000</td></tr><tr><td>retries</td><td>2</td><td>0–10</td></tr></tbody></table>
<pre><code class="language-ts">const widget = createWidget({ id: ${i}, timeout: ${1000 + i}, retries: 2 });
await widget.start();</code></pre></section>\n`;
  let body = "";
  let bytes = Buffer.byteLength(head + tail);
  for (let i = 0; ; i++) {
    const next = section(i);
    const size = Buffer.byteLength(next);
    if (bytes + size > targetBytes) break;
    body += next;
    bytes += size;
  }
  return head + body + tail;
}

const page = documentationPage(DEFAULT_MAX_BYTES - 1_000);
const pageBytes = Buffer.byteLength(page);
check(pageBytes < DEFAULT_MAX_BYTES, "the page fits under the download cap");
const gzipped = gzipSync(page);
let pageRequests = 0;
const server = createServer((req, res) => {
  pageRequests++;
  if (req.url === "/page.html.gz") {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-encoding": "gzip" });
    res.end(gzipped);
    return;
  }
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(page);
});
// The hostile pages below hold the event loop for seconds; an idle connection must not be closed by the
// server's 5 s keep-alive just as the next timed download goes out on it.
server.keepAliveTimeout = 120_000;
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const url = `${origin}/page.html`;

// 1. The download alone: undici reading the body from loopback.
const download = async () => {
  const response = await request(url);
  const text = await response.body.text();
  check(response.statusCode === 200 && text.length === page.length, "the download returns the whole page");
};

// 2. The conversion alone, and the fence's neutralisation of its output.
let markdown = "";
const convert = () => {
  markdown = convertHtml(page, url).markdown;
  check(markdown.includes(END_MARKER), "the conversion reaches the end of the page");
  check(markdown.includes("## Section 0: configuring widgets"), "headings survive");
  check(markdown.includes("| timeout | 1000 | 1–60000 |"), "tables survive");
  check(markdown.includes("```ts\nconst widget = createWidget({ id: 0"), "code blocks survive");
  check(!markdown.includes("Topic 39"), "the navigation is left out");
};
const fenceText = () => {
  check(neutralize(markdown).length === markdown.length, "neutralising clean text changes nothing");
};

// 3. web_fetch through the dispatcher: a miss (caching off) and a hit (same reader, cached).
let expected: { total: number; output: string } | undefined;
function checkFetch(result: ToolResult | undefined, what: string): WebFetchResult {
  check(result?.ok, `${what}: the call succeeds`);
  const value = result.value as WebFetchResult;
  check(value.status === 200 && !value.size_capped, `${what}: status 200, not capped`);
  check(value.content.startsWith(`${FENCE_BEGIN}\nTitle: Widget SDK reference`), `${what}: fenced page text`);
  check(value.next_offset !== null && value.next_offset <= DEFAULT_WEB_FETCH_MAX_CHARS, `${what}: one slice`);
  if (expected === undefined) expected = { total: value.total_chars, output: result.output };
  check(
    value.total_chars === expected.total && result.output === expected.output,
    `${what}: the same text each time`,
  );
  return value;
}
const uncached = new HttpReader({ allowHosts: ["127.0.0.1"], cacheTtl: 0 });
const cached = new HttpReader({ allowHosts: ["127.0.0.1"] });
const missTool = new Dispatcher(new Toolset([webFetch(uncached)]));
const hitTool = new Dispatcher(new Toolset([webFetch(cached)]));
const call = (d: Dispatcher, args: Record<string, unknown> = { url }) =>
  d
    .dispatch([{ id: "c", name: "web_fetch", arguments: args }])
    .results()
    .then((r) => r[0]);
const miss = async () => {
  const before = pageRequests;
  checkFetch(await call(missTool), "miss");
  check(pageRequests === before + 1, "a miss downloads the page");
};
const hit = async () => {
  const before = pageRequests;
  checkFetch(await call(hitTool), "hit");
  check(pageRequests === before, "a hit does not download");
};
const continuation = async () => {
  const result = await call(hitTool, { url, offset: 500_000 });
  check(result?.ok, "a continuation succeeds");
  check((result.value as WebFetchResult).offset === 500_000, "a continuation starts at its offset");
};
const gzipMiss = async () => {
  const result = await call(missTool, { url: `${origin}/page.html.gz` });
  check(
    result?.ok && (result.value as WebFetchResult).total_chars === expected?.total,
    "gzip: the same text",
  );
};

// 4. Hostile pages of the same size: nesting far deeper than any real page, and 30,000 siblings.
const deep = `${"<div>".repeat(200_000)}`;
const paragraph = "<p>Lorem ipsum dolor sit amet.</p>\n";
const flat = paragraph.repeat(Math.floor(DEFAULT_MAX_BYTES / paragraph.length));
const hostileDeep = () => check(convertHtml(deep, url).markdown === "", "deep nesting is cut");
const hostileFlat = () => check(convertHtml(flat, url).markdown.length > 800_000, "every sibling converted");

checkFetch(await call(hitTool), "first call"); // fills the cache for the hit samples
for (const run of [
  download,
  convert,
  fenceText,
  miss,
  hit,
  continuation,
  gzipMiss,
  hostileDeep,
  hostileFlat,
]) {
  await sample(3, run);
}
const times = {
  download: median(await sample(15, download)) / 1000,
  convert: median(await sample(15, convert)) / 1000,
  fence: median(await sample(15, fenceText)) / 1000,
  miss: median(await sample(15, miss)) / 1000,
  gzip: median(await sample(10, gzipMiss)) / 1000,
  hit: median(await sample(200, hit)) / 1000,
  continuation: median(await sample(100, continuation)) / 1000,
  deep: median(await sample(5, hostileDeep)) / 1000,
  flat: median(await sample(5, hostileFlat)) / 1000,
};
checkFetch(await call(hitTool), "one slice");
const firstSlice = expected!.output.length;

console.log(`web_fetch of a ${pageBytes.toLocaleString("en-US")}-byte HTML page (127.0.0.1, median of runs)`);
console.log(`  download only (undici, loopback):      ${fmt(times.download, "ms")}`);
console.log(`  HTML to Markdown (convertHtml):        ${fmt(times.convert, "ms")}`);
console.log(`  fence neutralisation of the Markdown:  ${fmt(times.fence, "ms")}`);
console.log(`  web_fetch, cache miss (dispatcher):    ${fmt(times.miss, "ms")}`);
console.log(
  `  web_fetch, cache miss, gzip body:      ${fmt(times.gzip, "ms")}  [${gzipped.length.toLocaleString("en-US")} bytes on the wire]`,
);
console.log(
  `  web_fetch, cache hit:                  ${fmt(times.hit, "ms")}  (${(times.miss / times.hit).toFixed(0)}x faster than a miss)`,
);
console.log(`  web_fetch, hit with offset=500000:     ${fmt(times.continuation, "ms")}`);
console.log("output size");
console.log(`  HTML:                                  ${pageBytes.toLocaleString("en-US")} bytes`);
console.log(
  `  Markdown (whole page):                 ${markdown.length.toLocaleString("en-US")} chars (${((100 * markdown.length) / pageBytes).toFixed(0)}% of the HTML)`,
);
console.log(
  `  what one call returns:                 ${firstSlice.toLocaleString("en-US")} chars (one ${DEFAULT_WEB_FETCH_MAX_CHARS.toLocaleString("en-US")}-char slice)`,
);
console.log("hostile 1 MB pages, conversion only");
console.log(`  200,000 nested <div>s:                 ${fmt(times.deep, "ms")}`);
console.log(
  `  ${Math.floor(DEFAULT_MAX_BYTES / paragraph.length).toLocaleString("en-US")} sibling paragraphs:           ${fmt(times.flat, "ms")}`,
);

await uncached.close();
await cached.close();
server.close();
