// SPDX-License-Identifier: Apache-2.0
// Validates a schedule literal with robfig's dialect and turns a failure into a diagnostic in
// kpol's words: it names the field and the value, squiggles exactly that value inside the
// string, and carries a quick fix where one is certain. robfig's own error text is not shown
// here; Karpenter-format import reports it, as Karpenter would fail with it.
import type { Position, Range, Str } from '../../grammar/ast.js';
import { diagnostic, format, type Diagnostic } from '../../grammar/diagnostic.js';
import { MESSAGES, type MessageName } from '../../grammar/messages.js';
import { didYouMean } from '../../grammar/suggest.js';
import { BOUNDS, type CronFields } from '../cron-fields.js';
import {
  cronFieldSpans,
  CRON_MACROS,
  validateCron,
  type CronError,
  type CronFieldProblem,
  type CronOk,
} from '../cron.js';
import { fieldOfName, nameFor, sundayAsZero, wrapAround } from './cron-fixes.js';
import { memoByText } from '../memo.js';
import { quoted } from './notes.js';

const validateOnce: (expr: string) => CronOk | CronError = memoByText(validateCron);

type FieldName = keyof CronFields;

/** How a field is named in messages (noun, and before "range"), its help, and its position. */
const FIELDS: Record<FieldName, { noun: string; adjective: string; help: MessageName; position: string }> = {
  minute: { noun: 'minute', adjective: 'minute', help: 'cronMinutes', position: 'first' },
  hour: { noun: 'hour', adjective: 'hour', help: 'cronHours', position: 'second' },
  dom: { noun: 'day of the month', adjective: 'day-of-month', help: 'cronDaysOfMonth', position: 'third' },
  month: { noun: 'month', adjective: 'month', help: 'cronMonths', position: 'fourth' },
  dow: { noun: 'day of the week', adjective: 'day-of-week', help: 'cronDaysOfWeek', position: 'fifth' },
};

/** The normalised cron, or the diagnostic explaining why Karpenter would reject it. */
export function checkCron(lit: Str): { cron: string } | { diagnostic: Diagnostic } {
  const result = validateOnce(lit.value);
  if (result.ok) return { cron: result.normalized };
  return { diagnostic: cronDiagnostic(lit, result) };
}

/** Help and the replacement of `[start, end)` of the schedule, when one is certain. */
interface Extra {
  help?: string;
  fix?: string;
}

function cronDiagnostic(lit: Str, error: CronError): Diagnostic {
  const cron = lit.value;
  const spans = cronFieldSpans(cron);
  const at = (
    name: MessageName,
    start: number,
    end: number,
    args: Record<string, string | number>,
    extra: Extra = {},
  ) => located(lit, name, start, end, args, extra);
  switch (error.kind) {
    case 'fieldCount': {
      if (spans.length === 0) return diagnostic('cronEmpty', lit.range);
      const prefix = /^(?:CRON_)?TZ=(.*)$/.exec(spans[0]!.text);
      if (prefix) {
        const [first] = spans;
        return at('cronTimeZonePrefix', first!.start, first!.start + first!.text.length, {
          prefix: first!.text,
          zone: prefix[1]!,
        });
      }
      const extra = spans.length === 6 ? { help: MESSAGES.cronNoSeconds.text } : {};
      return diagnostic('cronFieldCount', lit.range, { cron, found: spans.length }, extra);
    }
    case 'descriptor': {
      const macro = spans[0]!;
      const s = didYouMean(macro.text, Object.keys(CRON_MACROS));
      return at('cronUnknownDescriptor', macro.start, macro.start + macro.text.length, { text: macro.text }, s ?? {});
    }
    case 'dow7': {
      const p = error.problem!;
      const fixed = sundayAsZero(cron.slice(p.partStart, p.partEnd));
      return at('cronDayOfWeek7', p.partStart, p.partEnd, { cron }, fixed ? { fix: fixed } : {});
    }
    case 'field':
      return error.problem ? fieldDiagnostic(lit, error.problem) : diagnostic('cronEmpty', lit.range);
    default: {
      const never: never = error.kind;
      throw new Error(`unhandled cron error kind ${String(never)}`);
    }
  }
}

function fieldDiagnostic(lit: Str, p: CronFieldProblem): Diagnostic {
  const field = FIELDS[p.field];
  const token = lit.value.slice(p.start, p.end);
  const part = lit.value.slice(p.partStart, p.partEnd);
  const fieldHelp = { help: MESSAGES[field.help].text };
  switch (p.kind) {
    case 'notAValue':
    case 'malformed':
      return located(lit, 'cronInvalidValue', p.start, p.end, { token, field: field.noun }, valueHelp(p, token));
    case 'belowMinimum':
    case 'aboveMaximum': {
      const { min, max } = BOUNDS[p.field];
      return located(lit, 'cronOutOfRange', p.start, p.end, { token, field: field.noun, min, max }, fieldHelp);
    }
    case 'reversed': {
      const wrapped = wrapAround(p.field, token);
      const extra = wrapped
        ? { help: format(MESSAGES.cronWrapAround.text, { suggestion: wrapped }), fix: wrapped }
        : {};
      return located(lit, 'cronReversedRange', p.start, p.end, { token, field: field.adjective }, extra);
    }
    case 'zeroStep':
      return located(lit, 'cronZeroStep', p.start, p.end, { part });
    default: {
      const never: never = p.kind;
      throw new Error(`unhandled cron field problem ${String(never)}`);
    }
  }
}

/** Why a value is not one: a misspelt name, a name of another field, Quartz syntax, or the field's forms. */
function valueHelp(p: CronFieldProblem, token: string): Extra {
  const field = FIELDS[p.field];
  const name = nameFor(p.field, token);
  if (name) return { help: format(MESSAGES.didYouMean.text, { suggestion: name }), fix: name };
  const elsewhere = fieldOfName(p.field, token);
  if (elsewhere) {
    const args = { token, kind: FIELDS[elsewhere].noun, position: FIELDS[elsewhere].position };
    return { help: format(MESSAGES.cronNameElsewhere.text, args) };
  }
  if (/^[0-9]*[LW#]|[0-9]#[0-9]|^L$/.test(token)) return { help: MESSAGES.cronQuartz.text };
  return { help: MESSAGES[p.kind === 'malformed' ? 'cronFieldForms' : field.help].text };
}

/**
 * A diagnostic on `[start, end)` of the schedule's text. The range is that text inside the
 * literal when the literal is written without escapes on one line; otherwise the whole literal,
 * with the fix applied to the whole schedule.
 */
function located(
  lit: Str,
  name: MessageName,
  start: number,
  end: number,
  args: Record<string, string | number>,
  extra: Extra = {},
): Diagnostic {
  const inner = innerRange(lit, start, end);
  if (inner) return diagnostic(name, inner, args, extra);
  const fix =
    extra.fix === undefined ? undefined : quoted(lit.value.slice(0, start) + extra.fix + lit.value.slice(end));
  return diagnostic(name, lit.range, args, fix === undefined ? { help: extra.help } : { help: extra.help, fix });
}

function innerRange(lit: Str, start: number, end: number): Range | undefined {
  const { start: from, end: to } = lit.range;
  const plain = from.line === to.line && to.offset - from.offset === lit.value.length + 2;
  if (!plain) return undefined;
  const at = (i: number): Position => ({
    line: from.line,
    character: from.character + 1 + i,
    offset: from.offset + 1 + i,
  });
  return { start: at(start), end: at(end) };
}
