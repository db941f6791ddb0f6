// SPDX-License-Identifier: Apache-2.0
// Durations as people write them elsewhere (`5min`, `2 hours`, `1.5h`, `2w`, `500ms`) and the
// kpol duration they mean. kpol's units are `s`, `m`, `h` and `d` (`d` = 24h), whole numbers
// only; rules/duration.ts reads them from here.

/** Seconds per kpol duration unit. */
export const KPOL_DURATION_UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 };

const WEEK = 7 * 86400;

/** Unit words and what they stand for, in seconds. `M` is left out: months or minutes? */
const UNIT_WORDS: Readonly<Record<string, number>> = {
  ms: 0.001,
  msec: 0.001,
  millisecond: 0.001,
  milliseconds: 0.001,
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  d: 86400,
  day: 86400,
  days: 86400,
  w: WEEK,
  wk: WEEK,
  wks: WEEK,
  week: WEEK,
  weeks: WEEK,
};

/** Seconds per `word` as a unit, in any letter case but `M`; undefined when it is none. */
function unitSeconds(word: string): number | undefined {
  if (word === 'M') return undefined;
  const lower = word.toLowerCase();
  return Object.prototype.hasOwnProperty.call(UNIT_WORDS, lower) ? UNIT_WORDS[lower] : undefined;
}

const GROUP = /(\d+(?:\.\d+)?)[ \t]*([A-Za-z]+)/y;

/** Whether `word` (after a number) is a unit, as in `5 min` or `2 hours`. */
export function isUnitWord(word: string): boolean {
  return unitSeconds(word) !== undefined;
}

/**
 * The kpol duration `text` most likely means, or undefined when it is no duration in another
 * notation or is one already. Whole amounts keep their unit (`5min` → `5m`, `2w` → `14d`,
 * `1h30min` → `1h30m`); fractions and milliseconds become whole hours, minutes and seconds
 * (`1.5h` → `1h30m`, `2000ms` → `2s`); what is no whole number of seconds has no kpol form.
 */
export function kpolDurationFor(text: string): string | undefined {
  const groups: Array<{ amount: string; seconds: number }> = [];
  GROUP.lastIndex = 0;
  while (GROUP.lastIndex < text.length) {
    const start = GROUP.lastIndex;
    const m = GROUP.exec(text);
    if (!m || m.index !== start) return undefined;
    const unit = unitSeconds(m[2]!);
    if (unit === undefined) return undefined;
    groups.push({ amount: m[1]!, seconds: unit });
  }
  if (groups.length === 0) return undefined;
  const whole = groups.every((g) => /^\d+$/.test(g.amount) && g.seconds >= 1);
  const out = whole
    ? groups.map((g) => (g.seconds === WEEK ? `${Number(g.amount) * 7}d` : `${g.amount}${unitOf(g.seconds)}`)).join('')
    : fromSeconds(groups.reduce((sum, g) => sum + Number(g.amount) * g.seconds, 0));
  return out === undefined || out === text ? undefined : out;
}

function unitOf(seconds: number): string {
  return Object.keys(KPOL_DURATION_UNITS).find((u) => KPOL_DURATION_UNITS[u] === seconds)!;
}

/** Whole seconds as hours, minutes and seconds (`5400` → `1h30m`); undefined for a fraction or zero. */
function fromSeconds(total: number): string | undefined {
  const seconds = Math.round(total);
  // Allow for binary fractions (`1.1h`), not for a real fraction of a second.
  if (Math.abs(total - seconds) > 1e-9 * Math.max(1, total) || !Number.isSafeInteger(seconds) || seconds <= 0)
    return undefined;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
}
