// SPDX-License-Identifier: Apache-2.0
// Every user-facing diagnostic text, keyed by name. Codes are stable and banded by phase:
// KPOL1xxx syntax (tokenize/parse/lower), KPOL2xxx semantic errors (check), KPOL3xxx
// warnings from static analysis (check). Wording (Cedar's style): one sentence, lower-case
// start, no final period, user input in backticks. Never renumber a code; retire it instead.
import type { Severity } from './diagnostic.js';

interface Entry {
  code: string;
  severity: Severity;
  text: string;
  help?: string;
}

const e = (code: string, severity: Severity, text: string, help?: string): Entry =>
  help ? { code, severity, text, help } : { code, severity, text };

export const MESSAGES = {
  // ── syntax ──────────────────────────────────────────────────────────────
  unexpectedCharacter: e('KPOL1001', 'error', 'unexpected character `{char}`'),
  unterminatedString: e('KPOL1002', 'error', 'unterminated string', 'close the string with `"` on the same line'),
  unexpectedToken: e('KPOL1003', 'error', 'expected {expected} but found `{found}`'),
  unexpectedEnd: e('KPOL1004', 'error', 'unexpected end of input, expected {expected}'),
  unexpectedStatement: e(
    'KPOL1005',
    'error',
    'unknown statement `{found}`',
    'a policy holds `consolidate`, `expire`, `termination grace`, `timezone`, `budget`, ' +
      '`allow`, `freeze`, `pods` and `window` statements',
  ),
  invalidNumber: e('KPOL1006', 'error', '`{text}` is not a whole number'),
  spacedPercent: e('KPOL1007', 'error', '`{text}` has a space before `%`'),
  percentFirst: e('KPOL1008', 'error', '`{text}` has `%` before the number'),

  // ── semantic errors ─────────────────────────────────────────────────────
  unknownReason: e(
    'KPOL2001',
    'error',
    'unknown disruption reason `{name}`',
    'reasons are `Empty`, `Drifted`, `Underutilized` and, with graceful expiration, `Expired`',
  ),
  invalidDuration: e(
    'KPOL2002',
    'error',
    '`{text}` is not a duration',
    'write a duration such as `30s`, `5m`, `1h30m` or `720h`',
  ),
  budgetDurationUnits: e(
    'KPOL2003',
    'error',
    'a budget window of `{text}` cannot be written for Karpenter, which takes whole hours and minutes only',
    'use hours and minutes, e.g. `1h30m`',
  ),
  percentOver100: e('KPOL2004', 'error', '`{text}` is more than 100%'),
  cronFieldCount: e(
    'KPOL2005',
    'error',
    'schedule `{cron}` has {found} fields, expected exactly 5',
    'write minute, hour, day-of-month, month and day-of-week, or a macro such as `@daily`',
  ),
  cronDayOfWeek7: e(
    'KPOL2006',
    'error',
    'day-of-week `7` in `{cron}` is out of range 0-6 and Karpenter fails the whole NodePool closed on it',
    'use `0` or `sun` for Sunday',
  ),
  cronUnknownDescriptor: e(
    'KPOL2007',
    'error',
    'unrecognized schedule macro `{text}`',
    'macros are `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight` and `@hourly`',
  ),
  // KPOL2008 (an invalid field, in robfig's words) is retired: KPOL2027–KPOL2032 name the field and the value.
  unknownSchedule: e('KPOL2009', 'error', 'no schedule named `{name}` is declared'),
  duplicateSetting: e('KPOL2010', 'error', '`{setting}` is set more than once in policy `{policy}`'),
  duplicatePolicy: e('KPOL2011', 'error', 'policy `{name}` is declared more than once'),
  nodePoolInTwoPolicies: e(
    'KPOL2012',
    'error',
    'NodePool `{nodePool}` is governed by both `{first}` and `{second}`',
    'a NodePool may be governed by one policy only',
  ),
  expiredNeedsGraceful: e(
    'KPOL2013',
    'error',
    'reason `Expired` is only budgeted when expiration is graceful',
    'write `expire after <duration> gracefully`, or drop `Expired`',
  ),
  invalidTimestamp: e('KPOL2014', 'error', '`{text}` is not a date-time', 'write `YYYY-MM-DD HH:MM` (or RFC 3339)'),
  emptyRange: e('KPOL2015', 'error', 'the range ends at `{to}`, not after its start `{from}`'),
  windowNeedsDuration: e(
    'KPOL2016',
    'error',
    'window `{schedule}` needs a duration',
    'add `for <duration>`, e.g. `for 1h`',
  ),
  tooManyBudgets: e('KPOL2017', 'error', 'policy `{policy}` has {count} budgets, Karpenter allows at most 50'),
  unknownConsolidationPolicy: e(
    'KPOL2018',
    'error',
    'unknown consolidation policy `{text}`',
    'write `when empty`, `when empty or underutilized` or `when balanced`',
  ),
  invalidLabelKey: e(
    'KPOL2019',
    'error',
    '`{key}` is not a valid label key',
    'a label key is an optional DNS subdomain prefix and `/`, then a name of at most 63 ' +
      'letters, digits, `-`, `_` or `.` beginning and ending with a letter or digit',
  ),
  podWindowDurationRange: e('KPOL2020', 'error', 'a pod disruption window of `{text}` is outside 1m to 7d'),
  duplicateReason: e('KPOL2021', 'error', 'reason `{name}` is listed more than once'),
  duplicateWindowName: e('KPOL2022', 'error', 'window `{name}` is declared more than once in policy `{policy}`'),
  negativeDuration: e('KPOL2023', 'error', 'termination grace must be a positive duration, not `{text}`'),
  duplicateSchedule: e('KPOL2024', 'error', 'schedule `{name}` is declared more than once'),
  invalidLabelValue: e(
    'KPOL2025',
    'error',
    '`{value}` is not a valid label value',
    'label values are at most 63 letters, digits, `-`, `_` or `.`, beginning and ending with a letter or digit',
  ),
  unknownTimeZone: e(
    'KPOL2026',
    'error',
    'unknown time zone `{zone}`, so its windows can never be computed and fail closed',
    'use an IANA name such as `Europe/Berlin` or `UTC`',
  ),
  cronInvalidValue: e('KPOL2027', 'error', '`{token}` is not a valid {field}'),
  cronOutOfRange: e('KPOL2028', 'error', '{field} `{token}` is out of range {min}-{max}'),
  cronReversedRange: e(
    'KPOL2029',
    'error',
    'the {field} range `{token}` runs backwards',
    'ranges do not wrap around; write the smaller value first',
  ),
  cronZeroStep: e('KPOL2030', 'error', '`{part}` steps by 0', 'use a step of `1` or more, as in `*/15`'),
  cronEmpty: e(
    'KPOL2031',
    'error',
    'the schedule is empty',
    'write minute, hour, day-of-month, month and day-of-week, or a macro such as `@daily`',
  ),
  cronTimeZonePrefix: e(
    'KPOL2032',
    'error',
    'a schedule cannot set its own time zone with `{prefix}`',
    'write the zone after the window instead: `in "{zone}"`',
  ),
  durationTooLong: e(
    'KPOL2033',
    'error',
    '`{text}` is longer than any duration Karpenter can hold',
    "Karpenter keeps durations as Go's time.Duration: at most 106751d (about 292 years); use " +
      '`never` for no limit where the statement takes it',
  ),
  countTooLarge: e(
    'KPOL2034',
    'error',
    '`{text}` nodes is more than Karpenter can hold',
    "Karpenter keeps a budget's node count as an int32: at most 2147483647, which it reads as unlimited; " +
      'a larger count wraps around to a negative number',
  ),
  // KPOL2060–KPOL2069: rate budgets (`budget N per D`, rules/README §3.6.1).
  ratePeriodRange: e(
    'KPOL2060',
    'error',
    'a rate budget counts over `{text}`, outside 1m…7d',
    'kpol evaluates every second and remembers disruption starts for at most 7 days (rules/README §9): ' +
      'write a window from `1m` to `7d`',
  ),
  rateCountTooLarge: e(
    'KPOL2061',
    'error',
    'a rate budget of `{text}` per window is more than kpol remembers',
    'kpol keeps the last 1000 disruption starts per NodePool (rules/README §9): ' +
      'write at most 1000, or a shorter window',
  ),

  // ── notes: help and related-location texts of the diagnostics above, never reported alone ──
  didYouMean: e('KPOL2901', 'info', 'did you mean `{suggestion}`?'),
  firstWrittenHere: e('KPOL2902', 'info', 'first written here'),
  firstWrittenInFile: e('KPOL2903', 'info', 'first written in `{file}`'),
  rangeStartsHere: e('KPOL2904', 'info', 'the range starts here'),
  stricterBudgetHere: e('KPOL2905', 'info', 'the stricter budget'),
  everyReason: e('KPOL2906', 'info', 'every reason'),
  declarationDidNotParse: e('KPOL2907', 'info', 'the declaration of schedule `{name}` did not parse'),
  durationDidYouMean: e(
    'KPOL2908',
    'info',
    'did you mean `{suggestion}`? durations take the units `s`, `m`, `h` and `d`',
  ),
  cronMinutes: e('KPOL2910', 'info', 'a minute is a number from `0` to `59`'),
  cronHours: e('KPOL2911', 'info', 'an hour is a number from `0` to `23`'),
  cronDaysOfMonth: e('KPOL2912', 'info', 'a day of the month is a number from `1` to `31`'),
  cronMonths: e('KPOL2913', 'info', 'a month is `1` to `12` or `jan` to `dec`'),
  cronDaysOfWeek: e('KPOL2914', 'info', 'a day of the week is `0` to `6` or `sun` to `sat`, with `0` for Sunday'),
  cronFieldForms: e(
    'KPOL2915',
    'info',
    'a field is `*`, a value, a range such as `1-5`, a list such as `1,3` or a step such as `*/15`',
  ),
  cronNameElsewhere: e('KPOL2916', 'info', '`{token}` is a {kind}, which goes in the {position} field'),
  cronQuartz: e('KPOL2917', 'info', "`L`, `W` and `#` are Quartz extensions, which Karpenter's cron does not read"),
  cronWrapAround: e('KPOL2918', 'info', 'ranges do not wrap around: did you mean `{suggestion}`?'),
  cronNoSeconds: e(
    'KPOL2919',
    'info',
    'there is no seconds field: write minute, hour, day-of-month, month and day-of-week',
  ),
  durationUnits: e(
    'KPOL2909',
    'info',
    'durations are whole numbers with the units `s`, `m`, `h` and `d`, as in `90s`, `5m`, `1h30m` or `7d`',
  ),

  // ── warnings from static analysis ───────────────────────────────────────
  windowNeverOpens: e(
    'KPOL3001',
    'warning',
    'window `{schedule}` for `{duration}` never opens',
    'a zero duration is never active; give it a positive duration',
  ),
  scheduleNeverFires: e(
    'KPOL3002',
    'warning',
    'schedule `{cron}` never fires, so its window is always active, as Karpenter treats such a budget',
  ),
  budgetShadowed: e(
    'KPOL3003',
    'warning',
    '`{budget}` never binds: `{stricter}` is always at least as strict for {reasons}',
    'drop it, or make it stricter than `{stricter}`',
  ),
  reasonUnlimited: e(
    'KPOL3004',
    'warning',
    'no budget names `{reason}`, so `{reason}` disruptions are unlimited',
    'add `budget <n> for {reason}`, or a budget without reasons',
  ),
  alwaysActive: e(
    'KPOL3005',
    'warning',
    "window `{schedule}` for `{duration}` is always active: the duration is at least the schedule's period",
    'drop the window, or shorten the duration',
  ),
  // KPOL3006 (an unknown time zone as a warning) is retired: it is error KPOL2026.
  noNodePoolsMatch: e('KPOL3007', 'warning', 'policy `{policy}` governs no NodePool in the cluster'),
  allowWindowAlwaysOpen: e(
    'KPOL3008',
    'warning',
    'allow window `{schedule}` is always open, so `only during` has no effect',
  ),
  unusedSchedule: e('KPOL3009', 'warning', 'schedule `{name}` is declared but never used'),
  freezeInPast: e('KPOL3010', 'info', 'freeze ended at `{to}`, before `{now}`'),

  // ── scoped budgets: `cluster budget` and `budget … on nodes where` (issue 15) ──
  clusterBudgetForeignPool: e(
    'KPOL2050',
    'error',
    '`cluster budget` names NodePool `{pool}`, which no policy in this file governs',
    'a cluster budget may only constrain NodePools that a policy of its own file governs: ' +
      "add `{pool}` to a policy's `for nodepool …`, or leave it out",
  ),
  clusterBudgetWithoutPolicy: e(
    'KPOL2051',
    'error',
    '`cluster budget` in a file without a policy constrains no NodePool',
    'declare the cluster budget in the file whose policies govern the NodePools it is meant for',
  ),
  selectorBudgetForeignPool: e(
    'KPOL2052',
    'error',
    'budget selects NodePool `{pool}`, which policy `{policy}` does not govern',
    "a selector budget counts only the nodes of its own policy's NodePools; " +
      'a budget over other pools belongs in their policy',
  ),
  perReasonOnSelectorBudget: e(
    'KPOL2053',
    'error',
    '`per reason` is not supported on a selector budget',
    'a selector budget counts every disrupting node of its slice; ' +
      'drop `per reason`, or write the bucket as a budget of the whole pool',
  ),
  selectorBudgetMatchesNothing: e(
    'KPOL3050',
    'warning',
    'budget selector can match no node: {why}',
    'a budget over no node never limits anything; fix the selector or remove the budget',
  ),
  clusterBudgetPoolBySelector: e(
    'KPOL3051',
    'warning',
    'NodePool `{pool}` is not named by a policy of this file; ' +
      'the cluster budget counts it only if a policy here governs it by selector',
  ),
  // 3021–3023: reason buckets and pod protection (issue 15); 3011–3020 left to its sibling features
  bucketShadowed: e(
    'KPOL3021',
    'warning',
    '`{budget}` never binds as a bucket: the shared `{stricter}` counts every disrupting node ' +
      'and is always at least as strict for {reasons}',
    'raise or drop `{stricter}`, or drop `per reason`',
  ),
  bucketOfZero: e(
    'KPOL3022',
    'warning',
    '`per reason` changes nothing on a budget of 0: it allows no disruption whatever is counted',
    'drop `per reason`',
  ),
  protectionOverridden: e(
    'KPOL3023',
    'warning',
    'the termination grace period overrides `never` {reasons} for pods: drift and graceful expiry go ahead anyway',
    'drop {reasons} from the list, or drop `termination grace`',
  ),
  // KPOL3060–KPOL3069: rate budgets.
  rateBudgetFreezes: e(
    'KPOL3060',
    'warning',
    '`{budget}` allows no disruption in any window: it is a freeze',
    'say so with `budget 0{reasons}` (or a dated `freeze`), or allow at least 1 per `{per}`',
  ),
} as const satisfies Record<string, Entry>;

export type MessageName = keyof typeof MESSAGES;
