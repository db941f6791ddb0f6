// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { checkSource } from '../../../rules/checks/check.js';
import { inPolicy } from './helpers.js';

const specOf = (text: string) => {
  const { value, diagnostics } = checkSource(text);
  expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return value[0];
};

describe('lowering to PolicySpec', () => {
  it('applies Karpenter defaults to an empty policy', () => {
    const spec = specOf('policy p for nodepool a, b {\n}\n');
    expect(spec).toEqual({
      name: 'p',
      origin: 'kpol',
      target: { kind: 'names', names: ['a', 'b'] },
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfterSeconds: 0,
      expireAfterSeconds: undefined,
      expiration: 'forceful',
      budgets: [{ id: 'b0', nodes: { kind: 'percent', value: 10 }, reasons: null, mode: 'budget' }],
      freezes: [],
      podWindows: [],
      maintenanceWindows: [],
    });
  });

  it('lowers settings', () => {
    const spec = specOf(inPolicy('consolidate when empty after 5m', 'expire never', 'termination grace 24h'));
    expect(spec.consolidationPolicy).toBe('WhenEmpty');
    expect(spec.consolidateAfterSeconds).toBe(300);
    expect(spec.expireAfterSeconds).toBeNull();
    expect(spec.terminationGracePeriodSeconds).toBe(86400);
  });

  it.each([
    ['consolidate when balanced', 'Balanced', 0],
    ['consolidate when empty or underutilized after never', 'WhenEmptyOrUnderutilized', null],
    ['consolidate never', 'WhenEmptyOrUnderutilized', null],
  ])('%s', (stmt, policy, after) => {
    const spec = specOf(inPolicy(stmt));
    expect(spec.consolidationPolicy).toBe(policy);
    expect(spec.consolidateAfterSeconds).toBe(after);
  });

  it('numbers budgets and allow windows together in statement order', () => {
    const spec = specOf(
      inPolicy(
        'budget 20% for Empty, Drifted',
        'allow 3 Drifted only during "0 1 * * mon-fri" for 4h in "Europe/Berlin"',
        'budget 5',
      ),
    );
    expect(spec.budgets.map((b) => [b.id, b.mode, b.nodes, b.reasons])).toEqual([
      ['b0', 'budget', { kind: 'percent', value: 20 }, ['Empty', 'Drifted']],
      ['b1', 'allow', { kind: 'count', value: 3 }, ['Drifted']],
      ['b2', 'budget', { kind: 'count', value: 5 }, null],
    ]);
    expect(spec.budgets[1].window).toEqual({ cron: '0 1 * * 1-5', durationSeconds: 14400, timeZone: 'Europe/Berlin' });
  });

  it('keeps only the written budgets once one is written', () => {
    expect(specOf(inPolicy('budget 1 for Drifted', 'budget 2')).budgets).toHaveLength(2);
  });

  it('applies the policy time zone to windows without their own', () => {
    const spec = specOf(
      inPolicy('timezone "Asia/Tokyo"', 'budget 0 during "@daily" for 1h', 'budget 1 during "@daily" for 1h in "UTC"'),
    );
    expect(spec.budgets.map((b) => b.window?.timeZone)).toEqual(['Asia/Tokyo', 'UTC']);
  });

  it('lets a window override its named schedule', () => {
    const text =
      `schedule nightly = "0 1 * * *" for 2h in ` +
      `"Europe/Paris"\n${inPolicy('budget 0 during nightly', 'budget 1 during nightly for 3h in "UTC"')}`;
    expect(specOf(text).budgets.map((b) => b.window)).toEqual([
      { cron: '0 1 * * *', durationSeconds: 7200, timeZone: 'Europe/Paris' },
      { cron: '0 1 * * *', durationSeconds: 10800, timeZone: 'UTC' },
    ]);
  });

  it('keeps an unknown zone so the window fails closed at evaluation', () => {
    const { value } = checkSource(inPolicy('budget 0 during "@daily" for 1h in "Nowhere/Land"'));
    expect(value[0].budgets[0].window?.timeZone).toBe('Nowhere/Land');
  });

  it('marks a budget with an invalid window as failing closed', () => {
    const { value } = checkSource(inPolicy('budget 5 during "0 0 * * 7" for 1h'));
    expect(value[0].budgets[0].error).toMatch(/day-of-week `7`/);
  });

  it('lowers freezes in the policy zone with ids', () => {
    const spec = specOf(
      inPolicy(
        'timezone "Europe/Berlin"',
        'freeze Drifted from "2026-12-20 00:00" to "2027-01-02 00:00"',
        'freeze from "2026-06-01T00:00:00Z" to "2026-06-02 00:00" in "UTC"',
      ),
    );
    expect(spec.freezes.map(({ source: _s, ...f }) => f)).toEqual([
      {
        id: 'f0',
        reasons: ['Drifted'],
        range: { fromMs: Date.parse('2026-12-19T23:00:00Z'), toMs: Date.parse('2027-01-01T23:00:00Z') },
      },
      {
        id: 'f1',
        reasons: null,
        range: { fromMs: Date.parse('2026-06-01T00:00:00Z'), toMs: Date.parse('2026-06-02T00:00:00Z') },
      },
    ]);
  });

  it('widens a freeze in an unknown zone to every instant it could mean', () => {
    const { value } = checkSource(inPolicy('freeze from "2026-12-20 00:00" to "2026-12-21 00:00" in "Nowhere/Land"'));
    expect(value[0].freezes[0].range).toEqual({
      fromMs: Date.parse('2026-12-19T10:00:00Z'),
      toMs: Date.parse('2026-12-21T12:00:00Z'),
    });
  });

  it('lowers pod windows and maintenance windows', () => {
    const spec = specOf(
      inPolicy(
        'pods where app = "ml-training" and tier in (a, b) in namespace ml disruptable only during ' +
          '"0 2 * * sat" for 6h',
        'window zone-a blocks Underutilized, Drifted on nodes where topology.kubernetes.io/zone in ' +
          '(us-west-2a) during "0 9 * * 1-5" for 8h',
        'budget 1',
      ),
    );
    expect(spec.podWindows.map(({ source: _s, ...p }) => p)).toEqual([
      {
        id: 'p0',
        selector: [
          { key: 'app', operator: 'In', values: ['ml-training'] },
          { key: 'tier', operator: 'In', values: ['a', 'b'] },
        ],
        namespaces: ['ml'],
        mode: 'only',
        window: { cron: '0 2 * * 6', durationSeconds: 21600, timeZone: 'UTC' },
      },
    ]);
    expect(spec.maintenanceWindows.map(({ source: _s, ...w }) => w)).toEqual([
      {
        id: 'w:zone-a',
        name: 'zone-a',
        reasons: ['Underutilized', 'Drifted'],
        nodeSelector: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['us-west-2a'] }],
        windows: [{ cron: '0 9 * * 1-5', durationSeconds: 28800, timeZone: 'UTC' }],
      },
    ]);
  });

  it('lowers a selector target', () => {
    const spec = specOf('policy p for nodepools where team = "ml", !spot {\n}\n');
    expect(spec.target).toEqual({
      kind: 'selector',
      selector: [
        { key: 'team', operator: 'In', values: ['ml'] },
        { key: 'spot', operator: 'DoesNotExist', values: [] },
      ],
    });
  });

  it('records the file name', () => {
    expect(checkSource('policy p for nodepool a {\n}\n', 'x.kpol').value[0].file).toBe('x.kpol');
  });
});
