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

/**
 * What is wrong with a field, for kpol's own diagnostics (robfig's text stays in `error`, for
 * Karpenter-format import): which value, at offsets `[start, end)` in the field's text, inside
 * the comma-separated part `[partStart, partEnd)`.
 */
export interface FieldProblem {
  kind: 'notAValue' | 'belowMinimum' | 'aboveMaximum' | 'reversed' | 'zeroStep' | 'malformed';
  start: number;
  end: number;
  partStart: number;
  partEnd: number;
}

export type FieldFailure = { ok: false; error: string; endAboveMax?: number; problem: FieldProblem };
export type FieldResult = { ok: true; field: CronFieldSet } | FieldFailure;

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
  if (!m)
    return {
      ok: false,
      error: `failed to parse int from ${expr}: strconv.Atoi: parsing ${goQuote(expr)}: invalid syntax`,
    };
  const magnitude = BigInt(m[2]);
  if (magnitude > MAX_INT64 + (m[1] === '-' ? 1n : 0n)) {
    return {
      ok: false,
      error: `failed to parse int from ${expr}: strconv.Atoi: parsing ${goQuote(expr)}: value out of range`,
    };
  }
  if (m[1] === '-' && magnitude > 0n)
    return { ok: false, error: `negative number (-${magnitude}) not allowed: ${expr}` };
  // Anything above 2^53 is far beyond every field's maximum; the range check reports it.
  return { ok: true, value: magnitude > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(magnitude) };
}

function parseIntOrName(expr: string, bounds: FieldBounds): ReturnType<typeof mustParseInt> {
  const named = bounds.names?.[expr.toLowerCase()];
  return named !== undefined ? { ok: true, value: named } : mustParseInt(expr);
}

/**
 * robfig's `getRange` for one comma-separated part: `*`, `?`, `a`, `a-b`, any of them `/step`.
 * `at` is the part's offset in its field, for the problem's offsets.
 */
function getRange(
  expr: string,
  bounds: FieldBounds,
  at: number,
): { ok: true; values: number[]; star: boolean } | FieldFailure {
  const fail = (
    error: string,
    kind: FieldProblem['kind'],
    from = 0,
    to = expr.length,
    extra: { endAboveMax?: number } = {},
  ): FieldFailure => {
    // An empty value (`1-`, `-5`) is shown as the part it is missing from.
    const [start, end] = from === to ? [0, expr.length] : [from, to];
    return {
      ok: false,
      error,
      ...extra,
      problem: { kind, start: at + start, end: at + end, partStart: at, partEnd: at + expr.length },
    };
  };
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  const singleDigit = lowAndHigh.length === 1;
  const lowEnd = lowAndHigh[0].length;
  const rangeEnd = rangeAndStep[0].length;
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
    if (!low.ok) return fail(low.error, lowEnd === 0 ? 'malformed' : 'notAValue', 0, lowEnd);
    start = low.value;
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) {
      const high = parseIntOrName(lowAndHigh[1], bounds);
      if (!high.ok) return fail(high.error, lowEnd + 1 === rangeEnd ? 'malformed' : 'notAValue', lowEnd + 1, rangeEnd);
      end = high.value;
    } else return fail(`too many hyphens: ${expr}`, 'malformed');
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    const parsed = mustParseInt(rangeAndStep[1]);
    if (!parsed.ok)
      return fail(parsed.error, rangeEnd + 1 === expr.length ? 'malformed' : 'notAValue', rangeEnd + 1, expr.length);
    step = parsed.value;
    if (singleDigit) end = bounds.max; // `N/step` means `N-max/step`
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) return fail(`too many slashes: ${expr}`, 'malformed');
  if (start < bounds.min)
    return fail(`beginning of range (${start}) below minimum (${bounds.min}): ${expr}`, 'belowMinimum', 0, lowEnd);
  if (end > bounds.max) {
    const [from, to] = singleDigit ? [0, lowEnd] : [lowEnd + 1, rangeEnd];
    return fail(`end of range (${end}) above maximum (${bounds.max}): ${expr}`, 'aboveMaximum', from, to, {
      endAboveMax: end,
    });
  }
  if (start > end)
    return fail(`beginning of range (${start}) beyond end of range (${end}): ${expr}`, 'reversed', 0, rangeEnd);
  if (step === 0)
    return fail(`step of range should be a positive number: ${expr}`, 'zeroStep', rangeEnd + 1, expr.length);
  const values: number[] = [];
  for (let v = start; v <= end; v += step) values.push(v);
  return { ok: true, values, star };
}

/** robfig's `getField`: comma-separated ranges (empty parts skipped, as Go's FieldsFunc does). */
export function parseField(text: string, bounds: FieldBounds): FieldResult {
  const seen = new Set<number>();
  let star = false;
  let at = 0;
  for (const part of text.split(',')) {
    const partAt = at;
    at += part.length + 1;
    if (part === '') continue;
    const range = getRange(part, bounds, partAt);
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
  for (let i = 0; i < values.length;) {
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
