// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { nodePoolToPolicy, parseBudgetNodes } from '../../../rules/karpenter-import.js';
import type { KarpenterBudget } from '../../../src/core/cluster/types.js';
import { makeNodePool, type NodePoolOptions } from '../../support/cluster-builder.js';

const lower = (o: NodePoolOptions) => nodePoolToPolicy(makeNodePool('default', o));
const budgetsOf = (budgets: KarpenterBudget[]) => lower({ budgets });

describe('nodePoolToPolicy', () => {
  it('lowers the KARPENTER.md#budget-example docs example exactly', () => {
    const { policy, diagnostics } = budgetsOf([
      { nodes: '20%', reasons: ['Empty', 'Drifted'] },
      { nodes: '5' },
      { nodes: '0', schedule: '@daily', duration: '10m', reasons: ['Underutilized'] },
    ]);
    expect(diagnostics).toEqual([]);
    expect(policy).toEqual({
      name: 'default',
      origin: 'karpenter',
      target: { kind: 'names', names: ['default'] },
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      consolidateAfterSeconds: 0,
      expireAfterSeconds: 2592000,
      expiration: 'forceful',
      budgets: [
        { id: 'b0', nodes: { kind: 'percent', value: 20 }, reasons: ['Empty', 'Drifted'], mode: 'budget' },
        { id: 'b1', nodes: { kind: 'count', value: 5 }, reasons: null, mode: 'budget' },
        {
          id: 'b2',
          nodes: { kind: 'count', value: 0 },
          reasons: ['Underutilized'],
          mode: 'budget',
          window: { cron: '@daily', durationSeconds: 600, timeZone: 'UTC' },
        },
      ],
      freezes: [],
      podWindows: [],
      maintenanceWindows: [],
    });
  });

  it('applies the defaults: one 10% budget, WhenEmptyOrUnderutilized, 0s, 720h, no TGP', () => {
    for (const np of [makeNodePool('p', { noDisruption: true }), makeNodePool('p')]) {
      const { policy, diagnostics } = nodePoolToPolicy(np);
      expect(diagnostics).toEqual([]);
      expect(policy.budgets).toEqual([
        { id: 'b0', nodes: { kind: 'percent', value: 10 }, reasons: null, mode: 'budget' },
      ]);
      expect(policy.consolidationPolicy).toBe('WhenEmptyOrUnderutilized');
      expect(policy.consolidateAfterSeconds).toBe(0);
      expect(policy.expireAfterSeconds).toBe(2592000);
      expect(policy.terminationGracePeriodSeconds).toBeUndefined();
    }
  });

  it('keeps an explicit `budgets: []` (unlimited) and `reasons: []` (applies to no reason)', () => {
    expect(budgetsOf([]).policy.budgets).toEqual([]);
    expect(budgetsOf([{ nodes: '0', reasons: [] }]).policy.budgets[0].reasons).toEqual([]);
  });

  it('reads Never, durations and TGP', () => {
    const { policy, diagnostics } = lower({
      consolidationPolicy: 'WhenEmpty',
      consolidateAfter: 'Never',
      expireAfter: 'Never',
      terminationGracePeriod: '24h',
    });
    expect(diagnostics).toEqual([]);
    expect([
      policy.consolidationPolicy,
      policy.consolidateAfterSeconds,
      policy.expireAfterSeconds,
      policy.terminationGracePeriodSeconds,
    ]).toEqual(['WhenEmpty', null, null, 86400]);
    expect(lower({ consolidateAfter: '1h30m5s', expireAfter: '168h' }).policy).toMatchObject({
      consolidateAfterSeconds: 5405,
      expireAfterSeconds: 604800,
    });
  });

  it.each([
    ['@dailyfoo', 'unrecognized descriptor: @dailyfoo'],
    ['* * * * * *', 'expected exactly 5 fields, found 6: [* * * * * *]'],
    ['0 0 * * 7', 'end of range (7) above maximum (6): 7'],
  ])('fails the pool closed on schedule %j (passes the CRD, fails robfig)', (schedule, error) => {
    const { policy, diagnostics } = budgetsOf([
      { nodes: '10%' },
      { nodes: '0', schedule, duration: '1h', reasons: ['Drifted'] },
    ]);
    expect(policy.budgets[1].window).toEqual({ cron: schedule, durationSeconds: 3600, timeZone: 'UTC', error });
    expect(policy.budgets[1].error).toBe(error);
    expect(diagnostics).toEqual([
      {
        path: 'NodePool/default: spec.disruption.budgets[1].schedule',
        message:
          `\`${schedule}\` passes the CRD but fails at runtime (${error}): Karpenter allows 0 ` +
          `disruptions for every reason of this NodePool`,
        severity: 'error',
      },
    ]);
  });

  it('fails closed on nodes `1000a%` and reports the CRD pattern', () => {
    const { policy, diagnostics } = budgetsOf([{ nodes: '1000a%' }]);
    expect(policy.budgets[0].error).toBe('invalid value "1000a%": strconv.Atoi: parsing "1000a": invalid syntax');
    expect(diagnostics.map((d) => d.path)).toEqual([
      'NodePool/default: spec.disruption.budgets[0].nodes',
      'NodePool/default: spec.disruption.budgets[0].nodes',
    ]);
    expect(diagnostics[0].message).toContain('does not match the CRD pattern');
  });

  it('rejects a schedule without duration (CEL rule) and treats it as an error', () => {
    const { policy, diagnostics } = budgetsOf([{ nodes: '0', schedule: '@daily' }]);
    expect(policy.budgets[0].error).toBe(`'schedule' must be set with 'duration'`);
    expect(diagnostics[0]).toEqual({
      path: 'NodePool/default: spec.disruption.budgets[0]',
      message: `'schedule' must be set with 'duration'`,
      severity: 'error',
    });
  });

  it.each([
    [{ nodes: '101%' }, 'spec.disruption.budgets[0].nodes'],
    [{ nodes: '-10' }, 'spec.disruption.budgets[0].nodes'],
    [{ nodes: '1', schedule: '@every 1h', duration: '1h' }, 'spec.disruption.budgets[0].schedule'],
    [{ nodes: '1', schedule: '@daily', duration: '90s' }, 'spec.disruption.budgets[0].duration'],
    [{ nodes: '1', reasons: ['expired'] }, 'spec.disruption.budgets[0].reasons[0]'],
    [{ nodes: '1', reasons: ['Empty', 'Empty'] }, 'spec.disruption.budgets[0].reasons[1]'],
  ] as const)('reports CRD violations: %j', (budget, path) => {
    const { diagnostics } = budgetsOf([budget as KarpenterBudget]);
    expect(diagnostics.map((d) => d.path)).toContain(`NodePool/default: ${path}`);
  });

  it('reports CRD violations of the durations and policy', () => {
    const { diagnostics, policy } = lower({
      consolidateAfter: 'never',
      expireAfter: '1.5h',
      consolidationPolicy: 'WhenUnderutilized',
      terminationGracePeriod: 'Never',
    });
    expect(diagnostics.map((d) => d.path.replace('NodePool/default: ', ''))).toEqual([
      'spec.disruption.consolidationPolicy',
      'spec.disruption.consolidateAfter',
      'spec.disruption.consolidateAfter',
      'spec.template.spec.expireAfter',
      'spec.template.spec.terminationGracePeriod',
      'spec.template.spec.terminationGracePeriod',
    ]);
    expect(policy.expireAfterSeconds).toBe(5400); // the runtime reads 1.5h
  });

  it('reports more than 50 budgets', () => {
    const { diagnostics, policy } = budgetsOf(Array.from({ length: 51 }, () => ({ nodes: '1' })));
    expect(policy.budgets).toHaveLength(51);
    expect(diagnostics).toEqual([
      {
        path: 'NodePool/default: spec.disruption.budgets',
        message: 'has 51 items, the CRD allows at most 50',
        severity: 'error',
      },
    ]);
  });

  it('keeps duration 0m (never active) and never-firing schedules as written', () => {
    const { policy, diagnostics } = budgetsOf([{ nodes: '0', schedule: '0 0 30 2 *', duration: '0m' }]);
    expect(diagnostics).toEqual([]);
    expect(policy.budgets[0].window).toMatchObject({ durationSeconds: 0, timeZone: 'UTC' });
  });
});

describe('parseBudgetNodes', () => {
  it.each([
    ['0', { ok: true, quantity: { kind: 'count', value: 0 } }],
    ['05', { ok: true, quantity: { kind: 'count', value: 5 } }],
    ['1000', { ok: true, quantity: { kind: 'count', value: 1000 } }],
    ['100%', { ok: true, quantity: { kind: 'percent', value: 100 } }],
    ['101%', { ok: true, quantity: { kind: 'percent', value: 101 } }],
    ['1000a%', { ok: false, error: 'invalid value "1000a%": strconv.Atoi: parsing "1000a": invalid syntax' }],
    ['10.5%', { ok: false, error: 'invalid value "10.5%": strconv.Atoi: parsing "10.5": invalid syntax' }],
    ['abc', { ok: false, error: 'invalid type: string is not a percentage' }],
    ['', { ok: false, error: 'invalid type: string is not a percentage' }],
  ])('%j', (text, expected) => {
    expect(parseBudgetNodes(text)).toEqual(expected);
  });
});
