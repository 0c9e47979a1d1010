/**
 * Bounds how deep an HTML page nests before htmlparser2 builds its tree. The parser keeps its open
 * elements in an array it shifts and unshifts, so its cost grows with the square of the nesting depth:
 * 100,000 nested `<div>`s (500 KB) take about 9 s, and a hostile page could stall the agent's event loop
 * for longer. Browsers cap the depth too (Blink at 512).
 *
 * One linear pass with htmlparser2's own tokenizer tracks the open elements exactly as its parser does
 * (the same implied-close table and void elements); whatever would open deeper than the cap is left out
 * together with everything inside it, so no hidden or raw-text element can lose its tag and spill its
 * contents into the page's text.
 */
import { htmlParser } from "../html-parser.js";

/** Elements nested deeper than this are left out of a page, with their contents. */
export const MAX_HTML_DEPTH = 256;

// htmlparser2's Parser: opening the key closes the open elements on top that are in its set.
const P = new Set(["p"]);
const FORM = new Set(["input", "option", "optgroup", "select", "button", "datalist", "textarea"]);
const OPEN_IMPLIES_CLOSE = new Map<string, ReadonlySet<string>>([
  ["tr", new Set(["tr", "th", "td"])],
  ["th", new Set(["th"])],
  ["td", new Set(["thead", "th", "td"])],
  ["body", new Set(["head", "link", "script"])],
  ["li", new Set(["li"])],
  ["option", new Set(["option"])],
  ["optgroup", new Set(["optgroup", "option"])],
  ["dd", new Set(["dd", "dt"])],
  ["dt", new Set(["dd", "dt"])],
  ["rt", new Set(["rt", "rp"])],
  ["rp", new Set(["rt", "rp"])],
  ["tbody", new Set(["thead", "tbody"])],
  ["tfoot", new Set(["thead", "tbody"])],
  ...["select", "input", "output", "button", "datalist", "textarea"].map(
    (t): [string, ReadonlySet<string>] => [t, FORM],
  ),
  ...[
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "address",
    "article",
    "aside",
    "blockquote",
    "details",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "header",
    "hr",
    "main",
    "nav",
    "ol",
    "pre",
    "section",
    "table",
    "ul",
  ].map((t): [string, ReadonlySet<string>] => [t, P]),
]);
const VOID = new Set([
  "area",
  "base",
  "basefont",
  "br",
  "col",
  "command",
  "embed",
  "frame",
  "hr",
  "img",
  "input",
  "isindex",
  "keygen",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);

/**
 * `html` with every element that would nest deeper than `maxDepth` left out, contents included (each
 * cut becomes one space). Returns `html` itself when nothing is that deep.
 */
export function capNesting(html: string, maxDepth: number = MAX_HTML_DEPTH): string {
  const stack: string[] = [];
  const open = new Map<string, number>();
  const cuts: number[] = [];
  let discardFrom = -1;
  let discardDepth = 0;
  const pop = () => {
    const name = stack.pop()!;
    open.set(name, open.get(name)! - 1);
  };
  const endDiscard = (at: number) => {
    if (discardFrom !== -1 && stack.length <= discardDepth) {
      cuts.push(discardFrom, at);
      discardFrom = -1;
    }
  };
  const noop = () => {};
  const tokenizer = new (htmlParser().Tokenizer)(
    { xmlMode: false, decodeEntities: false },
    {
      onopentagname(start, endIndex) {
        const name = html.slice(start, endIndex).toLowerCase();
        const tagStart = start - 1;
        const implied = OPEN_IMPLIES_CLOSE.get(name);
        if (implied) while (stack.length > 0 && implied.has(stack[stack.length - 1]!)) pop();
        endDiscard(tagStart);
        if (VOID.has(name)) return;
        if (discardFrom === -1 && stack.length >= maxDepth) {
          discardFrom = tagStart;
          discardDepth = stack.length;
        }
        stack.push(name);
        open.set(name, (open.get(name) ?? 0) + 1);
      },
      onclosetag(start, endIndex) {
        const name = html.slice(start, endIndex).toLowerCase();
        const gt = html.indexOf(">", endIndex);
        const stop = gt === -1 ? html.length : gt + 1;
        if (VOID.has(name) || (open.get(name) ?? 0) === 0) return;
        while (stack.length > 0) {
          const top = stack[stack.length - 1];
          pop();
          if (top === name) break;
        }
        endDiscard(stop);
      },
      onopentagend: noop,
      onselfclosingtag: noop,
      onattribdata: noop,
      onattribentity: noop,
      onattribend: noop,
      onattribname: noop,
      oncdata: noop,
      oncomment: noop,
      ondeclaration: noop,
      onend: noop,
      onprocessinginstruction: noop,
      ontext: noop,
      ontextentity: noop,
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  if (discardFrom !== -1) cuts.push(discardFrom, html.length);
  if (cuts.length === 0) return html;
  let out = "";
  let at = 0;
  for (let i = 0; i < cuts.length; i += 2) {
    out += `${html.slice(at, cuts[i])} `;
    at = cuts[i + 1]!;
  }
  return out + html.slice(at);
}
