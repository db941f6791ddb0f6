// SPDX-License-Identifier: Apache-2.0
// Validates a schedule literal with robfig's dialect and turns a failure into a diagnostic
// that points at the string literal, with a quick fix where one is certain.
import type { Str } from '../../grammar/ast.js';
import { diagnostic, type Diagnostic } from '../../grammar/diagnostic.js';
import { validateCron, type CronError, type CronOk } from '../cron.js';
import { memoByText } from './memo.js';
import { quoted, suggestion } from './notes.js';

const MACROS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

const validateOnce: (expr: string) => CronOk | CronError = memoByText(validateCron);

/** The normalised cron, or the diagnostic explaining why Karpenter would reject it. */
export function checkCron(lit: Str): { cron: string } | { diagnostic: Diagnostic } {
  const result = validateOnce(lit.value);
  if (result.ok) return { cron: result.normalized };
  return { diagnostic: cronDiagnostic(lit, result) };
}

function cronDiagnostic(lit: Str, error: CronError): Diagnostic {
  const cron = lit.value;
  switch (error.kind) {
    case 'fieldCount':
      return diagnostic('cronFieldCount', lit.range, { cron, found: error.found ?? cron.trim().split(/\s+/).length });
    case 'dow7': {
      const fixed = replaceDayOfWeek7(cron);
      return diagnostic('cronDayOfWeek7', lit.range, { cron }, fixed ? { fix: quoted(fixed) } : {});
    }
    case 'descriptor': {
      const text = cron.trim().split(/\s+/)[0];
      const s = suggestion(text, MACROS);
      return diagnostic('cronUnknownDescriptor', lit.range, { text }, s ? { help: s.help, fix: quoted(s.fix) } : {});
    }
    case 'field':
      return diagnostic('cronInvalidField', lit.range, { cron, reason: error.error });
    default: {
      const never: never = error.kind;
      throw new Error(`unhandled cron error kind ${String(never)}`);
    }
  }
}

/**
 * Rewrites day-of-week `7` (Sunday on some systems, rejected by robfig) to `0`, keeping the
 * rest as written: `7` → `0`, `5-7` → `5-6,0`. Undefined when the field is not that simple.
 */
export function replaceDayOfWeek7(cron: string): string | undefined {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return undefined;
  const parts = fields[4].split(',').map((part) => {
    if (part === '7') return '0';
    const range = /^([0-9]|[a-z]{3})-7$/i.exec(part);
    if (range) return range[1] === '6' || range[1].toLowerCase() === 'sat' ? `${range[1]},0` : `${range[1]}-6,0`;
    return part;
  });
  const field = parts.join(',');
  if (field === fields[4] || /(^|[-,/])7($|[-,/])/.test(field)) return undefined;
  fields[4] = field;
  return fields.join(' ');
}
