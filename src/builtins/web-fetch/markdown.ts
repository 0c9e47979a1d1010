/**
 * A DOM (htmlparser2's domhandler tree) as Markdown for a model to read: headings, paragraphs, nested
 * lists, GFM tables, fenced code with its language, block quotes, links and images. Text is not
 * escaped: the result is for reading, not for rendering back to the same HTML.
 *
 * Linear in the size of the page, and safe on hostile markup: nesting deeper than {@link MAX_NESTING}
 * becomes plain text instead of recursing further, and elements are never removed from the tree (the
 * caller passes the ones to skip), since removing siblings one by one is quadratic.
 */
import type { AnyNode, Element } from "domhandler";
import { hasChildren, isTag, isText } from "../dom-nodes.js";
import { largestCandidate, resolveHttp } from "./urls.js";

/** Nesting below this depth is rendered as plain text. */
export const MAX_NESTING = 100;

/**
 * Quotes and list items deeper than this are not prefixed or indented further: each level rewrites every
 * line inside it, so unbounded levels would cost the square of the page.
 */
export const MAX_INDENT_LEVELS = 8;

/** A table with more columns or cells than these is read as its contents: every row is padded to the widest. */
export const MAX_TABLE_COLUMNS = 50;
const MAX_TABLE_CELLS = 20_000;

const BLOCKS = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "center",
  "dd",
  "details",
  "dialog",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hgroup",
  "hr",
  "html",
  "li",
  "main",
  "menu",
  "nav",
  "ol",
  "p",
  "pre",
  "search",
  "section",
  "summary",
  "table",
  "tbody",
  "td",
  "tfoot",
  "th",
  "thead",
  "tr",
  "ul",
]);

const HEADINGS: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };

/** What the conversion needs to know about the page. */
export interface MarkdownContext {
  /** Elements left out, with everything inside them. */
  skip: ReadonlySet<Element>;
  /** The URL relative links and images resolve against. */
  base: string;
}

/** Converts the children of `root` to Markdown. */
export function toMarkdown(root: AnyNode, context: MarkdownContext): string {
  const converter = new Converter(context);
  return converter.blocks(hasChildren(root) ? root.children : [root], 0).join("\n\n");
}

/** Whitespace as HTML renders it: any run becomes one space (no-break spaces included). */
function collapse(text: string): string {
  return text.replace(/[ \t\n\r\f\u00a0]+/g, " ");
}

function cleanInline(text: string): string {
  return text
    .replace(/ {2,}/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

class Converter {
  readonly #skip: ReadonlySet<Element>;
  readonly #base: string;

  constructor(context: MarkdownContext) {
    this.#skip = context.skip;
    this.#base = context.base;
  }

  /** Block-level Markdown for a list of sibling nodes: runs of inline content become paragraphs. */
  blocks(nodes: readonly AnyNode[], depth: number): string[] {
    const out: string[] = [];
    let inline = "";
    const flush = () => {
      const paragraph = cleanInline(inline);
      if (paragraph !== "") out.push(paragraph);
      inline = "";
    };
    for (const node of nodes) {
      if (isText(node)) {
        inline += collapse(node.data);
        continue;
      }
      if (!isTag(node) || this.#skip.has(node)) continue;
      if (depth >= MAX_NESTING) {
        inline += ` ${collapse(this.text(node))} `;
        continue;
      }
      if (node.name === "br") {
        inline += "\n";
        continue;
      }
      if (!BLOCKS.has(node.name) && !this.#holdsBlocks(node)) {
        inline += this.inline(node, depth + 1);
        continue;
      }
      flush();
      for (const block of this.block(node, depth + 1)) if (block !== "") out.push(block);
    }
    flush();
    return out;
  }

  /** An inline element with block children (a <span> around paragraphs) is laid out as a container. */
  #holdsBlocks(element: Element): boolean {
    if (element.name === "a" || element.name === "code") return false;
    return element.children.some((child) => isTag(child) && BLOCKS.has(child.name));
  }

  block(element: Element, depth: number): string[] {
    const name = element.name;
    const level = HEADINGS[name];
    if (level !== undefined) {
      const text = oneLine(this.blocks(element.children, depth).join(" "));
      return text === "" ? [] : [`${"#".repeat(level)} ${text}`];
    }
    switch (name) {
      case "ul":
      case "ol":
        return [this.list(element, depth)];
      case "pre":
        return [this.codeBlock(element)];
      case "blockquote": {
        const inner = this.#indented(() => this.blocks(element.children, depth)).join("\n\n");
        if (inner === "") return [];
        if (this.#indentLevels >= MAX_INDENT_LEVELS) return [inner];
        return [
          inner
            .split("\n")
            .map((line) => (line === "" ? ">" : `> ${line}`))
            .join("\n"),
        ];
      }
      case "hr":
        return ["---"];
      case "table":
        return this.table(element, depth);
      default:
        return this.blocks(element.children, depth);
    }
  }

  inline(node: AnyNode, depth: number): string {
    if (isText(node)) return collapse(node.data);
    if (!isTag(node) || this.#skip.has(node)) return "";
    if (depth >= MAX_NESTING) return collapse(this.text(node));
    const children = () => node.children.map((child) => this.inline(child, depth + 1)).join("");
    switch (node.name) {
      case "br":
        return "\n";
      case "img":
        return this.image(node);
      case "a":
        return this.link(node, depth);
      case "strong":
      case "b":
        return wrap(children(), "**");
      case "em":
      case "i":
        return wrap(children(), "_");
      case "del":
      case "s":
      case "strike":
        return wrap(children(), "~~");
      case "code":
      case "kbd":
      case "samp":
      case "tt":
        return inlineCode(oneLine(this.text(node)));
      default:
        if (BLOCKS.has(node.name)) return ` ${oneLine(this.blocks(node.children, depth).join(" "))} `;
        return children();
    }
  }

  image(element: Element): string {
    const src = element.attribs.src ?? element.attribs["data-src"];
    const srcset = element.attribs.srcset ?? element.attribs["data-srcset"];
    const chosen = src && !/^\s*data:/i.test(src) ? src : srcset ? largestCandidate(srcset) : undefined;
    const url = chosen === undefined ? undefined : resolveHttp(chosen, this.#base);
    if (url === undefined) return "";
    return `![${oneLine(element.attribs.alt ?? "").replace(/[[\]]/g, "")}](${markdownUrl(url)})`;
  }

  link(element: Element, depth: number): string {
    const text = oneLine(element.children.map((child) => this.inline(child, depth + 1)).join(""));
    const href = element.attribs.href;
    const url = href === undefined ? undefined : resolveHttp(href, this.#base);
    if (url === undefined || text === "") return text;
    if (text === url) return `<${url}>`;
    return `[${text.replace(/]/g, "\\]")}](${markdownUrl(url)})`;
  }

  list(element: Element, depth: number): string {
    const ordered = element.name === "ol";
    let number = Number.parseInt(element.attribs.start ?? "1", 10);
    if (!Number.isFinite(number)) number = 1;
    const items: string[] = [];
    for (const child of element.children) {
      if (isText(child) && child.data.trim() === "") continue;
      if (isTag(child) && this.#skip.has(child)) continue;
      const content = this.#indented(() =>
        isTag(child) ? this.blocks(child.children, depth + 1) : this.blocks([child], depth + 1),
      ).join("\n");
      if (content === "") continue;
      const marker = ordered ? `${number++}. ` : "- ";
      const pad = this.#indentLevels >= MAX_INDENT_LEVELS ? "" : " ".repeat(marker.length);
      items.push(
        content
          .split("\n")
          .map((line, i) => (i === 0 ? marker + line : line === "" ? "" : pad + line))
          .join("\n"),
      );
    }
    return items.join("\n");
  }

  codeBlock(pre: Element): string {
    const code = pre.children.find((child): child is Element => isTag(child) && child.name === "code");
    const classes = `${pre.attribs.class ?? ""} ${code?.attribs.class ?? ""}`;
    const language = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(classes)?.[1] ?? "";
    const text = this.text(pre).replace(/^\n/, "").replace(/\s+$/, "");
    const fence = "`".repeat(Math.max(3, longestRun(text, "`") + 1));
    return `${fence}${language}\n${text}\n${fence}`;
  }

  /** Quote and list levels around the element being converted now. */
  #indentLevels = 0;

  /** Converts what `convert` converts one quote or list level deeper. */
  #indented(convert: () => string[]): string[] {
    this.#indentLevels++;
    try {
      return convert();
    } finally {
      this.#indentLevels--;
    }
  }

  table(table: Element, depth: number): string[] {
    const rows: Element[] = [];
    for (const child of table.children) {
      if (!isTag(child) || this.#skip.has(child)) continue;
      if (child.name === "tr") rows.push(child);
      else if (child.name === "thead" || child.name === "tbody" || child.name === "tfoot") {
        for (const row of child.children)
          if (isTag(row) && row.name === "tr" && !this.#skip.has(row)) rows.push(row);
      }
    }
    const cellsOf = (row: Element) =>
      row.children.filter(
        (c): c is Element => isTag(c) && (c.name === "td" || c.name === "th") && !this.#skip.has(c),
      );
    const grid = rows.map(cellsOf).filter((cells) => cells.length > 0);
    const columns = Math.max(0, ...grid.map((cells) => cells.length));
    // A table used for page layout (one row or column, or tables inside cells), or too wide or big to pad
    // row by row, is read as its contents.
    const layout =
      grid.length < 2 ||
      columns < 2 ||
      columns > MAX_TABLE_COLUMNS ||
      grid.length * columns > MAX_TABLE_CELLS ||
      grid.some((cells) => cells.some((cell) => cell.children.some((c) => isTag(c) && c.name === "table")));
    if (layout) return grid.flatMap((cells) => cells.flatMap((cell) => this.blocks(cell.children, depth)));
    const lines = grid.map((cells) => {
      const texts: string[] = [];
      for (const cell of cells) {
        texts.push(oneLine(this.blocks(cell.children, depth).join(" ")).replace(/\|/g, "\\|"));
        const span = Math.min(Number.parseInt(cell.attribs.colspan ?? "1", 10) || 1, columns);
        for (let i = 1; i < span; i++) texts.push("");
      }
      while (texts.length < columns) texts.push("");
      return `| ${texts.slice(0, columns).join(" | ")} |`;
    });
    const separator = `| ${Array(columns).fill("---").join(" | ")} |`;
    return [[lines[0], separator, ...lines.slice(1)].join("\n")];
  }

  /** The text of a subtree, iteratively (any depth), with <br> as a line break. */
  text(root: Element): string {
    const out: string[] = [];
    const stack: AnyNode[] = [root];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (isText(node)) out.push(node.data);
      else if (isTag(node)) {
        if (this.#skip.has(node)) continue;
        if (node.name === "br") out.push("\n");
        for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
      }
    }
    return out.join("");
  }
}

function wrap(inner: string, mark: string): string {
  const core = inner.trim();
  if (core === "") return inner;
  const lead = inner.startsWith(" ") ? " " : "";
  const trail = inner.endsWith(" ") ? " " : "";
  return `${lead}${mark}${core}${mark}${trail}`;
}

function inlineCode(text: string): string {
  if (text === "") return "";
  const ticks = "`".repeat(longestRun(text, "`") + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

/** Parentheses and spaces would end a Markdown link target early. */
function markdownUrl(url: string): string {
  return url.replace(/\(/g, "%28").replace(/\)/g, "%29").replace(/ /g, "%20");
}
