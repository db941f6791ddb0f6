// SPDX-License-Identifier: Apache-2.0
// Text helpers shared by the report and the status page: escaping and the few number, time
// and duration formats they print. Times are printed in UTC unless a zone is named.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and quoted attribute values alike. */
export function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

const money = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});
const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export const formatMoney = (usd: number): string => money.format(usd);
export const formatCount = (n: number): string => integer.format(n);

/** `2026-01-05 09:00 UTC`; seconds only when not zero. */
export function formatUtc(ms: number): string {
  const iso = new Date(ms).toISOString();
  const secs = iso.slice(17, 19) === '00' ? '' : iso.slice(16, 19);
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}${secs} UTC`;
}

/** `250ms`, `45s`, `5m`, `1h 30m`, `2d 4h`: the two largest non-zero units. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  const parts: string[] = [];
  let rest = Math.round(ms / 1000) * 1000;
  for (const [u, size] of units) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 || parts.length > 0) parts.push(`${n}${u}`);
    if (parts.length === 2) break;
  }
  return parts.filter((p) => !/^0/.test(p)).join(' ');
}

/** A number with at most `digits` decimals and no trailing zeros (axis labels). */
export function formatTick(v: number, digits = 2): string {
  return String(Number(v.toFixed(digits)));
}
