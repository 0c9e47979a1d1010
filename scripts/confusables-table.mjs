// Prints the table of src/builtins/confusables.ts from Unicode's confusables.txt (UTS #39), which this
// machine cannot download: give the path of a copy. Run: node scripts/confusables-table.mjs confusables.txt
//
// Kept: every code point that is not ASCII, not a mark or an invisible character (the fence removes those),
// and stable under NFKD (the fence decomposes first), whose prototype, decomposed and with its marks
// removed, is made of ASCII letters, digits and the punctuation the fence's patterns look for.
import { readFileSync } from "node:fs";

const path = process.argv[2];
if (!path) {
  console.error("usage: node scripts/confusables-table.mjs <confusables.txt>");
  process.exit(2);
}
const text = readFileSync(path, "utf8");
const version = /^# Version: (\S+)/m.exec(text)?.[1] ?? "unknown";
const ZERO_WIDTH = /[\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const ZERO_WIDTHS = new RegExp(ZERO_WIDTH.source, "gu");
// Letters, digits, and the punctuation of markers (separators, decoration), tags and chat tokens.
const WANTED = /^(?=.*[A-Za-z0-9 \-_=*#~()<>[\]/|:])[A-Za-z0-9 \-_=*#~()<>[\]/|:']+$/;
const of = (hex) => String.fromCodePoint(Number.parseInt(hex, 16));
const groups = new Map();
for (const line of text.split("\n")) {
  const match = /^([0-9A-F]+) ;\t([0-9A-F ]+) ;/.exec(line);
  if (!match) continue;
  const source = of(match[1]);
  if (source.codePointAt(0) < 0x80 || ZERO_WIDTH.test(source) || source.normalize("NFKD") !== source)
    continue;
  const target = match[2].trim().split(" ").map(of).join("").normalize("NFKD").replace(ZERO_WIDTHS, "");
  if (!WANTED.test(target)) continue;
  if (!groups.has(target)) groups.set(target, []);
  groups.get(target).push(source);
}
const escaped = (char) => `\\u{${char.codePointAt(0).toString(16).toUpperCase()}}`;
const targets = [...groups.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
console.log(`// confusables.txt ${version}: ${[...groups.values()].flat().length} code points.`);
for (const target of targets) {
  console.log(`  [${JSON.stringify(target)}, "${groups.get(target).map(escaped).join("")}"],`);
}
