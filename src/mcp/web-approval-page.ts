/**
 * The HTML of cordon's approval page: the tool and every argument as the approval rules show them (see
 * src/dispatch/preview.ts), Allow and Deny in a form that posts back to the same URL, and the pages that
 * say what was decided. No script; every text is HTML-escaped after its hiding characters are made visible.
 */

import { createHash } from "node:crypto";
import { formatDuration } from "../dispatch/failures.js";
import type { FlowApproval } from "../dispatch/flow-approval.js";
import {
  APPROVAL_MARKS_PER_CHAR,
  approvalDetails,
  approvalLines,
  flowLine,
  visibleText,
} from "../dispatch/preview.js";

/** What the approval page shows of one gated call. */
export interface ApprovalPageCall {
  toolName: string;
  args: unknown;
  approvalKeys?: readonly string[];
  /** Set when a flow policy asks: why, and the arguments holding labelled data. */
  flow?: FlowApproval;
  /** For a plan: each of its calls (tool and arguments), decided at once; `args` is then not shown. */
  plan?: readonly { tool: string; args: unknown }[];
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#111}
code,pre{font:14px/1.4 ui-monospace,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
ul.args{padding-left:1.2rem}ul.args li{margin:.3rem 0}
pre{background:#f4f4f4;padding:.5rem}
form{margin-top:1.5rem;display:flex;gap:1rem}
button{font-size:1rem;padding:.5rem 1.5rem;cursor:pointer}
button.allow{background:#1a7f37;color:#fff;border:0}button.deny{background:#cf222e;color:#fff;border:0}`;

/**
 * The page's Content-Security-Policy: nothing loads or runs but its one inline style (allowed by its
 * hash), forms post only to this server, and no other page may frame it.
 */
export const APPROVAL_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(STYLE).digest("base64")}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/** `text` safe inside HTML text and double-quoted attributes. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** The page that asks: the call, its arguments, when it expires, and the Allow / Deny form. */
export function approvalPage(call: ApprovalPageCall, csrfToken: string, expiresInMs: number): string {
  if (call.plan) return planPage(call.plan, csrfToken, expiresInMs);
  const tool = escapeHtml(visibleText(call.toolName));
  const lines = approvalLines(call.args, {
    ...(call.approvalKeys === undefined ? {} : { keys: call.approvalKeys }),
    ...(call.flow ? { marks: call.flow.marks } : {}),
  });
  const flow = call.flow ? `<p class="flow"><strong>${escapeHtml(flowLine(call.flow))}</strong></p>\n` : "";
  const list =
    lines.length === 0
      ? "<p>It has no arguments.</p>"
      : `<p>With these arguments:</p>\n<ul class="args">${lines
          .map((line) => `<li><code>${escapeHtml(line)}</code></li>`)
          .join("\n")}</ul>`;
  return document(
    `Allow ${tool}?`,
    `<h1>Allow a call to <code>${tool}</code>?</h1>
<p>Code running in cordon's sandbox wants to call <code>${tool}</code>. Long values are cut in the middle with their length; invisible, control and bidirectional characters, and the combining marks of a character past its first ${APPROVAL_MARKS_PER_CHAR}, are written out as <code>\\u{…}</code>.</p>
${flow}${list}
<details><summary>The arguments in full</summary><pre>${escapeHtml(approvalDetails(call.args))}</pre></details>
<p>Decide within ${escapeHtml(formatDuration(expiresInMs))}: the call is then denied. This page works once.</p>
<form method="post">
<input type="hidden" name="csrf" value="${escapeHtml(csrfToken)}">
<button class="allow" type="submit" name="decision" value="allow">Allow</button>
<button class="deny" type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

/** The page that asks about a whole plan: each call with every argument, and one Allow / Deny. */
function planPage(
  plan: NonNullable<ApprovalPageCall["plan"]>,
  csrfToken: string,
  expiresInMs: number,
): string {
  const items = plan.map((call) => {
    const lines = approvalLines(call.args);
    const args =
      lines.length === 0
        ? "<p>No arguments.</p>"
        : `<ul class="args">${lines.map((line) => `<li><code>${escapeHtml(line)}</code></li>`).join("\n")}</ul>`;
    return `<li><code>${escapeHtml(visibleText(call.tool))}</code>${args}<details><summary>The arguments in full</summary><pre>${escapeHtml(approvalDetails(call.args))}</pre></details></li>`;
  });
  const count = `${plan.length} call${plan.length === 1 ? "" : "s"}`;
  return document(
    `Carry out a plan of ${count}?`,
    `<h1>Carry out a plan of ${count}?</h1>
<p>Code running in cordon's sandbox made a plan: it read what it needed, and these calls with effects were not made. Allow carries out the whole plan, each call once, exactly as shown; anything else the code then asks for is denied. Deny refuses every call. Long values are cut in the middle with their length; invisible, control and bidirectional characters, and the combining marks of a character past its first ${APPROVAL_MARKS_PER_CHAR}, are written out as <code>\\u{…}</code>.</p>
<ol>
${items.join("\n")}
</ol>
<p>Decide within ${escapeHtml(formatDuration(expiresInMs))}: the plan is then denied. This page works once.</p>
<form method="post">
<input type="hidden" name="csrf" value="${escapeHtml(csrfToken)}">
<button class="allow" type="submit" name="decision" value="allow">Allow</button>
<button class="deny" type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

/** A page that only says something: a decision taken, or why there is nothing to decide. */
export function messagePage(title: string, text: string): string {
  return document(escapeHtml(title), `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p>`);
}

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="same-origin">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · cordon</title><style>${STYLE}</style></head>
<body>
${body}
</body></html>
`;
}
