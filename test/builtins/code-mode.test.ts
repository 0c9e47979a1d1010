// The built-ins called from run_code: the same tools, through the same dispatcher, returning structured
// values to the code (web_fetch and web_search against local servers; DuckDuckGo is simulated).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { READ_ONLY_NOTE } from "../../src/codemode/declarations.js";
import {
  askHuman,
  duckDuckGoSearch,
  FENCE_BEGIN,
  HttpReader,
  HumanChannel,
  now,
  webFetch,
} from "../../src/entries/builtins.js";
import { isolateEnvironment } from "../../src/entries/in-process.js";
import { type CodeMode, type CodeRunResult, codeMode, Dispatcher, Toolset } from "../../src/index.js";
import { html, startServer, type TestServer } from "./servers.js";

let site: TestServer;
let ddg: TestServer;
let reader: HttpReader;
let channel: HumanChannel;
let cm: CodeMode;
let tools: Toolset;

beforeAll(async () => {
  site = await startServer({
    "/guide": html("<title>Guide</title><main><h1>Guide</h1><p>Step one.</p><p>Step two.</p></main>"),
    "/faq": html("<title>FAQ</title><main><h2>Questions</h2><p>Answers.</p></main>"),
  });
  ddg = await startServer({
    "/html/": (request, res) => {
      const q = new URLSearchParams(request.body).get("q") ?? "";
      const result = (path: string) =>
        `<div class="result"><a class="result__a" href="${site.origin}${path}">${q} ${path}</a><a class="result__snippet">about ${path}</a></div>`;
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<div class="results">${result("/guide")}${result("/faq")}</div>`);
    },
  });
  reader = new HttpReader({ allowHosts: ["127.0.0.1"] });
  channel = new HumanChannel();
  tools = new Toolset([webFetch(reader), duckDuckGoSearch({ baseUrl: ddg.origin }), now, askHuman(channel)]);
  cm = codeMode({ tools, environment: isolateEnvironment() });
});

afterAll(async () => {
  channel.close();
  await cm.close();
  await reader.close();
  await site.close();
  await ddg.close();
});

describe("built-ins from run_code", () => {
  it("declares them with their output types, read-only ones marked", () => {
    expect(cm.declarations).toContain("web_fetch(args: {");
    expect(cm.declarations).toContain("next_offset: number | null;");
    expect(cm.declarations).toContain("web_search(args: {");
    expect(cm.declarations).toContain("now(args?: {");
    expect(cm.declarations).toContain(READ_ONLY_NOTE);
  });

  it("searches, fetches every hit and reads the time in one run, with structured values", async () => {
    const result = await cm.run(`
      const found = await tools.web_search({ query: "setup", max_results: 2 });
      const pages = await Promise.all(found.results.map((r) => tools.web_fetch({ url: r.url })));
      const time = await tools.now({ tz: "UTC" });
      return {
        urls: found.results.map((r) => r.url),
        titles: pages.map((p) => p.content.split("\\n")[1]),
        statuses: pages.map((p) => p.status),
        fenced: pages.every((p) => p.content.startsWith(${JSON.stringify(FENCE_BEGIN)})),
        utc: time.endsWith("+00:00"),
      };
    `);
    expect(result.status).toBe("ok");
    expect(result.value).toEqual({
      urls: [`${site.origin}/guide`, `${site.origin}/faq`],
      titles: ["Title: Guide", "Title: FAQ"],
      statuses: [200, 200],
      fenced: true,
      utc: true,
    });
    expect(result.calls.map((c) => `${c.tool}:${c.status}`)).toEqual([
      "web_search:ok",
      "web_fetch:ok",
      "web_fetch:ok",
      "now:ok",
    ]);
  });

  it("rejects with the tool's own errors, which the code can catch", async () => {
    const guarded = codeMode({ tools: new Toolset([webFetch(), now]), environment: isolateEnvironment() });
    const before = site.hits("/guide");
    try {
      const result = await guarded.run(`
        const out = [];
        try { await tools.web_fetch({ url: "${site.origin}/guide" }); } catch (e) { out.push(e.kind + ": " + e.message); }
        try { await tools.now({ tz: "Nowhere/Land" }); } catch (e) { out.push(e.kind); }
        return out;
      `);
      expect(result.value).toEqual([
        expect.stringMatching(/^error: Refused to fetch .*127\.0\.0\.1 is a loopback address/),
        "invalid_arguments",
      ]);
      expect(site.hits("/guide")).toBe(before);
    } finally {
      await guarded.close();
    }
  });

  it("goes through the same dispatcher as a direct call: events for each child call of run_code", async () => {
    const outer = new Dispatcher(new Toolset([cm.tool]));
    const handle = outer.dispatch([
      {
        id: "rc",
        name: "run_code",
        arguments: {
          code: `return (await tools.web_fetch({ url: "${site.origin}/faq" })).title ?? "no title field";`,
        },
      },
    ]);
    const children: string[] = [];
    for await (const event of handle) {
      if (event.parentCallId === "rc") children.push(`${event.name}:${event.type}`);
    }
    const [result] = await handle.results();
    expect(children).toEqual(["web_fetch:requested", "web_fetch:started", "web_fetch:completed"]);
    expect(result!.output).toContain("no title field");
  });

  it("asks the human from code and uses the answer; concurrent questions of one run wait their turn", async () => {
    const outer = new Dispatcher(new Toolset([cm.tool]));
    const seen: { question: string; pending: number; runId: string | undefined }[] = [];
    const consumer = (async () => {
      for await (const q of channel.questions()) {
        seen.push({ question: q.question, pending: channel.pending.length, runId: q.runId });
        await new Promise((resolve) => setTimeout(resolve, 5));
        channel.answer(q.id, q.options.length > 0 ? [q.options[0]!.label] : `answer to ${q.question}`);
        if (seen.length === 3) break;
      }
    })();
    const code = `
      const [a, b] = await Promise.all([
        tools.ask_human({ question: "Which region?" }),
        tools.ask_human({ question: "Which size?" }),
      ]);
      const pick = await tools.ask_human({ question: "Which plan?", options: [{ label: "basic" }, { label: "pro" }], multi_select: true });
      return [a, b, pick];
    `;
    const [result] = await outer
      .dispatch([{ id: "rc", name: "run_code", arguments: { code } }], { runId: "turn-7" })
      .results();
    await consumer;
    expect(result!.ok).toBe(true);
    expect((result!.value as CodeRunResult).value).toEqual([
      "answer to Which region?",
      "answer to Which size?",
      "basic",
    ]);
    expect(seen.map((s) => s.pending)).toEqual([1, 1, 1]);
    expect(new Set(seen.map((s) => s.runId))).toEqual(new Set(["turn-7"]));
  });
});
