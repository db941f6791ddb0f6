// SPDX-License-Identifier: Apache-2.0
// "Did you mean …?": the nearest candidate by edit distance.

/** Levenshtein distance (insert, delete, substitute; each costs 1), compared by UTF-16 unit. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitute));
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * The candidate nearest to `word` within `maxDistance` edits, or undefined. A candidate that
 * differs only in letter case wins outright (`drifted` → `Drifted`); ties keep the earlier
 * candidate, so callers list the likelier ones first.
 */
export function closest(word: string, candidates: readonly string[], maxDistance = 3): string | undefined {
  const lower = word.toLowerCase();
  const sameButCase = candidates.find((c) => c.toLowerCase() === lower);
  if (sameButCase !== undefined) return sameButCase;
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const candidate of candidates) {
    // Cheap lower bound: the length difference.
    if (Math.abs(candidate.length - word.length) >= bestDistance) continue;
    const d = editDistance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
