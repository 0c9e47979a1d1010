/**
 * The few equivalences plain word matching misses in the words models use for tools. Two kinds:
 * - spellings of one thing ("pull request" and "PR", "on call" and "oncall", "repository" and "repo"),
 *   folded to one term in tool texts and queries alike;
 * - related words ("meetings" for events, "remove" for delete, "find" for search), added to a query at
 *   a lower weight, so that a tool using the query's own word still ranks first.
 * Kept small and general: each entry is a habit of speech, not a fix for one query.
 */

import { stem } from "./stem.js";

/** Several words that mean one term, in any text. */
const PHRASES: readonly [words: string, term: string][] = [
  ["on call", "oncall"],
  ["on duty", "oncall"],
  ["pull request", "pr"],
  ["merge request", "pr"],
  ["look up", "lookup"],
  ["e mail", "email"],
  ["log in", "login"],
  ["sign in", "login"],
  ["to do", "todo"],
  ["direct message", "dm"],
  ["time off", "timeoff"],
];

/** One word that is another's spelling. */
const SPELLINGS: Record<string, string> = {
  repository: "repo",
  msg: "message",
  org: "organization",
  organisation: "organization",
  cancelled: "cancel",
  cancelling: "cancel",
  labelled: "label",
  labelling: "label",
  identifier: "id",
  appt: "appointment",
};

/** Groups of words that stand in for each other in a query. */
const RELATED_GROUPS: readonly string[] = [
  "event meeting appointment",
  "delete remove erase destroy",
  "search find lookup locate",
  "message post send",
  "create add new",
  "update edit modify change",
  "user member person people employee",
  "customer client",
  "issue ticket bug",
  "email mail",
  "payment charge",
  "invoice bill",
  "doc document",
  "folder directory",
  "comment reply",
  "incident outage",
  "channel room",
  "close resolve",
  "assign assignee owner",
  "deal opportunity",
  "company organization",
  "price cost",
  "task todo",
  "status state",
  "shipment package parcel delivery",
  "vacation timeoff pto holiday",
];

/** Words that call for others, but not the other way round ("show" asks to get; "get" is no "show"). */
const RELATED_ONE_WAY: Record<string, string> = {
  find: "get list",
  lookup: "get",
  show: "get list",
  view: "get",
  fetch: "get",
  read: "get",
  display: "get",
  cancel: "delete decline",
  schedule: "create",
  book: "create",
  reschedule: "update move",
  doc: "file",
  document: "file",
  hour: "time duration",
  minute: "time duration",
  upload: "create file",
  download: "get content export",
  page: "incident trigger",
  today: "date time",
  tomorrow: "date time",
  yesterday: "date time",
  week: "date time",
  month: "date time",
  recent: "date time",
  latest: "date time",
};

/** The weight of a related word relative to the query's own word. */
export const RELATED_WEIGHT = 0.5;

const phraseTable = new Map<string, { rest: string[]; term: string }[]>();
for (const [words, term] of PHRASES) {
  const [first, ...rest] = words.split(" ").map(stem);
  const entries = phraseTable.get(first!) ?? [];
  entries.push({ rest, term: stem(term) });
  phraseTable.set(first!, entries);
}

const spellingTable = new Map<string, string>(
  Object.entries(SPELLINGS).flatMap(([word, term]) => [
    [word, stem(term)],
    [stem(word), stem(term)],
  ]),
);

const relatedTable = new Map<string, Set<string>>();
function relate(from: string, to: string): void {
  const [a, b] = [canonicalWord(stem(from)), canonicalWord(stem(to))];
  if (a === b) return;
  const set = relatedTable.get(a) ?? new Set<string>();
  set.add(b);
  relatedTable.set(a, set);
}
for (const group of RELATED_GROUPS) {
  const words = group.split(" ");
  for (const a of words) for (const b of words) relate(a, b);
}
for (const [from, to] of Object.entries(RELATED_ONE_WAY)) {
  for (const word of to.split(" ")) relate(from, word);
}

/** A stem's canonical spelling ("repositori" → "repo"), or the stem itself. */
export function canonicalWord(stemmed: string): string {
  return spellingTable.get(stemmed) ?? stemmed;
}

/**
 * The phrase of {@link PHRASES} that starts at `stems[at]`, as its one term and how many words it spans;
 * undefined when none does.
 */
export function phraseAt(stems: readonly string[], at: number): { term: string; length: number } | undefined {
  const match = phraseTable
    .get(stems[at]!)
    ?.find(({ rest }) => rest.every((word, j) => stems[at + 1 + j] === word));
  return match ? { term: match.term, length: match.rest.length + 1 } : undefined;
}

/** The terms related to a (stemmed, canonical) term, to add to a query at {@link RELATED_WEIGHT}. */
export function relatedTerms(term: string): readonly string[] {
  const related = relatedTable.get(term);
  return related ? [...related] : [];
}
