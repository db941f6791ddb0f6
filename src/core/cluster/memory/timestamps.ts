// SPDX-License-Identifier: Apache-2.0
// metav1.Time as the API serialises it: RFC 3339 in UTC with whole seconds.

let lastSecond = NaN;
let lastText = '';

/**
 * `ms` as the API prints it. The last answer is kept: a tick writes hundreds of objects with
 * its one instant (formatting was 2% of a busy simulated hour).
 */
export function rfc3339(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastText = new Date(second * 1000).toISOString().replace('.000Z', 'Z');
    lastSecond = second;
  }
  return lastText;
}

/** Epoch ms of a timestamp, or undefined when absent or unparsable. */
export function parseTime(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
