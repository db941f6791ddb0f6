// SPDX-License-Identifier: Apache-2.0
// Whether two lists hold the same objects in the same order: how the caches of scheduling
// state tell that a new index lists what an earlier one did (listed objects are replaced on
// change, never changed in place), reading the lists but none of the objects.
export function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
