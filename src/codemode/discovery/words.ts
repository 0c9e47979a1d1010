/**
 * Splitting tool names and text into lower-case words, before stemming: `github__listPullRequests` and
 * "List pull requests" give the same words.
 */

/** Words that carry no meaning in a search ("the", "who", "is", "for", ...). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an the and or nor of for to in on at by with from into onto about as is are was were be been being " +
    "it its this that these those which who whom whose what when where how why i me my mine we our us you " +
    "your he she his her they them their do does did can could should would will shall may might must " +
    "please some any all every each there here than then so if just also only via per eg e g ie etc has " +
    "have had want need tell let"
  ).split(" "),
);

/**
 * The words of a code identifier: split at `_`, `-`, `.`, `$` and camelCase or acronym boundaries
 * (`getHTTPStatus` → get, http, status), lower-cased. Digits stay with their letters (`oauth2`).
 */
export function identifierWords(identifier: string): string[] {
  return identifier
    .split(/[^A-Za-z0-9]+/)
    .flatMap(splitCamelCase)
    .map((word) => word.toLowerCase())
    .filter((word) => word !== "");
}

/**
 * The words of a sentence, lower-cased. A word written like code (`listEvents`, `order_id`) is split as an
 * identifier; a capitalised brand name (`GitHub`, `PagerDuty`) stays one word, as users write it.
 */
export function textWords(text: string): string[] {
  const words: string[] = [];
  for (const token of text.split(/[^A-Za-z0-9_]+/)) {
    if (token === "") continue;
    const looksLikeCode = token.includes("_") || /^[a-z]+[A-Z]/.test(token);
    if (looksLikeCode) words.push(...identifierWords(token));
    else words.push(token.toLowerCase());
  }
  return words;
}

function splitCamelCase(part: string): string[] {
  return part
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(" ");
}
