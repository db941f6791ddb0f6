// SPDX-License-Identifier: Apache-2.0
// One robfig/cron v3 field (`getField`/`getRange`) read into a set of values plus robfig's
// "star bit", with robfig's exact error texts, and the numeric form kpol normalises to.

/** The values a field selects (sorted, unique) and whether robfig would set its star bit. */
export interface CronFieldSet {
  values: number[];
  star: boolean;
}

/** The five fields of a standard schedule, each already range-checked. */
export interface CronFields {
  minute: CronFieldSet;
  hour: CronFieldSet;
  dom: CronFieldSet;
  month: CronFieldSet;
  dow: CronFieldSet;
}

export interface FieldBounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

export const BOUNDS: Record<keyof CronFields, FieldBounds> = {
  minute: { min: 0, max: 59 },
  hour: { min: 0, max: 23 },
  dom: { min: 1, max: 31 },
  month: {
    min: 1,
    max: 12,
    names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
  },
  dow: { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } },
};

export type FieldResult = { ok: true; field: CronFieldSet } | { ok: false; error: string; endAboveMax?: number };

const MAX_INT64 = (1n << 63n) - 1n;

/** Go's `%q` for the ASCII inputs that matter; other characters escaped as Go would print them. */
function goQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    const cp = c.codePointAt(0)!;
    if (c === '"' || c === '\\') out += `\\${c}`;
    else if (cp >= 0x20 && cp < 0x7f) out += c;
    else if (cp === 0x0a) out += '\\n';
    else if (cp === 0x09) out += '\\t';
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else out += c; // Go keeps printable Unicode as is
  }
  return `${out}"`;
}

/** robfig's `mustParseInt`: Go's strconv.Atoi (optional sign, int64 range), then no negatives. */
function mustParseInt(expr: string): { ok: true; value: number } | { ok: false; error: string } {
  const m = /^([+-]?)([0-9]+)$/.exec(expr);
  if (!m) return { ok: false, error: `failed to parse int from ${expr}: strconv.Atoi: parsing ${goQuote(expr)}: invalid syntax` };
  const magnitude = BigInt(m[2]);
  if (magnitude > MAX_INT64 + (m[1] === '-' ? 1n : 0n)) {
    return { ok: false, error: `failed to parse int from ${expr}: strconv.Atoi: parsing ${goQuote(expr)}: value out of range` };
  }
  if (m[1] === '-' && magnitude > 0n) return { ok: false, error: `negative number (-${magnitude}) not allowed: ${expr}` };
  // Anything above 2^53 is far beyond every field's maximum; the range check reports it.
  return { ok: true, value: magnitude > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(magnitude) };
}

function parseIntOrName(expr: string, bounds: FieldBounds): ReturnType<typeof mustParseInt> {
  const named = bounds.names?.[expr.toLowerCase()];
  return named !== undefined ? { ok: true, value: named } : mustParseInt(expr);
}

/** robfig's `getRange` for one comma-separated part: `*`, `?`, `a`, `a-b`, any of them `/step`. */
function getRange(expr: string, bounds: FieldBounds): { ok: true; values: number[]; star: boolean } | (FieldResult & { ok: false }) {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    // robfig ignores anything after `*-`: `*-5` is `*`.
    start = bounds.min;
    end = bounds.max;
    star = true;
  } else {
    const low = parseIntOrName(lowAndHigh[0], bounds);
    if (!low.ok) return low;
    start = low.value;
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) {
      const high = parseIntOrName(lowAndHigh[1], bounds);
      if (!high.ok) return high;
      end = high.value;
    } else return { ok: false, error: `too many hyphens: ${expr}` };
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    const parsed = mustParseInt(rangeAndStep[1]);
    if (!parsed.ok) return parsed;
    step = parsed.value;
    if (singleDigit) end = bounds.max; // `N/step` means `N-max/step`
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) return { ok: false, error: `too many slashes: ${expr}` };
  if (start < bounds.min) return { ok: false, error: `beginning of range (${start}) below minimum (${bounds.min}): ${expr}` };
  if (end > bounds.max) return { ok: false, error: `end of range (${end}) above maximum (${bounds.max}): ${expr}`, endAboveMax: end };
  if (start > end) return { ok: false, error: `beginning of range (${start}) beyond end of range (${end}): ${expr}` };
  if (step === 0) return { ok: false, error: `step of range should be a positive number: ${expr}` };
  const values: number[] = [];
  for (let v = start; v <= end; v += step) values.push(v);
  return { ok: true, values, star };
}

/** robfig's `getField`: comma-separated ranges (empty parts skipped, as Go's FieldsFunc does). */
export function parseField(text: string, bounds: FieldBounds): FieldResult {
  const seen = new Set<number>();
  let star = false;
  for (const part of text.split(',').filter((p) => p !== '')) {
    const range = getRange(part, bounds);
    if (!range.ok) return range;
    for (const v of range.values) seen.add(v);
    star ||= range.star;
  }
  return { ok: true, field: { values: [...seen].sort((a, b) => a - b), star } };
}

/**
 * A field's values written compactly: runs of three or more as `a-b`, the rest listed
 * (`1-5,7`). Given the field's bounds, an arithmetic progression of three or more values with
 * a step n above 1 is written as a starred step (when it starts at the minimum and runs to the
 * end) or `a-b/n`. Every form here means the same to robfig and cron-parser, and none of them
 * sets robfig's star bit.
 */
export function formatValues(values: readonly number[], bounds?: FieldBounds): string {
  const step = bounds && values.length >= 3 ? values[1] - values[0] : 0;
  if (step > 1 && values.every((v, i) => i === 0 || v - values[i - 1] === step)) {
    const last = values[values.length - 1];
    if (bounds && values[0] === bounds.min && last + step > bounds.max) return `*/${step}`;
    return `${values[0]}-${last}/${step}`;
  }
  const parts: string[] = [];
  for (let i = 0; i < values.length; ) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[j] + 1) j++;
    if (j - i >= 2) parts.push(`${values[i]}-${values[j]}`);
    else for (let k = i; k <= j; k++) parts.push(String(values[k]));
    i = j + 1;
  }
  return parts.join(',');
}

/**
 * The numeric form of one field: `*` exactly when robfig's star bit is set, otherwise values
 * (see formatValues). cron-parser treats a field as a wildcard only when it is written `*`/`?`,
 * so this keeps its day-of-month/day-of-week AND/OR choice identical to robfig's.
 */
export function formatField(field: CronFieldSet, bounds: FieldBounds): string {
  return field.star ? '*' : formatValues(field.values, bounds);
}
