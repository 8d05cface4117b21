/**
 * Literal ids in configuration: an id is the kind's prefix (docs/api.md > Identifier prefixes) followed
 * by letters and digits. Used for the keys of the `edges:` tree and for every field that takes an id
 * (schema annotation `x-tgw.ref`), so a user who pastes an IP policy id where a backend id belongs is
 * told which kind was expected.
 */
import { type KindDescriptor, kindOfId } from "../index.js";
import { listWords, noun, withArticle } from "../words.js";

/** The characters after the prefix. */
export const ID_BODY = "[A-Za-z0-9]+";

/** The regular expression (source) of ids of `kind`, e.g. `^edghts_[A-Za-z0-9]+$`. */
export function idPatternSource(kind: KindDescriptor): string {
  return `^${kind.idPrefix ?? ""}${ID_BODY}$`;
}

/** `an HTTPS edge id (edghts_...)`. */
export function describeId(kind: KindDescriptor): string {
  return `${withArticle(kind.title)} id (${kind.idPrefix}...)`;
}

/** `event destination ids (ed_...)`. */
export function describeIds(kind: KindDescriptor): string {
  return `${noun(kind.title)} ids (${kind.idPrefix}...)`;
}

/**
 * Why `value` is not an id of one of `kinds`, or undefined when it is.
 * The message never repeats the value (it may have come from the environment).
 * @param takes who expects the id, for the message: `this field takes` (default), `each key of edges.tls must be`
 */
export function explainId(
  value: string,
  kinds: readonly KindDescriptor[],
  takes = "this field takes",
): string | undefined {
  const expected = listWords(kinds.map(describeId));
  const own = kinds.find((k) => k.idPrefix && value.startsWith(k.idPrefix));
  if (own) {
    return new RegExp(idPatternSource(own)).test(value)
      ? undefined
      : `is not a valid ${noun(own.title)} id: expected ${own.idPrefix} followed by letters and digits`;
  }
  const other = kindOfId(value);
  if (other) return `is ${describeId(other)}, but ${takes} ${expected}`;
  return `must be ${expected}`;
}
