/** Small helpers that make messages read like sentences: articles, lists, "did you mean". */
import { distance } from "fastest-levenshtein";

/** A kind's title as a noun phrase with its article: `an HTTPS edge route`, `a tunnel group backend`. */
export function withArticle(title: string): string {
  const first = title.split(" ")[0] ?? title;
  const acronym = isAcronym(first);
  const phrase = noun(title);
  // Acronyms are read letter by letter: "an HTTPS", "an SSH", "a TLS".
  // "a user", "a unique", but "an update".
  const vowelSound = acronym ? /^[AEFHILMNORSX]/.test(first) : /^([aeio]|u(?!s|ni))/i.test(first);
  return `${vowelSound ? "an" : "a"} ${phrase}`;
}

/** A kind's title inside a sentence: `tunnel group backend`, `HTTPS edge` (acronyms kept). */
export function noun(title: string): string {
  const first = title.split(" ")[0] ?? title;
  return isAcronym(first) ? title : title.charAt(0).toLowerCase() + title.slice(1);
}

const isAcronym = (word: string) => word.length > 1 && word === word.toUpperCase();

/** `a, b or c` (`and` with `conjunction: "and"`). */
export function listWords(items: readonly string[], conjunction = "or"): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} ${conjunction} ${items[items.length - 1]}`;
}

/**
 * The candidate closest to `word` when it is close enough to be a typo, else undefined. Close
 * enough: an edit distance of at most `maxDistance` (default: a third of the word, at least 1).
 */
export function closest(
  word: string,
  candidates: Iterable<string>,
  maxDistance?: number,
): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const d = distance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= (maxDistance ?? Math.max(1, Math.floor(word.length / 3)))
    ? best
    : undefined;
}

/** ` (did you mean x?)` or "". */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const c = closest(word, candidates);
  return c === undefined ? "" : ` (did you mean ${c}?)`;
}
