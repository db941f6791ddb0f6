// SPDX-License-Identifier: Apache-2.0
// Duration literals → seconds, with the limits each use of a duration has.
import type { DurationLit, NeverLit } from '../../grammar/ast.js';
import { diagnostic, format, type Diagnostic } from '../../grammar/diagnostic.js';
import { kpolDurationFor } from '../../grammar/duration-slips.js';
import { MESSAGES } from '../../grammar/messages.js';
import { parseKpolDuration } from '../duration.js';
import type { WindowUse } from './context.js';
import { memoByText } from '../memo.js';

const MINUTE = 60;
/**
 * Go's time.Duration, in whole seconds: (2^63 − 1) ns. Every instant kpol derives from a duration stays a valid date.
 */
export const MAX_DURATION_SECONDS = 9_223_372_036;
const POD_WINDOW_MAX = 7 * 24 * 3600;

const secondsOf = memoByText(parseKpolDuration);

/** Seconds, or the diagnostic for a literal that is not a duration. */
export function durationSeconds(lit: DurationLit): { seconds: number } | { diagnostic: Diagnostic } {
  const seconds = secondsOf(lit.text);
  if (seconds === undefined) return { diagnostic: invalidDuration(lit) };
  if (seconds > MAX_DURATION_SECONDS)
    return { diagnostic: diagnostic('durationTooLong', lit.range, { text: lit.text }) };
  return { seconds };
}

/** `500ms`, the only literal the lexer takes for a duration that is none: kpol has no `ms`. */
function invalidDuration(lit: DurationLit): Diagnostic {
  const meant = kpolDurationFor(lit.text);
  const extra = meant
    ? { help: format(MESSAGES.durationDidYouMean.text, { suggestion: meant }), fix: meant }
    : { help: MESSAGES.durationUnits.text };
  return diagnostic('invalidDuration', lit.range, { text: lit.text }, extra);
}

/** Seconds, null for `never`, or the diagnostic. */
export function durationOrNever(lit: DurationLit | NeverLit): { seconds: number | null } | { diagnostic: Diagnostic } {
  return lit.kind === 'Never' ? { seconds: null } : durationSeconds(lit);
}

/**
 * A window duration allowed for its use. Budget-like windows keep Karpenter's whole-minute
 * rule so every policy exports; pod windows keep KARPENTER.md#pod-disruption-schedule-proposal's 1m…7d, which kpol
 * rejects
 * statically instead of falling back to 1h at runtime.
 */
export function windowDurationProblem(lit: DurationLit, seconds: number, use: WindowUse): Diagnostic | undefined {
  switch (use) {
    case 'budget':
    case 'allow':
    case 'maintenance':
      return seconds % MINUTE === 0 ? undefined : diagnostic('budgetDurationUnits', lit.range, { text: lit.text });
    case 'pod':
      return seconds >= MINUTE && seconds <= POD_WINDOW_MAX
        ? undefined
        : diagnostic('podWindowDurationRange', lit.range, { text: lit.text });
    default: {
      const never: never = use;
      throw new Error(`unhandled window use ${String(never)}`);
    }
  }
}
