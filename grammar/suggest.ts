// SPDX-License-Identifier: Apache-2.0
// "Did you mean …?": the nearest candidate by edit distance, and the help and quick fix that
// name it. In grammar/ because the parser suggests keywords as the checker suggests names.
import { format } from './diagnostic.js';
import { MESSAGES } from './messages.js';

/**
 * Edit distance counting an insertion, deletion, substitution or swap of two neighbouring
 * characters as 1 (optimal string alignment), compared by UTF-16 unit. Swaps are the commonest
 * slip of the keyboard: `fro` is one edit from `for`, `budgte` one from `budget`.
 */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min(previous[j] + 1, current[j - 1] + 1, substitute);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2] + 1);
      current.push(best);
    }
    before = previous;
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

/**
 * How far a word may be from a candidate and still be a likely slip of the keyboard: one edit
 * for words of up to three letters, two up to six, three beyond (`budjet`, `consolidation`).
 */
export function slipDistance(word: string): number {
  return word.length <= 3 ? 1 : word.length <= 6 ? 2 : 3;
}

/** "did you mean `x`?" and the quick fix `x` for the closest candidate, or undefined when nothing is close. */
export function didYouMean(
  word: string,
  candidates: readonly string[],
  maxDistance = 3,
): { help: string; fix: string } | undefined {
  const best = closest(word, candidates, maxDistance);
  if (best === undefined || best === word) return undefined;
  return { help: format(MESSAGES.didYouMean.text, { suggestion: best }), fix: best };
}
