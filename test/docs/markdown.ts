// Reading the project's Markdown: its fenced blocks, its headings as GitHub turns them into anchors,
// and its relative links.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** A fenced block: its language, its first line's number in the file (1-based) and its text. */
export interface Block {
  file: string;
  line: number;
  lang: string;
  text: string;
}

/** A relative link: where it is and what it points at (`path#anchor`). */
export interface Link {
  file: string;
  line: number;
  target: string;
}

/** README.md and every page of docs/, as paths from the repository root. */
export function documentationFiles(root: string): string[] {
  const pages = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...pages];
}

/** The fenced blocks of a Markdown text (``` fences, indented or not; the info string's first word is the language). */
export function blocksOf(file: string, markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    // A fence may be indented (a block inside a list item); its lines lose that indentation.
    const open = /^(\s*)```(\S*)/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!.length;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^\s*```/.test(lines[end]!)) end++;
    const text = lines.slice(start, end).map((line) => line.slice(Math.min(indent, line.search(/\S|$/))));
    blocks.push({ file, line: start + 1, lang: open[2]!, text: text.join("\n") });
    i = end;
  }
  return blocks;
}

/** The anchors GitHub gives a text's headings (outside fenced blocks), duplicates numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/`/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The relative links of a Markdown text (outside fenced blocks and inline code). */
export function linksOf(file: string, markdown: string): Link[] {
  const links: Link[] = [];
  let fenced = false;
  markdown.split("\n").forEach((line, index) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) return;
    const prose = line.replace(/`[^`]*`/g, (code) => " ".repeat(code.length));
    for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
      links.push({ file, line: index + 1, target });
    }
  });
  return links;
}

/** The text of a file of the repository. */
export function read(root: string, file: string): string {
  return readFileSync(join(root, file), "utf8");
}
