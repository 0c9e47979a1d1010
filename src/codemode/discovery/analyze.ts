/**
 * Text → search terms, the same way for tool texts and queries: words, stems, phrases joined ("on call"
 * → oncall), spellings folded ("repository" → repo), stop words dropped.
 */

import { stem } from "./stem.js";
import { canonicalWord, phraseAt } from "./synonyms.js";
import { identifierWords, STOP_WORDS, textWords } from "./words.js";

/** A search term, and whether the word it came from was a plural ("invoices"). */
export interface AnalyzedTerm {
  term: string;
  plural: boolean;
}

/** The search terms of a sentence (a description, a query). */
export function textTerms(text: string): string[] {
  return analyze(textWords(text)).map(({ term }) => term);
}

/** The search terms of a sentence, each saying whether its word was a plural. */
export function analyzedTextTerms(text: string): AnalyzedTerm[] {
  return analyze(textWords(text));
}

/** The search terms of a code identifier (a tool or parameter name). */
export function identifierTerms(identifier: string): string[] {
  return analyze(identifierWords(identifier)).map(({ term }) => term);
}

function analyze(words: readonly string[]): AnalyzedTerm[] {
  const stems = words.map(stem);
  const out: AnalyzedTerm[] = [];
  for (let i = 0; i < words.length; i++) {
    const phrase = phraseAt(stems, i);
    if (phrase) {
      i += phrase.length - 1;
      out.push({ term: phrase.term, plural: isPlural(words[i]!) });
    } else if (!STOP_WORDS.has(words[i]!) && words[i]!.length > 1) {
      out.push({ term: canonicalWord(stems[i]!), plural: isPlural(words[i]!) });
    }
  }
  return out;
}

/** Whether a word is the plural of another: "invoices", "meetings" (not "status", "address"). */
function isPlural(word: string): boolean {
  return word.endsWith("s") && stem(word) !== word && stem(word.slice(0, -1)) === stem(word);
}
