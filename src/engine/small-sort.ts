/**
 * Sorting of the short lists built for every change of a plan (its field names, the rows of its
 * rendering). `Array.prototype.sort` allocates a work array on every call: about 0.9 KB for a list of
 * four, so 9 MB per call site at 10,000 changes, all of it for the garbage collector. An insertion
 * sort in place allocates nothing and, on a few items, compares about as often.
 */

/** Lists longer than this go to `Array.prototype.sort` (insertion sort is quadratic). */
const SHORT = 16;

/**
 * Sorts `list` in place by `before` (true when `a` must come before `b`), keeping the order of items
 * neither comes before; returns `list`.
 */
export function sortShort<T>(list: T[], before: (a: T, b: T) => boolean): T[] {
  if (list.length > SHORT) return list.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  for (let i = 1; i < list.length; i++) {
    const item = list[i] as T;
    let j = i - 1;
    while (j >= 0 && before(item, list[j] as T)) {
      list[j + 1] = list[j] as T;
      j--;
    }
    list[j + 1] = item;
  }
  return list;
}

/** Sorts strings in place in the order of `Array.prototype.sort()` (UTF-16 code units); returns `list`. */
export function sortStrings(list: string[]): string[] {
  return sortShort(list, lessThan);
}

const lessThan = (a: string, b: string): boolean => a < b;
