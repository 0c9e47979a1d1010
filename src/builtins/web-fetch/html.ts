/**
 * An HTML page for web_fetch: its title, its images, its main content as Markdown.
 *
 * Parsing is htmlparser2's (forgiving, maintained, linear once nesting is capped: see `nesting.ts`);
 * Markdown comes from our own converter
 * (`markdown.ts`). Both maintained converters were measured on this project's machine and rejected:
 * node-html-markdown took 31 s to convert 400 KB of short paragraphs (its parser, node-html-parser, is
 * quadratic in the number of sibling elements), so one hostile page could stall the agent's event loop
 * for minutes; turndown needs a DOM (domino) and took 1–3.5 s per megabyte.
 *
 * Main content is chosen by HTML landmarks (`<main>`, `role="main"`, a single `<article>`) rather than by
 * Mozilla Readability's scoring: Readability needs a full DOM and its heuristics drop tables, code
 * listings and short sections of documentation and API pages — the pages an agent reads most. A wrong
 * guess would lose content silently, while a navigation bar that slips through costs a few lines.
 */
import type { AnyNode, Element } from "domhandler";
import { hasChildren, isTag, isText } from "../dom-nodes.js";
import { htmlParser } from "../html-parser.js";
import { toMarkdown } from "./markdown.js";
import { capNesting } from "./nesting.js";
import type { PageImage } from "./page.js";
import { largestCandidate, resolveHttp } from "./urls.js";

/** What a converted HTML page gives the reader. */
export interface ConvertedHtml {
  title?: string;
  markdown: string;
  images: PageImage[];
}

// Never content: document metadata, scripts, embedded objects, form controls.
const DROPPED = new Set([
  "head",
  "title",
  "meta",
  "link",
  "base",
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "math",
  "canvas",
  "iframe",
  "frame",
  "object",
  "embed",
  "audio",
  "video",
  "button",
  "input",
  "select",
  "option",
  "datalist",
  "textarea",
]);
// Site chrome, left out when no landmark marks the main content.
const CHROME = new Set(["nav", "aside", "footer"]);
const CHROME_ROLES = new Set(["navigation", "banner", "contentinfo", "complementary", "search"]);
// Text the page itself hides is a favourite place for instructions aimed at models.
const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;

/** A landmark must hold at least this share of the body's text to be taken as the main content. */
const MIN_MAIN_SHARE = 0.2;
/** Landmarks weighed at most: each costs a pass over its text, and nested ones overlap. */
const MAX_LANDMARKS = 20;

/** What one pass over the document found. */
interface Survey {
  body: Element | undefined;
  title: string | undefined;
  ogTitle: string | undefined;
  baseHref: string | undefined;
  ogImages: string[];
  ogImageAlt: string | undefined;
  images: Element[];
  landmarks: Element[];
  articles: Element[];
  chrome: Element[];
  skip: Set<Element>;
}

function isHidden(element: Element): boolean {
  const { attribs } = element;
  return (
    attribs.hidden !== undefined ||
    attribs["aria-hidden"] === "true" ||
    (attribs.style !== undefined && HIDDEN_STYLE.test(attribs.style))
  );
}

function survey(root: AnyNode): Survey {
  const found: Survey = {
    body: undefined,
    title: undefined,
    ogTitle: undefined,
    baseHref: undefined,
    ogImages: [],
    ogImageAlt: undefined,
    images: [],
    landmarks: [],
    articles: [],
    chrome: [],
    skip: new Set(),
  };
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isTag(node)) {
      if (hasChildren(node))
        for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
      continue;
    }
    const { name, attribs } = node;
    if (name === "title" && found.title === undefined) found.title = textOf(node);
    else if (name === "base" && found.baseHref === undefined && attribs.href) found.baseHref = attribs.href;
    else if (name === "meta") {
      const property = attribs.property ?? attribs.name;
      if ((property === "og:image" || property === "og:image:url") && attribs.content) {
        found.ogImages.push(attribs.content);
      } else if (property === "og:image:alt") found.ogImageAlt = attribs.content;
      else if (property === "og:title") found.ogTitle = attribs.content;
    }
    if (DROPPED.has(name) || isHidden(node)) {
      found.skip.add(node);
      // The head is never content, but its title, base and meta tags are read.
      if (name === "head") for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
      continue;
    }
    if (
      name === "img" ||
      (name === "source" && node.parent !== null && isTag(node.parent) && node.parent.name === "picture")
    ) {
      found.images.push(node);
    } else if (name === "body" && found.body === undefined) found.body = node;
    else if (name === "main" || attribs.role === "main") found.landmarks.push(node);
    else if (name === "article") found.articles.push(node);
    if (
      CHROME.has(name) ||
      CHROME_ROLES.has(attribs.role ?? "") ||
      (name === "header" && node.parent !== null && isTag(node.parent) && node.parent.name === "body")
    ) {
      found.chrome.push(node);
    }
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return found;
}

/** The text of a subtree, iteratively; `skip`ped elements left out. */
function textOf(root: AnyNode, skip?: ReadonlySet<Element>): string {
  const out: string[] = [];
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isText(node)) out.push(node.data);
    else if (hasChildren(node) && !(isTag(node) && skip?.has(node))) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }
  return out.join("");
}

function nonSpace(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 32 && c !== 160) count++;
  }
  return count;
}

/** The visible (non-space) text length of each target, in one pass over the tree. */
function visibleLengths(
  root: AnyNode,
  targets: readonly AnyNode[],
  skip: ReadonlySet<Element>,
): Map<AnyNode, number> {
  const index = new Map(targets.map((t, i) => [t, i]));
  const totals = targets.map(() => 0);
  const open: number[] = [];
  const stack: (AnyNode | number)[] = [root];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === "number") {
      open.pop();
      continue;
    }
    if (isText(item)) {
      const n = nonSpace(item.data);
      if (n > 0) for (const i of open) totals[i]! += n;
      continue;
    }
    if (!hasChildren(item) || (isTag(item) && skip.has(item))) continue;
    const target = index.get(item);
    if (target !== undefined) {
      open.push(target);
      stack.push(target);
    }
    for (let i = item.children.length - 1; i >= 0; i--) stack.push(item.children[i]!);
  }
  return new Map(targets.map((t, i) => [t, totals[i]!]));
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function mainContent(found: Survey, fallback: AnyNode): AnyNode {
  const candidates = [...found.landmarks, ...(found.articles.length === 1 ? found.articles : [])].slice(
    0,
    MAX_LANDMARKS,
  );
  if (candidates.length === 0) return fallback;
  const lengths = visibleLengths(fallback, [fallback, ...candidates], found.skip);
  const total = lengths.get(fallback)!;
  let best: Element | undefined;
  let bestLength = 0;
  for (const candidate of candidates) {
    const length = lengths.get(candidate)!;
    if (length > bestLength) {
      best = candidate;
      bestLength = length;
    }
  }
  return best !== undefined && bestLength >= total * MIN_MAIN_SHARE ? best : fallback;
}

function collectImages(found: Survey, base: string): PageImage[] {
  const byUrl = new Map<string, PageImage>();
  const add = (href: string | undefined, alt: string | undefined) => {
    if (!href) return;
    const url = resolveHttp(href, base);
    if (url === undefined) return;
    const cleanAlt = alt === undefined ? "" : collapse(alt);
    const existing = byUrl.get(url);
    if (existing === undefined) byUrl.set(url, cleanAlt ? { url, alt: cleanAlt } : { url });
    else if (!existing.alt && cleanAlt) existing.alt = cleanAlt;
  };
  for (const og of found.ogImages) add(og, found.ogImageAlt);
  for (const element of found.images) {
    const alt = element.name === "img" ? element.attribs.alt : undefined;
    const srcset = element.attribs.srcset ?? element.attribs["data-srcset"];
    if (srcset) add(largestCandidate(srcset), alt);
    add(element.attribs.src ?? element.attribs["data-src"], alt);
  }
  return [...byUrl.values()];
}

/** Converts an HTML page fetched from `pageUrl`: title, images, and the main content as Markdown. */
export function convertHtml(html: string, pageUrl: string): ConvertedHtml {
  const document = htmlParser().parseDocument(capNesting(html), {
    lowerCaseTags: true,
    lowerCaseAttributeNames: true,
    decodeEntities: true,
  });
  const found = survey(document);
  const base = (found.baseHref === undefined ? undefined : resolveHttp(found.baseHref, pageUrl)) ?? pageUrl;
  const fallback = found.body ?? document;
  const main = mainContent(found, fallback);
  if (main === fallback) for (const element of found.chrome) found.skip.add(element);
  const title = collapse(found.title ?? "") || collapse(found.ogTitle ?? "");
  return {
    ...(title ? { title } : {}),
    markdown: toMarkdown(main, { skip: found.skip, base }),
    images: collectImages(found, base),
  };
}
