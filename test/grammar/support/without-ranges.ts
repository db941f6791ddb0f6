// SPDX-License-Identifier: Apache-2.0
// Compares ASTs modulo layout: drops ranges and comments (the formatter moves comments).
export function withoutRanges(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutRanges);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => k !== 'range' && k !== 'comments')
      .map(([k, x]) => [k, withoutRanges(x)]),
  );
}
