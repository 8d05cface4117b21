/**
 * Parse results kept by input text for the life of the process. One configuration value is parsed by
 * the schema's format check, by the rules (a key matching its certificate) and again when an error is
 * explained; and configurations repeat the same PEM or SSH key (a wildcard certificate on many
 * objects, one deploy key signed for many hosts). Only successes are kept: a failure is rare and its
 * message names the field.
 */
const LIMIT = 4096;

/**
 * Wraps `parse(text, what)` so that a text parsed successfully once is not parsed again.
 * @param parse a pure function of `text`; `what` only names the input in its error messages
 * @returns the same result object for the same text (callers must not mutate it)
 */
export function memoByText<T>(parse: (text: string, what: string) => T): (text: string, what: string) => T {
  const results = new Map<string, T>();
  return (text, what) => {
    const hit = results.get(text);
    if (hit !== undefined) return hit;
    const result = parse(text, what);
    // Bounded without bookkeeping: a process that parses more distinct texts starts over.
    if (results.size >= LIMIT) results.clear();
    if (typeof text === "string") results.set(text, result);
    return result;
  };
}
