// SPDX-License-Identifier: Apache-2.0
// Schedules in robfig/cron v3's standard dialect, validated exactly as Karpenter's
// `cron.ParseStandard("TZ=UTC " + schedule)` does, and normalised to a form that robfig and
// cron-parser both read with robfig's meaning.
import {
  BOUNDS,
  formatField,
  parseField,
  type CronFields,
  type CronFieldSet,
  type FieldProblem,
} from './cron-fields.js';

/** Where a field's problem lies, offsets into the schedule as written (see FieldProblem). */
export interface CronFieldProblem extends FieldProblem {
  field: keyof CronFields;
}

/**
 * Why a schedule is invalid. `error` is robfig's own text, which Karpenter-format import reports
 * exactly as Karpenter would fail; `problem` locates a field's error for kpol's diagnostics.
 */
export type CronError = {
  ok: false;
  kind: 'fieldCount' | 'dow7' | 'descriptor' | 'field';
  error: string;
  found?: number;
  problem?: CronFieldProblem;
};
export type CronOk = { ok: true; normalized: string };

/**
 * robfig's descriptors (matched case-sensitively by exact string compare, so `@Daily` is an
 * unrecognized descriptor) and the standard fields they stand for. robfig's descriptor
 * schedules set the same star bits as these strings do.
 */
export const CRON_MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const FIELD_ORDER = ['minute', 'hour', 'dom', 'month', 'dow'] as const;
const NEVER = '0 0 30 2 *'; // canonical never-firing schedule
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]; // Feb 29 exists in leap years

// Go's strings.TrimSpace / strings.Fields whitespace (ASCII and Unicode White_Space).
const GO_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;

/** The fields of a schedule as written: each run of non-blanks with its offset (robfig's split, untrimmed). */
export function cronFieldSpans(expr: string): Array<{ text: string; start: number }> {
  const spans: Array<{ text: string; start: number }> = [];
  let start = -1;
  for (let i = 0; i <= expr.length; i++) {
    const blank = i === expr.length || GO_SPACE.test(expr[i]!);
    if (blank && start >= 0) {
      spans.push({ text: expr.slice(start, i), start });
      start = -1;
    } else if (!blank && start < 0) start = i;
  }
  return spans;
}

function trimGo(s: string): string {
  return s
    .replace(new RegExp(`^(?:${GO_SPACE.source})`, 'u'), '')
    .replace(new RegExp(`(?:${GO_SPACE.source})$`, 'u'), '');
}

/**
 * Validates a schedule in robfig/cron's standard dialect exactly as Karpenter's ParseStandard
 * does. Karpenter prefixes `TZ=UTC `, which makes robfig trim surrounding whitespace, so
 * `@daily ` is accepted and a user `TZ=…` prefix becomes an extra field. Only the literally
 * empty string reports robfig's `empty spec string`. `@every` (robfig accepts it, Karpenter's
 * CRD does not) is reported as a descriptor error. On success `normalized` keeps a
 * descriptor as written, and otherwise is a numeric 5-field form (see `formatField`).
 */
export function validateCron(expr: string): CronOk | CronError {
  if (expr === '') return { ok: false, kind: 'field', error: 'empty spec string' };
  const spec = trimGo(expr);
  if (spec.startsWith('@')) {
    if (spec in CRON_MACROS) return { ok: true, normalized: spec };
    if (spec.startsWith('@every ')) {
      return {
        ok: false,
        kind: 'descriptor',
        error: `unsupported descriptor: ${spec} (Karpenter's schedule pattern rejects @every)`,
      };
    }
    return { ok: false, kind: 'descriptor', error: `unrecognized descriptor: ${spec}` };
  }
  const fields = spec === '' ? [] : spec.split(GO_SPACE);
  if (fields.length !== 5) {
    return {
      ok: false,
      kind: 'fieldCount',
      found: fields.length,
      error: `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`,
    };
  }
  const parsed: Partial<CronFields> = {};
  for (const [i, name] of FIELD_ORDER.entries()) {
    const result = parseField(fields[i], BOUNDS[name]);
    if (!result.ok) {
      const kind = name === 'dow' && result.endAboveMax === 7 ? 'dow7' : 'field';
      const at = cronFieldSpans(expr)[i]!.start;
      const p = result.problem;
      const problem = {
        ...p,
        field: name,
        start: at + p.start,
        end: at + p.end,
        partStart: at + p.partStart,
        partEnd: at + p.partEnd,
      };
      return { ok: false, kind, error: result.error, problem };
    }
    parsed[name] = result.field;
  }
  return { ok: true, normalized: formatFields(normalizeEmpty(parsed as CronFields)) };
}

/**
 * An empty field (e.g. `,`) selects nothing. robfig then never fires, except that an empty
 * day field without a star bit drops out of the day-of-month OR day-of-week test; rewrite to
 * an equivalent schedule cron-parser can read.
 */
function normalizeEmpty(f: CronFields): CronFields | undefined {
  if (f.minute.values.length === 0 || f.hour.values.length === 0 || f.month.values.length === 0) return undefined;
  const domEmpty = f.dom.values.length === 0;
  const dowEmpty = f.dow.values.length === 0;
  if (!domEmpty && !dowEmpty) return f;
  if (f.dom.star || f.dow.star || (domEmpty && dowEmpty)) return undefined;
  const all = (name: 'dom' | 'dow'): CronFieldSet => ({
    values: range(BOUNDS[name].min, BOUNDS[name].max),
    star: true,
  });
  return domEmpty ? { ...f, dom: all('dom') } : { ...f, dow: all('dow') };
}

function formatFields(f: CronFields | undefined): string {
  return f ? FIELD_ORDER.map((name) => formatField(f[name], BOUNDS[name])).join(' ') : NEVER;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/**
 * The fields of a validated schedule (descriptors expanded); throws for an invalid one.
 * Callers that accept user input call `validateCron` first.
 */
export function cronFields(normalized: string): CronFields {
  const checked = validateCron(normalized);
  if (!checked.ok) throw new Error(`invalid schedule \`${normalized}\`: ${checked.error}`);
  const numeric = CRON_MACROS[checked.normalized] ?? checked.normalized;
  const texts = numeric.split(' ');
  const out: Partial<CronFields> = {};
  for (const [i, name] of FIELD_ORDER.entries()) {
    const result = parseField(texts[i], BOUNDS[name]);
    if (!result.ok) throw new Error(`unexpected: ${result.error}`);
    out[name] = result.field;
  }
  return out as CronFields;
}

/** robfig's day test: AND when either day field has the star bit, OR when both are restricted. */
export function dayMatches(f: CronFields, dayOfMonth: number, dayOfWeek: number): boolean {
  const domMatch = f.dom.values.includes(dayOfMonth);
  const dowMatch = f.dow.values.includes(dayOfWeek);
  return f.dom.star || f.dow.star ? domMatch && dowMatch : domMatch || dowMatch;
}

/**
 * True when a validated schedule has no hit on any date at all (`0 0 30 2 *`, `0 0 31 4 *`),
 * which Karpenter treats as always active. Leap days count: `0 0 29 2 *` fires.
 */
export function cronNeverFires(normalized: string): boolean {
  const f = cronFields(normalized);
  if (f.minute.values.length === 0 || f.hour.values.length === 0) return true;
  if (!(f.dom.star || f.dow.star)) return f.dom.values.length === 0 && f.dow.values.length === 0;
  if (f.dow.values.length === 0) return true;
  return !f.month.values.some((m) => f.dom.values.some((d) => d <= DAYS_IN_MONTH[m - 1]));
}
