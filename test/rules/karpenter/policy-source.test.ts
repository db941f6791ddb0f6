// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { parse } from '../../../grammar/parse.js';
import { checkSource } from '../../../rules/checks/check.js';
import { nodePoolToPolicy } from '../../../rules/karpenter-import.js';
import type { BudgetSpec, PolicySpec } from '../../../rules/model.js';
import { policyToSource } from '../../../rules/policy-source.js';
import { makeNodePool } from '../../support/cluster-builder.js';

const docs = nodePoolToPolicy(
  makeNodePool('default', {
    consolidateAfter: '5m',
    terminationGracePeriod: '24h',
    budgets: [
      { nodes: '20%', reasons: ['Empty', 'Drifted'] },
      { nodes: '5' },
      { nodes: '0', schedule: '@daily', duration: '10m', reasons: ['Underutilized'] },
    ],
  }),
).policy;

const utc = (cron: string, durationSeconds: number, timeZone = 'UTC') => ({ cron, durationSeconds, timeZone });

const rich: PolicySpec = {
  ...docs,
  name: 'rich',
  origin: 'kpol',
  target: { kind: 'selector', selector: [{ key: 'team', operator: 'In', values: ['a'] }] },
  consolidationPolicy: 'Balanced',
  consolidateAfterSeconds: null,
  expiration: 'graceful',
  budgets: [
    {
      id: 'b0',
      nodes: { kind: 'count', value: 3 },
      reasons: ['Drifted', 'Expired'],
      mode: 'allow',
      window: utc('0 2 * * 1-5', 4 * 3600, 'Europe/Berlin'),
    },
    { id: 'b1', nodes: { kind: 'percent', value: 10 }, reasons: null, mode: 'budget' },
  ],
  freezes: [{ id: 'f0', reasons: ['Drifted'], range: { fromMs: Date.UTC(2026, 11, 20), toMs: Date.UTC(2027, 0, 2) } }],
  podWindows: [
    {
      id: 'pw0',
      selector: [
        { key: 'app.kubernetes.io/name', operator: 'In', values: ['db'] },
        { key: 'tier', operator: 'NotIn', values: ['x', 'y'] },
      ],
      namespaces: ['data', 'ops'],
      mode: 'only',
      window: utc('0 3 * * 0', 7200),
    },
    {
      id: 'pw1',
      selector: [{ key: 'batch', operator: 'Exists', values: [] }],
      namespaces: [],
      mode: 'never',
      window: utc('@hourly', 600, 'Asia/Tokyo'),
    },
  ],
  maintenanceWindows: [
    {
      id: 'm0',
      name: 'gpu',
      reasons: ['Underutilized'],
      nodeSelector: [{ key: 'gpu', operator: 'DoesNotExist', values: [] }],
      windows: [utc('0 9 * * 1-5', 8 * 3600), utc('0 0 1 * *', 3600)],
    },
    { id: 'm1', name: 'always', reasons: ['Empty'], nodeSelector: [], windows: [] },
  ],
};

/** What survives printing and checking: no ids, ranges, file or origin. */
function comparable(p: PolicySpec): unknown {
  const strip = <T extends { id?: string; source?: unknown }>(xs: T[]) =>
    xs.map(({ id: _id, source: _s, ...rest }) => rest);
  const { origin: _o, file: _f, ...rest } = p;
  return {
    ...rest,
    budgets: strip(p.budgets),
    freezes: strip(p.freezes),
    podWindows: strip(p.podWindows),
    maintenanceWindows: strip(p.maintenanceWindows),
  };
}

describe('policyToSource', () => {
  it('prints the docs example', () => {
    expect(policyToSource(docs)).toBe(
      [
        'policy default for nodepool default {',
        '  consolidate when empty or underutilized after 5m',
        '  expire after 720h',
        '  termination grace 24h',
        '  budget 20% for Empty, Drifted',
        '  budget 5',
        '  budget 0 for Underutilized during "@daily" for 10m in "UTC"',
        '}',
        '',
      ].join('\n'),
    );
  });

  it.each([
    ['the docs example', docs],
    ['every feature', rich],
  ])('round-trips %s through parse and check', (_, policy) => {
    const text = policyToSource(policy);
    expect(parse(text).diagnostics).toEqual([]);
    const checked = checkSource(text, 'x.kpol');
    expect(checked.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(comparable(checked.value[0])).toEqual(comparable(policy));
  });

  it('prints a faithful stand-in where .kpol cannot say it', () => {
    const budgets: BudgetSpec[] = [
      { id: 'b0', nodes: { kind: 'count', value: 5 }, reasons: [], mode: 'budget' },
      {
        id: 'b1',
        nodes: { kind: 'count', value: 0 },
        reasons: null,
        mode: 'budget',
        error: 'invalid type: string is not a percentage',
      },
      {
        id: 'b2',
        nodes: { kind: 'count', value: 0 },
        reasons: ['Drifted'],
        mode: 'budget',
        window: { ...utc('@dailyfoo', 600), error: 'unrecognized descriptor: @dailyfoo' },
      },
    ];
    const text = policyToSource({ ...docs, budgets });
    expect(text).toContain('  # budget 5 with `reasons: []` applies to no reason and has no effect\n');
    expect(text).toContain(
      '  # budget 0 for Drifted during "@dailyfoo" for 10m in "UTC": invalid (unrecognized ' +
        'descriptor: @dailyfoo), so Karpenter allows no disruption for any reason\n  budget 0\n',
    );
    expect(parse(text).diagnostics).toEqual([]);
  });

  it('prints an explicit `budgets: []` as a budget that never applies (unlimited)', () => {
    const text = policyToSource({ ...docs, budgets: [] });
    const checked = checkSource(text, 'x.kpol');
    expect(checked.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(checked.value[0].budgets).toEqual([
      expect.objectContaining({
        nodes: { kind: 'count', value: 0 },
        reasons: null,
        window: { cron: '@yearly', durationSeconds: 0, timeZone: 'UTC' },
      }),
    ]);
  });
});
