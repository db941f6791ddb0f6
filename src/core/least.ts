// SPDX-License-Identifier: Apache-2.0
// The least of many window ends or due instants, without spreading them into Math.min (which
// overflows the stack for the 100k-long lists a cluster can give).

/** The least value of `xs` (Infinity when empty). */
export function least(xs: ArrayLike<number>): number {
  let m = Infinity;
  for (let i = 0; i < xs.length; i++) if (xs[i]! < m) m = xs[i]!;
  return m;
}
