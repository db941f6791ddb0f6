// SPDX-License-Identifier: Apache-2.0
// fast-check arbitraries that build `.kpol` text statement by statement from the grammar, with
// values pushed to the ends of what the checker accepts: the longest durations, the largest
// counts, 0 and 100%, every IANA zone, schedules that fire once in four years or at a year's
// last minute, freezes at years 0000 and 9999, label keys named like Object members. Most
// outputs are valid; the few that are not must still be rejected with located diagnostics.
import fc from 'fast-check';

/** Durations at the edges: zero, one unit, the Go time.Duration limit in every unit. */
const EDGE_DURATIONS = [
  '0s',
  '1s',
  '59s',
  '1m',
  '60m',
  '1h',
  '23h59m',
  '24h',
  '7d',
  '168h',
  '366d',
  '720h',
  '106751d',
  '2562047h',
  '153722867m',
  '9223372036s',
  '106750d23h59m',
  '1d1h1m1s',
];
const DURATION_UNIT_MAX: Record<string, number> = { s: 9_223_372_036, m: 153_722_867, h: 2_562_047, d: 106_751 };

/** Just past the limit: check must reject these, or the evaluator must cope with them. */
const PAST_LIMIT_DURATIONS = ['106752d', '100000000d', '2562048h', '9223372037s', '999999999999d'];

export const durationArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...EDGE_DURATIONS), weight: 20 },
  { arbitrary: fc.constantFrom(...PAST_LIMIT_DURATIONS), weight: 1 },
  {
    arbitrary: fc
      .constantFrom('s', 'm', 'h', 'd')
      .chain((u) => fc.integer({ min: 0, max: DURATION_UNIT_MAX[u]! }).map((n) => `${n}${u}`)),
    weight: 20,
  },
);

/** Whole minutes: budget, allow and maintenance windows take nothing finer (KPOL2003). */
export const minuteDurationArb: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...PAST_LIMIT_DURATIONS), weight: 1 },
  {
    arbitrary: fc.constantFrom('1m', '10m', '1h', '24h', '7d', '366d', '106751d', '2562047h', '153722867m', '0m'),
    weight: 20,
  },
  { arbitrary: fc.integer({ min: 0, max: 153_722_867 }).map((n) => `${n}m`), weight: 20 },
);

/** Pod windows: 1m…7d (KPOL2020). */
export const podDurationArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('1m', '60s', '7d', '168h', '10080m', '604800s'),
  fc.integer({ min: 60, max: 604_800 }).map((n) => `${n}s`),
);

const INT32_MAX = 2_147_483_647;
export const quantityArb: fc.Arbitrary<string> = fc.oneof(
  // The last two are past the limit (KPOL2034).
  fc.constantFrom(
    '0',
    '1',
    `${INT32_MAX}`,
    '0%',
    '1%',
    '99%',
    '100%',
    `${INT32_MAX + 1}`,
    `${Number.MAX_SAFE_INTEGER}`,
  ),
  fc.integer({ min: 0, max: INT32_MAX }).map(String),
  fc.integer({ min: 0, max: 100 }).map((n) => `${n}%`),
);

/**
 * The odd zones (±14h, 30- and 45-minute offsets, DST at midnight, negative and 2h DST), plus
 * every tenth zone this runtime knows, or all of them with KPOL_FUZZ_ALL_ZONES=1 (the long
 * runs): the checker samples each new zone's offsets over 20 years once per process, which
 * would dominate a short run's time.
 */
const ODD_ZONES = [
  'UTC',
  'Etc/UTC',
  'Pacific/Kiritimati',
  'Etc/GMT+12',
  'Etc/GMT-14',
  'Australia/Lord_Howe',
  'Antarctica/Troll',
  'America/Santiago',
  'Africa/Casablanca',
  'Asia/Kathmandu',
  'America/St_Johns',
  'Pacific/Chatham',
  'Asia/Gaza',
  'America/Havana',
  'Europe/Dublin',
  'Pacific/Apia',
  'Europe/Berlin',
  'America/New_York',
];
const ALL_ZONES = Intl.supportedValuesOf('timeZone');
const ZONES = [...ODD_ZONES, ...ALL_ZONES.filter((_, i) => process.env.KPOL_FUZZ_ALL_ZONES === '1' || i % 10 === 0)];
export const zoneArb: fc.Arbitrary<string> = fc.constantFrom(...new Set(ZONES));

const CRON_EDGES = [
  '@yearly',
  '@annually',
  '@monthly',
  '@weekly',
  '@daily',
  '@midnight',
  '@hourly',
  '0 0 29 2 *',
  '0 0 29 2 1',
  '59 23 31 12 *',
  '0 0 1 1 *',
  '0 0 31 2 *',
  '0 0 30 2 *',
  '* * * * *',
  '*/59 */23 */31 */12 */6',
  '0 2 * * *',
  '30 2 * * 0',
  '0 0 31 * *',
  '59 23 * * sat',
  '0 0 29 feb ?',
  '0-59/7 1-23/5 1,15,31 jan-dec sun-sat',
  '0 12 13 * fri',
  '0 0 1 1 1',
];
const cronFieldArb = (min: number, max: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constant('*'),
    fc.integer({ min, max }).map(String),
    fc.tuple(fc.integer({ min, max }), fc.integer({ min, max })).map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
    fc.integer({ min: 1, max: max + 1 }).map((s) => `*/${s}`),
    fc.uniqueArray(fc.integer({ min, max }), { minLength: 1, maxLength: 4 }).map((xs) => xs.join(',')),
  );
export const cronArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...CRON_EDGES),
  fc
    .tuple(cronFieldArb(0, 59), cronFieldArb(0, 23), cronFieldArb(1, 31), cronFieldArb(1, 12), cronFieldArb(0, 6))
    .map((f) => f.join(' ')),
);

export const reasonsArb: fc.Arbitrary<string> = fc
  .uniqueArray(fc.constantFrom('Empty', 'Drifted', 'Underutilized'), { minLength: 1, maxLength: 3 })
  .map((rs) => rs.join(', '));

/** Label keys and values: ordinary, Kubernetes-valid but named like Object members, extreme. */
const LABEL_KEYS = [
  'app',
  'team',
  'topology.kubernetes.io/zone',
  'karpenter.sh/capacity-type',
  'node.kubernetes.io/instance-type',
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'prototype',
  'isPrototypeOf',
  'propertyIsEnumerable',
];
// `__proto__` is no valid label key or value (KPOL2019, KPOL2025): generated clusters carry it instead.
const LABEL_VALUES = [
  'x',
  'us-west-2a',
  'spot',
  'on-demand',
  'constructor',
  'toString',
  '0',
  '99999999999999999',
  'a'.repeat(63),
];
const labelValueArb = fc.oneof(
  fc.constantFrom(...LABEL_VALUES),
  fc.constantFrom(...LABEL_VALUES).map((v) => `"${v}"`),
);
const requirementArb: fc.Arbitrary<string> = fc.constantFrom(...LABEL_KEYS).chain((k) =>
  fc.oneof(
    labelValueArb.map((v) => `${k} = ${v}`),
    labelValueArb.map((v) => `${k} != ${v}`),
    fc.uniqueArray(labelValueArb, { minLength: 1, maxLength: 3 }).map((vs) => `${k} in (${vs.join(', ')})`),
    fc.uniqueArray(labelValueArb, { minLength: 1, maxLength: 3 }).map((vs) => `${k} notin (${vs.join(', ')})`),
    fc.constant(`${k} exists`),
    fc.constant(`${k} not exists`),
    fc.constant(`!${k}`),
  ),
);
export const selectorArb: fc.Arbitrary<string> = fc
  .array(requirementArb, { minLength: 1, maxLength: 3 })
  .map((rs) => rs.join(' and '));

/** ` in "ZONE"`, or nothing. */
const inZone = (z: string | null | undefined): string => (z ? ` in "${z}"` : '');

const windowArb = (duration: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.tuple(cronArb, duration, fc.option(zoneArb)).map(([c, d, z]) => `"${c}" for ${d}${inZone(z)}`);

const pad = (n: number, w: number): string => String(n).padStart(w, '0');
/** Freeze instants from year 0000 to 9999, as wall time or RFC 3339 with extreme offsets. */
const timestampArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '0000-01-01 00:00',
    '1970-01-01 00:00',
    '2000-02-29 12:00',
    '9999-12-31 23:59',
    '9999-12-31T23:59:59Z',
    '0000-01-01T00:00:00+23:59',
    '9999-12-31T23:59:59-23:59',
    '9999-12-31T23:59:59-99:99',
    '2026-03-29 02:30',
    '2026-10-25 02:30:00',
  ),
  fc
    .tuple(
      fc.integer({ min: 0, max: 9999 }),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 28 }),
      fc.integer({ min: 0, max: 23 }),
      fc.integer({ min: 0, max: 59 }),
    )
    .map(([y, mo, d, h, mi]) => `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)} ${pad(h, 2)}:${pad(mi, 2)}`),
);

export const statementArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'consolidate never',
    'consolidate when empty',
    'consolidate when balanced',
    'consolidate after never',
  ),
  durationArb.map((d) => `consolidate when empty or underutilized after ${d}`),
  durationArb.map((d) => `consolidate after ${d}`),
  durationArb.map((d) => `expire after ${d}`),
  durationArb.map((d) => `expire after ${d} gracefully`),
  fc.constant('expire never'),
  durationArb.map((d) => `termination grace ${d}`),
  zoneArb.map((z) => `timezone "${z}"`),
  fc
    .tuple(quantityArb, fc.option(reasonsArb), fc.option(windowArb(minuteDurationArb)))
    .map(([q, r, w]) => `budget ${q}${r ? ` for ${r}` : ''}${w ? ` during ${w}` : ''}`),
  // Rate budgets (issue 15): any duration, so check's 1m…7d and 1000 bounds are probed from both sides.
  fc
    .tuple(quantityArb, durationArb, fc.option(reasonsArb), fc.option(windowArb(minuteDurationArb)))
    .map(([q, d, r, w]) => `budget ${q} per ${d}${r ? ` for ${r}` : ''}${w ? ` during ${w}` : ''}`),
  fc
    .tuple(quantityArb, fc.option(reasonsArb), windowArb(minuteDurationArb))
    .map(([q, r, w]) => `allow ${q}${r ? ` ${r}` : ''} only during ${w}`),
  fc
    .tuple(fc.option(reasonsArb), timestampArb, timestampArb, fc.option(zoneArb))
    .map(([r, a, b, z]) => `freeze${r ? ` ${r}` : ''} from "${a < b ? a : b}" to "${a < b ? b : a}"${inZone(z)}`),
  fc
    .tuple(
      fc.option(selectorArb),
      fc.constantFrom('only', 'never'),
      windowArb(podDurationArb),
      fc.option(fc.constantFrom('ml', 'shop, batch')),
    )
    .map(
      ([s, mode, w, ns]) =>
        `pods${s ? ` where ${s}` : ''}${ns ? ` in namespace ${ns}` : ''} disruptable ${mode} during ${w}`,
    ),
  fc
    .tuple(
      fc.integer({ min: 0, max: 99 }),
      reasonsArb,
      fc.option(selectorArb),
      fc.array(windowArb(minuteDurationArb), { maxLength: 3 }),
    )
    .map(
      ([i, r, s, ws]) =>
        `window w${i} blocks ${r}${s ? ` on nodes where ${s}` : ''}${ws.length ? ` during ${ws.join(', ')}` : ''}`,
    ),
  fc
    .tuple(fc.integer({ min: 0, max: 3 }), fc.option(minuteDurationArb), fc.option(zoneArb))
    .map(([i, d, z]) => `budget 0 during sched${i}${d ? ` for ${d}` : ''}${z ? ` in "${z}"` : ''}`),
);

const scheduleDeclArb = (i: number): fc.Arbitrary<string> =>
  fc
    .tuple(cronArb, minuteDurationArb, fc.option(zoneArb))
    .map(([c, d, z]) => `schedule sched${i} = "${c}" for ${d}${inZone(z)}`);

/** Settings may be written once per policy (KPOL2010): keep the first of each. */
function settingsOnce(statements: string[]): string[] {
  const seen = new Set<string>();
  return statements.filter((s) => {
    const word = s.split(' ')[0]!;
    if (!['consolidate', 'expire', 'termination', 'timezone'].includes(word)) return true;
    if (seen.has(word)) return false;
    seen.add(word);
    return true;
  });
}

/** A whole file: the schedules statements may name, then one or two policies over default and gpu. */
export const policyFileArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.tuple(scheduleDeclArb(0), scheduleDeclArb(1), scheduleDeclArb(2), scheduleDeclArb(3)),
    fc.array(statementArb, { minLength: 1, maxLength: 6 }),
    fc.option(fc.array(statementArb, { minLength: 0, maxLength: 4 })),
    fc.option(selectorArb),
  )
  .map(([decls, first, second, poolSel]) => {
    const out = [...decls];
    const body = (statements: string[]) => settingsOnce(statements).map((s) => `  ${s}`);
    out.push(`policy p0 for nodepool default${second ? '' : ', gpu'} {`, ...body(first), '}');
    if (second) {
      const target = poolSel ? `nodepools where ${poolSel}` : 'nodepool gpu';
      out.push(`policy p1 for ${target} {`, ...body(second), '}');
    }
    return `${out.join('\n')}\n`;
  });

/** Instants in the supported range, 0000-01-01T00:00:00Z … 9999-12-31T23:59:59.999Z, edges weighted. */
export const MIN_INSTANT = Date.parse('0000-01-01T00:00:00Z');
export const MAX_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
export const instantArb: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    MIN_INSTANT,
    MAX_INSTANT,
    0,
    Date.UTC(2000, 1, 29),
    Date.UTC(9996, 1, 29, 23, 59),
    Date.UTC(2026, 2, 29, 1, 30),
  ),
  fc.integer({ min: MIN_INSTANT, max: MAX_INSTANT }),
);
