/**
 * Approval in a real browser: Debian's chromium, driven by playwright-core, opens cordon's approval page
 * for a gated call made from run_code in a real `cordon mcp --http 0` process, reads the arguments it
 * shows, and clicks Allow (the call runs) or Deny (the code sees a denial). With CORDON_REQUIRE_BROWSER=1
 * (set by `make test` and `.ci/run`, which install chromium first) a missing chromium fails the suite;
 * without it, a machine with no chromium runs none of it.
 */

import { existsSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type Browser, chromium } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ensureBuilt, SHOP_TOOLS } from "../cli/helpers.js";
import { type Connected, connectHttp, runCode, textOf } from "./helpers.js";

/** Debian's chromium (scripts/chromium.sh installs it); playwright-core downloads no browser. */
const CHROMIUM = "/usr/bin/chromium";
const BROWSER_REQUIRED = process.env.CORDON_REQUIRE_BROWSER === "1";

/** A refund above the shop's approval limit, with a reason that hides a bidi override. */
const REFUND = `try {
  const r = await tools.refund_order({ order_id: "A115", reason: "late delivery\\u202E" });
  return ["refunded", r.amount];
} catch (e) { return [e.kind, e.message]; }`;

let browser: Browser | undefined;
let mcp: (Connected & { url: string }) | undefined;
let urlClient: Client | undefined;

/** The approval page's URL once cordon wrote it to its log (stderr). */
async function pageUrlFromLog(stderr: () => string): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const match = /open (http:\/\/\S+) within/.exec(stderr());
    if (match) return match[1]!;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`cordon logged no approval URL: ${stderr()}`);
}

/** Opens the page in chromium, returns the arguments it lists, and clicks `button`; returns what it then says. */
async function decideInBrowser(
  url: string,
  button: "Allow" | "Deny",
): Promise<{ args: string; after: string }> {
  const page = await browser!.newPage();
  try {
    const response = await page.goto(url);
    expect(response?.status()).toBe(200);
    // Playwright's innerText: the text as rendered, what the person reads.
    // biome-ignore lint/performance/useDomNodeTextContent: a Playwright locator, not a DOM node
    const args = await page.locator("ul.args").innerText();
    await page.getByRole("button", { name: button }).click();
    await page.waitForLoadState();
    // biome-ignore lint/performance/useDomNodeTextContent: a Playwright locator, not a DOM node
    return { args, after: await page.locator("body").innerText() };
  } finally {
    await page.close();
  }
}

describe.runIf(BROWSER_REQUIRED || existsSync(CHROMIUM))("approval in a browser (chromium)", () => {
  beforeAll(async () => {
    ensureBuilt();
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `chromium is missing at ${CHROMIUM}: the browser test needs Debian's chromium; install it with make chromium (scripts/chromium.sh).`,
      );
    }
    browser = await chromium.launch({ executablePath: CHROMIUM });
  }, 60_000);

  afterEach(async () => {
    await urlClient?.close().catch(() => {});
    urlClient = undefined;
    await mcp?.close();
    mcp = undefined;
  });

  afterAll(async () => {
    await browser?.close();
  });

  it("--approve web: the page shows every argument, and Allow lets the gated call run", async () => {
    mcp = await connectHttp(["--tools", SHOP_TOOLS, "--approve", "web"]);
    const call = runCode(mcp.client, REFUND);
    const { args, after } = await decideInBrowser(await pageUrlFromLog(mcp.stderr), "Allow");
    expect(args).toContain('order_id: "A115"');
    expect(args).toContain('reason: "late delivery\\u{202E}"');
    expect(args).not.toContain("\u202E");
    expect(after).toContain("You allowed the call to refund_order");
    expect(textOf(await call)).toContain('["refunded",54]');
  });

  it("--approve web: Deny makes the gated call reject in the code as denied", async () => {
    mcp = await connectHttp(["--tools", SHOP_TOOLS, "--approve", "web"]);
    const call = runCode(mcp.client, REFUND);
    const { after } = await decideInBrowser(await pageUrlFromLog(mcp.stderr), "Deny");
    expect(after).toContain("You denied the call to refund_order");
    const text = textOf(await call);
    expect(text).toContain('"denied"');
    expect(text).toContain("the user denied it on the approval page");
  });

  it("a client with only URL-mode elicitation (--approve ask) gets the page's URL, the person allows in the browser, and the client is told the elicitation is complete", async () => {
    mcp = await connectHttp(["--tools", SHOP_TOOLS]);
    const urls: { url: string; elicitationId: string; message: string }[] = [];
    const completed: string[] = [];
    urlClient = new Client(
      { name: "cordon-url-elicitation-client", version: "1.0.0" },
      { capabilities: { elicitation: { url: {} } } },
    );
    urlClient.setRequestHandler(ElicitRequestSchema, async (request) => {
      if (request.params.mode === "url") {
        const { url, elicitationId, message } = request.params;
        urls.push({ url, elicitationId, message });
      }
      return { action: "accept" };
    });
    urlClient.setNotificationHandler(ElicitationCompleteNotificationSchema, async (notification) => {
      completed.push(notification.params.elicitationId);
    });
    await urlClient.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    const call = urlClient.callTool({
      name: "run_code",
      arguments: { code: REFUND },
    }) as Promise<CallToolResult>;
    await vi.waitFor(() => expect(urls).toHaveLength(1), { timeout: 15_000, interval: 25 });
    const asked = urls[0]!;
    expect(asked.message).toContain("refund_order");
    expect(asked.message).toContain('order_id: "A115"');
    const { args } = await decideInBrowser(asked.url, "Allow");
    expect(args).toContain('order_id: "A115"');
    expect(textOf(await call)).toContain('["refunded",54]');
    expect(completed).toEqual([asked.elicitationId]);
    // The URL went to the client, not to the log.
    expect(mcp.stderr()).not.toContain(asked.url);
  });
});
