// SPDX-License-Identifier: Apache-2.0
// metav1.Time as the API serialises it: RFC 3339 in UTC with whole seconds.

export const rfc3339 = (ms: number): string =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Epoch ms of a timestamp, or undefined when absent or unparsable. */
export function parseTime(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
