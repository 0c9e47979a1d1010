/**
 * A light English stemmer for tool search: it folds plurals and verb endings so that "meetings" finds
 * "meeting", "refunding" finds "refund" and "created" finds "create". Deliberately small (no Porter
 * suffix tables): tool names and descriptions are short, and an over-eager stemmer merges words that
 * mean different things ("organization"/"organ").
 */

/** Words ending in -ing that are nouns in tool catalogs: their ending is part of the word. */
const ING_NOUNS = new Set(
  (
    "meeting setting billing pricing string thing morning evening building booking ping ring during " +
    "nothing something anything everything warning heading mapping listing routing " +
    "spring king wing sibling ceiling"
  ).split(" "),
);

/** Words ending in -s that are not plurals. */
const NOT_PLURAL = /(ss|us|is|ys|os)$/;

const VOWEL = /[aeiouy]/;

/**
 * The stem of one lower-case word: plural endings (-ies, -es after a sibilant, -s) and verb endings (-ing,
 * -ed, -ied) are removed, a consonant doubled before them is undoubled ("shipping" → "ship", but not "l",
 * "s" or "z": "calling" → "call"), and a final silent "e" is dropped so that "create", "creates",
 * "created" and "creating" share the stem "creat". Words of three letters or fewer are left alone.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let base = word;
  let verbEnding = false;
  if (base.endsWith("ies") && base.length > 4) base = `${base.slice(0, -3)}y`;
  else if (base.endsWith("ied") && base.length > 4) base = `${base.slice(0, -3)}y`;
  else if (/(sh|ch|x|z|ss)es$/.test(base)) base = base.slice(0, -2);
  else if (base.endsWith("s") && !NOT_PLURAL.test(base)) base = base.slice(0, -1);
  if (base.endsWith("ing") && !ING_NOUNS.has(base) && stemmable(base.slice(0, -3))) {
    base = base.slice(0, -3);
    verbEnding = true;
  } else if (base.endsWith("ed") && !base.endsWith("eed") && stemmable(base.slice(0, -2))) {
    base = base.slice(0, -2);
    verbEnding = true;
  }
  if (verbEnding && base.length >= 4 && /([b-df-hj-kmnp-rtv-y])\1$/.test(base)) base = base.slice(0, -1);
  if (base.length >= 4 && base.endsWith("e") && !base.endsWith("ee")) base = base.slice(0, -1);
  return base;
}

/** Whether what is left after removing an ending is still a word: three letters or more, with a vowel. */
function stemmable(rest: string): boolean {
  return rest.length >= 3 && VOWEL.test(rest);
}
