// SPDX-License-Identifier: Apache-2.0
// Rewrites of one comma-separated part of a schedule field, for quick fixes: a day or month
// name misspelt, a range that was meant to wrap around, Sunday written as `7`.
import { closest } from '../../grammar/suggest.js';
import { BOUNDS, type CronFields } from '../cron-fields.js';

type FieldName = keyof CronFields;

/** The name a misspelt day or month stands for (`fry` → `fri`, `monday` → `mon`), in the case written. */
export function nameFor(field: FieldName, token: string): string | undefined {
  const names = Object.keys(BOUNDS[field].names ?? {});
  if (names.length === 0 || !/^[A-Za-z]+$/.test(token)) return undefined;
  const lower = token.toLowerCase();
  const best = lower.length > 3 && names.includes(lower.slice(0, 3)) ? lower.slice(0, 3) : closest(lower, names, 1);
  if (best === undefined) return undefined;
  return token === token.toUpperCase() ? best.toUpperCase() : best;
}

/** The field a day or month name belongs in, when `token` is one and `field` is another. */
export function fieldOfName(field: FieldName, token: string): FieldName | undefined {
  const lower = token.toLowerCase();
  return (['dow', 'month'] as const).find((f) => f !== field && BOUNDS[f].names?.[lower] !== undefined);
}

function valueOf(field: FieldName, text: string): number | undefined {
  const named = BOUNDS[field].names?.[text.toLowerCase()];
  if (named !== undefined) return named;
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

/** A field's value written as names when `asName` and the field has them, else as a number. */
function write(field: FieldName, value: number, asName: boolean): string {
  const names = BOUNDS[field].names;
  const name = asName && names ? Object.keys(names).find((n) => names[n] === value) : undefined;
  return name ?? String(value);
}

/** A backwards range (`fri-mon`, `22-2`) as the wrap-around it means (`fri-sat,sun-mon`, `22-23,0-2`). */
export function wrapAround(field: FieldName, range: string): string | undefined {
  const m = /^([^-/]+)-([^-/]+)$/.exec(range);
  if (!m) return undefined;
  const [low, high] = [valueOf(field, m[1]!), valueOf(field, m[2]!)];
  const { min, max } = BOUNDS[field];
  if (low === undefined || high === undefined || low <= high) return undefined;
  const asName = /[A-Za-z]/.test(range);
  const span = (a: number, b: number) =>
    a === b ? write(field, a, asName) : `${write(field, a, asName)}-${write(field, b, asName)}`;
  return `${span(low, max)},${span(min, high)}`;
}

/** A day-of-week part ending in `7` with Sunday as `0` (`7` → `0`, `5-7` → `5-6,0`); undefined when not that simple. */
export function sundayAsZero(part: string): string | undefined {
  if (part === '7') return '0';
  const m = /^([0-9]|[a-z]{3})-7$/i.exec(part);
  if (!m) return undefined;
  const from = valueOf('dow', m[1]!);
  if (from === undefined || from > 6) return undefined;
  if (from === 0) return `${m[1]}-6`;
  return from === 6 ? `${m[1]},0` : `${m[1]}-6,0`;
}
