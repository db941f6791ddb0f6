// One walk over two lists kept in the same order, for the scans that carry what they derived per
// object from one cluster index to the next (expiration due instants, the taint scan, the
// evaluator's machine places). The live index (live-index.ts) gives an unchanged object the same
// identity in the next index, so a place holding the same object on both sides is passed over
// with no comparison, and only the places that differ cost a compare.

/**
 * Calls `visit(i, j)` for each place of the walk: `i` in `prev` and `j` in `next` for an object on
 * both sides (the same object, or another with an equal key: changed), `i` and -1 for one that
 * went, -1 and `j` for one that came. Returns false, stopping early, once more than `limit` places
 * differ, or when `next` is out of order where it differs (places holding the same object are
 * trusted: they were in order in `prev`); the caller then derives everything again.
 */
export function walkOrdered<T>(
  prev: readonly T[],
  next: readonly T[],
  order: (a: T, b: T) => number,
  limit: number,
  visit: (i: number, j: number) => void,
): boolean {
  let differ = 0;
  let i = 0;
  let j = 0;
  while (i < prev.length || j < next.length) {
    if (i < prev.length && j < next.length && prev[i] === next[j]) {
      visit(i++, j++);
      continue;
    }
    const c = i === prev.length ? 1 : j === next.length ? -1 : order(prev[i], next[j]);
    if (c >= 0 && !inPlace(next, j, order)) return false;
    if (++differ > limit) return false;
    if (c < 0) visit(i++, -1);
    else if (c > 0) visit(-1, j++);
    else visit(i++, j++);
  }
  return true;
}

/** Whether xs[j] is strictly after its left neighbour and before its right one. */
function inPlace<T>(xs: readonly T[], j: number, order: (a: T, b: T) => number): boolean {
  return (j === 0 || order(xs[j - 1], xs[j]) < 0) && (j + 1 === xs.length || order(xs[j], xs[j + 1]) < 0);
}
