// SPDX-License-Identifier: Apache-2.0
// Axis scales and tick positions for the report's charts.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// The Unix epoch was a Thursday; weekly ticks start on Mondays.
const MONDAY_OFFSET = 4 * DAY;

/** Ticks at 1, 2 or 5 × 10ⁿ covering [min, max] with about `count` intervals. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  if (max <= min) max = min + 1;
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const lo = Math.floor(min / step + 1e-9) * step;
  const hi = Math.ceil(max / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let v = lo; v <= hi + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

const STEPS = [HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY, 28 * DAY];

export interface TimeTicks {
  step: number;
  ticks: number[];
}

/** UTC-aligned time ticks in [from, to], at most about `max` of them. */
export function timeTicks(from: number, to: number, max = 8): TimeTicks {
  const span = Math.max(1, to - from);
  const step = STEPS.find((s) => span / s <= max) ?? Math.ceil(span / max / (28 * DAY)) * 28 * DAY;
  const offset = step >= 7 * DAY ? MONDAY_OFFSET : 0;
  const first = Math.ceil((from - offset) / step) * step + offset;
  const ticks: number[] = [];
  for (let t = first; t <= to; t += step) ticks.push(t);
  return { step, ticks };
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** `Mon 01-05` for day ticks, `01-05 09:00` for hour ticks (UTC). */
export function timeTickLabel(t: number, step: number): string {
  const d = new Date(t);
  const md = d.toISOString().slice(5, 10);
  return step >= DAY ? `${WEEKDAYS[d.getUTCDay()]} ${md}` : `${md} ${d.toISOString().slice(11, 16)}`;
}

/** A linear map from [d0, d1] to [r0, r1]. */
export function linear(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const k = d1 === d0 ? 0 : (r1 - r0) / (d1 - d0);
  return (v) => r0 + (v - d0) * k;
}

export const round1 = (v: number): number => Math.round(v * 10) / 10;
