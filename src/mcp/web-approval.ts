/**
 * Approval in a browser: each gated call that waits gets a page on cordon's own HTTP port at a one-time
 * URL (`/approve/<256-bit token>`) showing the call, with Allow and Deny. The page is protected as a
 * decision that runs tools deserves: it works once (then 410), it expires (the call is then denied), a
 * decision is a POST from the page itself (a same-origin `Origin` and `Sec-Fetch-Site`, and the page's
 * own CSRF token), and it can be neither framed, cached, scripted nor leaked to another site through a
 * Referer. The Host and Origin rules of the MCP endpoint apply before a request gets here (http.ts).
 */

import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../dispatch/dispatcher.js";
import { formatDuration } from "../dispatch/failures.js";
import { visibleText } from "../dispatch/preview.js";
import type { ApprovalDecision, ApprovalRequest } from "./code-host.js";
import { readBody } from "./read-body.js";
import { APPROVAL_PAGE_CSP, type ApprovalPageCall, approvalPage, messagePage } from "./web-approval-page.js";

/** The path approval pages are served under: `/approve/<token>`. */
export const APPROVAL_PATH = "/approve/";

/** Decided (or expired) pages remembered, so that a second use is told so (410) rather than 404. */
const MAX_FINISHED_PAGES = 1_000;

/** The largest decision form read, in bytes. */
const MAX_FORM_BYTES = 4 * 1024;

const TOKEN_BYTES = 32;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Options of {@link WebApprovals}. */
export interface WebApprovalsOptions {
  /** The origin page URLs use when a call came without a Host header, e.g. `http://127.0.0.1:3000`. */
  origin: string;
  /** How long a page waits for a decision before the call is denied. Default {@link DEFAULT_APPROVAL_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/** A page opened for one gated call. */
export interface OpenedApproval {
  /** The page's one-time URL: whoever has it can decide the call. */
  readonly url: string;
  /** The id of the URL-mode elicitation that carries {@link url} to the client. */
  readonly elicitationId: string;
  /** How long the page waits for a decision, in ms. */
  readonly timeoutMs: number;
  /** The decision: made on the page, or a denial when it expired or was retired. */
  readonly decision: Promise<ApprovalDecision>;
  /** Whether a person decided on the page (not an expiry or a retirement). */
  readonly decidedOnPage: boolean;
  /** Ends the page, denying the call for `reason`, unless it has ended already. */
  retire(reason: string): void;
}

/** How a page ended: what its later visitors read, with status 410. */
interface Ending {
  title: string;
  text: string;
}

interface Page {
  /** Dropped once the page ended: a finished page keeps no arguments. */
  call: ApprovalPageCall | undefined;
  readonly csrf: string;
  readonly expiresAt: number;
  /** The principal whose call it is; undefined on a server without authentication. */
  readonly owner: string | undefined;
  ending: Ending | undefined;
  end(decision: ApprovalDecision, ending: Ending, byPerson: boolean): void;
}

/** The approval pages of one HTTP server, waiting and recently finished. */
export class WebApprovals {
  readonly #origin: string;
  readonly #timeoutMs: number;
  /** By the SHA-256 of their token, so that a lookup's time says nothing about a guessed token. */
  readonly #pages = new Map<string, Page>();
  readonly #finished: string[] = [];

  constructor(options: WebApprovalsOptions) {
    this.#origin = options.origin;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  }

  /** Whether `path` is an approval page's (the HTTP server routes it here). */
  static handles(path: string): boolean {
    return path.startsWith(APPROVAL_PATH);
  }

  /**
   * Opens a page for `request`, addressed by `host` (the Host the client reached cordon by) or this
   * server's own origin. It ends when decided, after the timeout, when `request.signal` aborts (the
   * call no longer waits), or when retired. With an `owner` (the principal whose call it is), a request
   * authenticated as any other principal is answered as if the page did not exist.
   */
  open(request: ApprovalRequest, host?: string, owner?: string): OpenedApproval {
    const token = randomBytes(TOKEN_BYTES).toString("base64url");
    const key = digest(token);
    const toolName = visibleText(request.toolName);
    let settle!: (decision: ApprovalDecision) => void;
    const decision = new Promise<ApprovalDecision>((resolve) => {
      settle = resolve;
    });
    let decidedOnPage = false;
    const timer = setTimeout(() => {
      page.end(
        {
          approved: false,
          reason: `nobody decided on the approval page within ${formatDuration(this.#timeoutMs)}`,
        },
        {
          title: "This approval page expired",
          text: `Nobody decided within ${formatDuration(this.#timeoutMs)}, so the call to ${toolName} was denied.`,
        },
        false,
      );
    }, this.#timeoutMs);
    timer.unref();
    const onAbort = () =>
      page.end(
        { approved: false, reason: "the call no longer waits for a decision" },
        {
          title: "This call no longer waits",
          text: `The call to ${toolName} stopped waiting for a decision (its run ended, or it was decided another way).`,
        },
        false,
      );
    const page: Page = {
      call: {
        toolName: request.toolName,
        args: request.args,
        ...(request.approvalKeys ? { approvalKeys: request.approvalKeys } : {}),
        ...(request.flow ? { flow: request.flow } : {}),
        ...(request.plan ? { plan: request.plan } : {}),
      },
      csrf: randomBytes(TOKEN_BYTES).toString("base64url"),
      expiresAt: performance.now() + this.#timeoutMs,
      owner,
      ending: undefined,
      end: (result, ending, byPerson) => {
        if (page.ending) return;
        page.ending = ending;
        page.call = undefined;
        decidedOnPage = byPerson;
        clearTimeout(timer);
        request.signal.removeEventListener("abort", onAbort);
        this.#remember(key);
        settle(result);
      },
    };
    this.#pages.set(key, page);
    if (request.signal.aborted) onAbort();
    else request.signal.addEventListener("abort", onAbort, { once: true });
    const origin = (host === undefined ? undefined : originOf(host)) ?? this.#origin;
    return {
      url: `${origin}${APPROVAL_PATH}${token}`,
      elicitationId: randomUUID(),
      timeoutMs: this.#timeoutMs,
      decision,
      get decidedOnPage() {
        return decidedOnPage;
      },
      retire: (reason) =>
        page.end(
          { approved: false, reason },
          { title: "This call was denied", text: `The call to ${toolName} was denied: ${reason}.` },
          false,
        ),
    };
  }

  /**
   * Answers a request for an approval page (GET shows it, POST decides). `visitor` is the principal the
   * request authenticated as, when it carried credentials.
   */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, visitor?: string): Promise<void> {
    const token = path.slice(APPROVAL_PATH.length);
    if (req.method !== "GET" && req.method !== "POST") {
      return send(
        res,
        405,
        messagePage("Method not allowed", "An approval page is read with GET and decided with POST."),
        {
          allow: "GET, POST",
        },
      );
    }
    // Checked before the token is looked up: a cross-site page learns nothing, not even whether it exists.
    if (req.method === "POST" && !fromThePageItself(req)) {
      return send(
        res,
        403,
        messagePage(
          "Refused",
          "A decision must be posted from the approval page itself (same origin); this request came from another site.",
        ),
      );
    }
    const found = TOKEN_PATTERN.test(token) ? this.#pages.get(digest(token)) : undefined;
    const page =
      found && (visitor === undefined || found.owner === undefined || found.owner === visitor)
        ? found
        : undefined;
    if (!page) {
      return send(
        res,
        404,
        messagePage(
          "No such approval page",
          "This approval link is unknown: check that it was copied whole.",
        ),
      );
    }
    if (page.ending || !page.call) return sendEnding(res, page);
    if (req.method === "GET") {
      const left = Math.max(0, Math.round(page.expiresAt - performance.now()));
      return send(res, 200, approvalPage(page.call, page.csrf, left));
    }
    const form = await readForm(req);
    if (form === undefined) {
      return send(
        res,
        400,
        messagePage(
          "Bad request",
          `The decision must be a form (application/x-www-form-urlencoded) of at most ${MAX_FORM_BYTES} bytes.`,
        ),
      );
    }
    if (!sameSecret(form.get("csrf"), page.csrf)) {
      return send(
        res,
        403,
        messagePage(
          "Refused",
          "The form's token is missing or wrong: reload the approval page and decide there.",
        ),
      );
    }
    const choice = form.get("decision");
    if (choice !== "allow" && choice !== "deny") {
      return send(res, 400, messagePage("Bad request", 'The decision must be "allow" or "deny".'));
    }
    // The page may have ended while the form was read.
    if (page.ending || !page.call) return sendEnding(res, page);
    const toolName = visibleText(page.call.toolName);
    const allowed = choice === "allow";
    page.end(
      allowed ? { approved: true } : { approved: false, reason: "the user denied it on the approval page" },
      {
        title: allowed ? "Already allowed" : "Already denied",
        text: `This approval page was used: the call to ${toolName} was ${allowed ? "allowed" : "denied"}.`,
      },
      true,
    );
    return send(
      res,
      200,
      allowed
        ? messagePage("Allowed", `You allowed the call to ${toolName}: it runs now. This page is used up.`)
        : messagePage(
            "Denied",
            `You denied the call to ${toolName}: the code is told so. This page is used up.`,
          ),
    );
  }

  /** Denies every call still waiting (the server is stopping) and forgets every page. */
  close(): void {
    for (const page of this.#pages.values()) {
      page.end(
        { approved: false, reason: "cordon mcp is stopping" },
        { title: "Stopped", text: "cordon mcp stopped." },
        false,
      );
    }
    this.#pages.clear();
    this.#finished.length = 0;
  }

  #remember(key: string): void {
    this.#finished.push(key);
    while (this.#finished.length > MAX_FINISHED_PAGES) this.#pages.delete(this.#finished.shift()!);
  }
}

/** `http://<host>` for a plain Host header (`name[:port]`); undefined for anything else (`a:1@b`). */
function originOf(host: string): string | undefined {
  try {
    const url = new URL(`http://${host}`);
    const plain = url.host === host.toLowerCase() && url.username === "" && url.pathname === "/";
    return plain ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

function digest(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Secrets compared in constant time (a missing or differently long one is simply wrong). */
function sameSecret(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A POST sent by the approval page itself: its `Origin` names this very host (and port), and the
 * browser's `Sec-Fetch-Site`, when it sends one, says `same-origin`. (Pages are served with
 * `Referrer-Policy: same-origin`: under `no-referrer` a browser sends `Origin: null` even from the page
 * itself, while `same-origin` still sends no Referer, and so no token, to any other site.)
 */
function fromThePageItself(req: IncomingMessage): boolean {
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin") return false;
  const { origin, host } = req.headers;
  if (origin === undefined || host === undefined) return false;
  try {
    return new URL(origin).host === new URL(`http://${host}`).host;
  } catch {
    return false;
  }
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") return undefined;
  const body = await readBody(req, MAX_FORM_BYTES);
  return body === undefined ? undefined : new URLSearchParams(body.toString("utf8"));
}

/** What a page that ended says to a later visitor: 410, it is gone for good. */
function sendEnding(res: ServerResponse, page: Page): void {
  const ending = page.ending ?? { title: "Gone", text: "This approval page has ended." };
  send(res, 410, messagePage(ending.title, ending.text));
}

function send(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": APPROVAL_PAGE_CSP,
    "cache-control": "no-store",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    ...headers,
  });
  res.end(html);
}
