/** "Did you mean ...?": what the errors say about a name that does not exist, a variable or a tool. */

import { run } from "./current-run.js";
import {
  apply,
  getOwnPropertyNames,
  Int32ArrayCtor,
  isArray,
  keys,
  mathMin,
  SetCtor,
  setAdd,
  setHas,
  stringToLowerCase,
} from "./intrinsics.js";
import { charAt, resolveName } from "./names.js";
import { dataOf, join, push } from "./objects.js";

/** Candidates longer than this are not compared (the table below grows with the square). */
const MAX_SUGGESTED_NAME = 64;
/** At most this many names are suggested. */
const MAX_SUGGESTIONS = 3;

/**
 * Edits between two names, case ignored, a swap of neighbours counting as one (`frist` is one edit
 * from `first`); `limit + 1` as soon as it is clearly more than `limit`.
 */
const editDistance = (a: string, b: string, limit: number): number => {
  const n = a.length;
  const m = b.length;
  if (n - m > limit || m - n > limit) return limit + 1;
  const x = apply(stringToLowerCase, a, []) as string;
  const y = apply(stringToLowerCase, b, []) as string;
  const width = m + 1;
  const table = new Int32ArrayCtor((n + 1) * width);
  for (let i = 0; i <= n; i++) table[i * width] = i;
  for (let j = 0; j <= m; j++) table[j] = j;
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const same = charAt(x, i - 1) === charAt(y, j - 1);
      let best = mathMin(
        table[(i - 1) * width + j]! + 1,
        table[i * width + j - 1]! + 1,
        table[(i - 1) * width + j - 1]! + (same ? 0 : 1),
      );
      if (i > 1 && j > 1 && charAt(x, i - 1) === charAt(y, j - 2) && charAt(x, i - 2) === charAt(y, j - 1)) {
        best = mathMin(best, table[(i - 2) * width + j - 2]! + 1);
      }
      table[i * width + j] = best;
    }
  }
  return table[n * width + m]!;
};

/**
 * The names closest to `wanted` among `groups` (earlier groups win ties), at most a third of its
 * length in edits away, formatted with `prefix`: `\`first\``, or `\`first\` or \`fist\``.
 */
const suggest = (wanted: string, groups: { names: string[]; prefix: string }[]): string => {
  if (wanted.length > MAX_SUGGESTED_NAME) return "";
  const limit = mathMin(3, wanted.length < 3 ? 1 : (wanted.length - (wanted.length % 3)) / 3);
  const picked: string[] = [];
  const scores: number[] = [];
  const seen = new SetCtor<string>();
  for (let g = 0; g < groups.length; g++) {
    const { names, prefix } = groups[g];
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      if (typeof name !== "string" || name === wanted || name.length > MAX_SUGGESTED_NAME) continue;
      const label = `${prefix}${name}`;
      if (apply(setHas, seen, [label])) continue;
      const score = editDistance(wanted, name, limit);
      if (score > limit) continue;
      apply(setAdd, seen, [label]);
      // Insertion into the short sorted list: closer first, then the earlier group.
      let at = picked.length;
      while (at > 0 && scores[at - 1]! > score) at--;
      if (at >= MAX_SUGGESTIONS) continue;
      push(picked, "");
      push(scores, 0);
      for (let k = picked.length - 1; k > at; k--) {
        picked[k] = picked[k - 1]!;
        scores[k] = scores[k - 1]!;
      }
      picked[at] = label;
      scores[at] = score;
      if (picked.length > MAX_SUGGESTIONS) {
        picked.length = MAX_SUGGESTIONS;
        scores.length = MAX_SUGGESTIONS;
      }
    }
  }
  if (picked.length === 0) return "";
  let text = `\`${picked[0]}\``;
  for (let i = 1; i < picked.length; i++) {
    text += `${i === picked.length - 1 ? " or " : ", "}\`${picked[i]}\``;
  }
  return text;
};

/** What to say about a name the code used that does not exist. */
export const explainMissingName = (name: string): string => {
  const current = run;
  const toolNames = current === undefined ? {} : current.config.toolNames;
  const codeNames = keys(toolNames);
  const tool = current === undefined ? undefined : resolveName(current, name);
  if (tool !== undefined) {
    let codeName = name;
    for (let i = 0; i < codeNames.length; i++) if (toolNames[codeNames[i]] === tool) codeName = codeNames[i];
    return `${name} is not defined: it is a tool, and tools are called on the tools object: tools.${codeName}(args).`;
  }
  const declared = current === undefined ? undefined : dataOf(current.config, "names");
  const own: string[] = isArray(declared) ? (declared as string[]) : [];
  const globals = getOwnPropertyNames(globalThis);
  const close = suggest(name, [
    { names: own, prefix: "" },
    { names: codeNames, prefix: "tools." },
    { names: globals, prefix: "" },
  ]);
  if (close !== "") return `${name} is not defined. Did you mean ${close}?`;
  return `${name} is not defined: the code does not declare it, and no global or tool has that name. Declare it (const, let, function) before using it; tools are called as tools.<name>(args).`;
};

/** What to say about `tools.<name>` when no tool has that name. */
export const explainMissingTool = (name: string): string => {
  const codeNames = run === undefined ? [] : keys(run.config.toolNames);
  const close = suggest(name, [{ names: codeNames, prefix: "tools." }]);
  return close !== ""
    ? `tools.${name} is not a function: there is no tool named ${name}. Did you mean ${close}?`
    : `tools.${name} is not a function: there is no tool named ${name}.${toolList()}`;
};

/** At most this many tools are listed in an error; the rest are counted. */
const MAX_LISTED_TOOLS = 20;
/** ` The tools are: tools.a, tools.b.`, for an error that should say which tools exist. */
export const toolList = (): string => {
  const names = run === undefined ? [] : keys(run.config.toolNames);
  if (names.length === 0) return " No tools are available in this run.";
  const shown: string[] = [];
  for (let i = 0; i < names.length && i < MAX_LISTED_TOOLS; i++) push(shown, `tools.${names[i]}`);
  const more = names.length > MAX_LISTED_TOOLS ? ` and ${names.length - MAX_LISTED_TOOLS} more` : "";
  return ` The tools are: ${join(shown, ", ")}${more}.`;
};
