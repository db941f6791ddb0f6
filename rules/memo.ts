// SPDX-License-Identifier: Apache-2.0
// Policies repeat the same few schedules and durations, so the checker works each distinct
// text out once. The caches are bounded: past `max` entries they start again from empty.

/** `compute`, remembered per distinct string argument. `compute` must be pure. */
export function memoByText<T>(compute: (text: string) => T, max = 5000): (text: string) => T {
  const known = new Map<string, T>();
  return (text) => {
    if (known.has(text)) return known.get(text)!;
    const value = compute(text);
    if (known.size >= max) known.clear();
    known.set(text, value);
    return value;
  };
}
