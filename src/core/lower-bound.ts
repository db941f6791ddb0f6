// SPDX-License-Identifier: Apache-2.0
// The one binary search the followed lists share (candidates.ts, verdict-record.ts).

/** The first place in [0, n) where `before` is false; `before` holds for a prefix of the places. */
export function lowerBound(n: number, before: (k: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
