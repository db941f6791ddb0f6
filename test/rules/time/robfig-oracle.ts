// SPDX-License-Identifier: Apache-2.0
// An independent, deliberately naive reading of robfig/cron v3's standard schedules for tests:
// parse each field to a value set plus the star flag, then test dates one by one.

const NAMES: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
  sun: 0,
  mon: 1,
  tue: 2,
  wed: 3,
  thu: 4,
  fri: 5,
  sat: 6,
};
const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

interface Field {
  values: Set<number>;
  star: boolean;
}

function field(text: string, min: number, max: number): Field {
  const values = new Set<number>();
  let star = false;
  for (const part of text.split(',')) {
    if (part === '') continue;
    const [rangeText, stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    let lo: number;
    let hi: number;
    if (rangeText.startsWith('*') || rangeText === '?') {
      [lo, hi] = [min, max];
      if (step <= 1) star = true;
    } else {
      const [a, b] = rangeText.split('-').map((x) => NAMES[x.toLowerCase()] ?? Number(x));
      lo = a;
      hi = b ?? (stepText === undefined ? a : max);
    }
    for (let v = lo; v <= hi; v += step) values.add(v);
  }
  return { values, star };
}

function parse(schedule: string) {
  const [mi, h, dom, mo, dow] = (MACROS[schedule] ?? schedule).split(/\s+/);
  const f = {
    mi: field(mi, 0, 59),
    h: field(h, 0, 23),
    dom: field(dom, 1, 31),
    mo: field(mo, 1, 12),
    dow: field(dow, 0, 6),
  };
  const dayOk = (d: Date): boolean => {
    if (!f.mo.values.has(d.getUTCMonth() + 1)) return false;
    const domOk = f.dom.values.has(d.getUTCDate());
    const dowOk = f.dow.values.has(d.getUTCDay());
    return f.dom.star || f.dow.star ? domOk && dowOk : domOk || dowOk;
  };
  return { f, dayOk };
}

/** A predicate over UTC wall-clock minutes for a valid robfig schedule. */
export function robfigMatcher(schedule: string): (d: Date) => boolean {
  const { f, dayOk } = parse(schedule);
  return (d) => f.mi.values.has(d.getUTCMinutes()) && f.h.values.has(d.getUTCHours()) && dayOk(d);
}

/** True when some date from 2024 through 2031 matches and the time fields select something. */
export function everFires(schedule: string): boolean {
  const { f, dayOk } = parse(schedule);
  if (f.mi.values.size === 0 || f.h.values.size === 0) return false;
  for (let day = Date.UTC(2024, 0, 1); day < Date.UTC(2032, 0, 1); day += 86_400_000) {
    if (dayOk(new Date(day))) return true;
  }
  return false;
}

/** Every matching minute in [fromMs, toMs), as epoch ms, shifting wall clock by a fixed offset. */
export function bruteForceHits(schedule: string, fromMs: number, toMs: number, offsetMs = 0): number[] {
  const match = robfigMatcher(schedule);
  const out: number[] = [];
  for (let t = Math.ceil(fromMs / 60_000) * 60_000; t < toMs; t += 60_000) {
    if (match(new Date(t + offsetMs))) out.push(t);
  }
  return out;
}
