// SPDX-License-Identifier: Apache-2.0
// Durations as kpol writes them, as Go's time.ParseDuration reads them, and the CRD patterns
// Karpenter validates them with (KARPENTER.md#budget-fields).
import { KPOL_DURATION_UNITS } from '../grammar/duration-slips.js';
import { goParseDuration } from './karpenter-go.js';

/**
 * Parses a kpol duration literal (`30s`, `5m`, `1h30m`, `1h30m0s`, `720h`, `7d`) to whole
 * seconds; undefined if invalid. One or more `<digits><unit>` groups with units `s m h d`
 * (`d` = 24h); no sign, no decimals, no `ms`; groups may repeat and come in any order (as Go).
 */
export function parseKpolDuration(text: string): number | undefined {
  if (!/^([0-9]+[smhd])+$/.test(text)) return undefined;
  let total = 0;
  for (const [, digits, unit] of text.matchAll(/([0-9]+)([smhd])/g)) {
    total += Number(digits) * KPOL_DURATION_UNITS[unit]!;
  }
  return Number.isSafeInteger(total) ? total : undefined;
}

/**
 * Parses a Go `time.ParseDuration` string (`1.5h`, `300ms`, `-5m`, `0`) to seconds, possibly
 * fractional, zero or negative; undefined where Go returns an error (including int64 overflow).
 */
export function parseGoDuration(text: string): number | undefined {
  const parsed = goParseDuration(text);
  return parsed.ok ? parsed.value : undefined;
}

/**
 * Formats seconds the way Karpenter manifests write them: hours, minutes and seconds with zero
 * components dropped and hours never rolled into days (`1h30m`, `720h`, `90` → `1m30s`,
 * 0 → `0s`). Fractional seconds keep up to millisecond precision (`1.5s`); negatives get `-`.
 */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) throw new RangeError(`cannot format duration ${seconds}`);
  if (seconds < 0) return `-${formatDuration(-seconds)}`;
  const millis = Math.round(seconds * 1000);
  if (millis === 0) return '0s';
  const hours = Math.floor(millis / 3_600_000);
  const minutes = Math.floor((millis % 3_600_000) / 60_000);
  const restMs = millis % 60_000;
  let out = '';
  if (hours > 0) out += `${hours}h`;
  if (minutes > 0) out += `${minutes}m`;
  if (restMs > 0) out += `${restMs % 1000 === 0 ? restMs / 1000 : (restMs / 1000).toFixed(3).replace(/0+$/, '')}s`;
  return out;
}

// Go's RE2 reads `\s` as [\t\n\f\r ] and `.` as "anything but \n"; JavaScript's are wider.
const RE2_SPACE = '[\\t\\n\\f\\r ]';
const RE2_ANY = '[^\\n]';

/**
 * Karpenter's CRD patterns (KARPENTER.md#budget-fields), evaluated like Go RE2 would. Like RE2's
 * MatchString they are unanchored except where the pattern anchors itself, which is why
 * `schedule` accepts `@dailyfoo` and six-field strings (its `^` binds only to the macro branch).
 */
export const KARPENTER_PATTERNS: Record<'durNever' | 'nodes' | 'schedule' | 'budgetDuration' | 'tgp', RegExp> = {
  durNever: /^(([0-9]+(s|m|h))+|Never)$/,
  nodes: /^((100|[0-9]{1,2})%|[0-9]+)$/,
  // Five cron fields separated by the CRD's space class.
  schedule: new RegExp(
    `^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|(${Array(5).fill(`(${RE2_ANY}+)`).join(RE2_SPACE)})$`,
  ),
  budgetDuration: /^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$/,
  tgp: /^([0-9]+(s|m|h))+$/,
};

/** A budget's `duration` as Karpenter reads it (metav1.Duration = Go ParseDuration), in seconds. */
export function parseKarpenterBudgetDuration(text: string): number | undefined {
  return parseGoDuration(text);
}

/**
 * A NillableDuration (`consolidateAfter`, `expireAfter`): seconds, `null` for `Never`, or
 * undefined when Go's ParseDuration rejects it. The CRD pattern is checked separately.
 */
export function parseKarpenterDurationOrNever(text: string): number | null | undefined {
  if (text === 'Never') return null;
  return parseGoDuration(text);
}
