// SPDX-License-Identifier: Apache-2.0
// A small deterministic generator (mulberry32): the same seed gives the same sequence, so a test
// that generates its cases from a seed names a reproducible case when it fails.
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
