// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { exportNodePool, policyToNodePoolDisruption } from '../../../rules/karpenter-export.js';
import { nodePoolToPolicy } from '../../../rules/karpenter-import.js';
import { utcWindowsFor } from '../../../rules/karpenter-utc-windows.js';
import type { BudgetSpec, PolicySpec } from '../../../rules/model.js';
import { makeNodePool } from '../../support/cluster-builder.js';
import { seq } from '../../support/regex.js';

function policy(over: Partial<PolicySpec> = {}): PolicySpec {
  return {
    name: 'p',
    origin: 'kpol',
    target: { kind: 'names', names: ['default'] },
    consolidationPolicy: 'WhenEmptyOrUnderutilized',
    consolidateAfterSeconds: 300,
    expireAfterSeconds: 720 * 3600,
    expiration: 'forceful',
    budgets: [],
    freezes: [],
    podWindows: [],
    maintenanceWindows: [],
    ...over,
  };
}
const budget = (b: Partial<BudgetSpec>): BudgetSpec => ({
  id: 'b0',
  nodes: { kind: 'count', value: 1 },
  reasons: null,
  mode: 'budget',
  ...b,
});
const utc = (cron: string, durationSeconds: number, timeZone = 'UTC') => ({ cron, durationSeconds, timeZone });

describe('policyToNodePoolDisruption', () => {
  it('exports UTC budgets as written, with h/m durations', () => {
    const out = policyToNodePoolDisruption(
      policy({
        terminationGracePeriodSeconds: 86400,
        budgets: [
          budget({ id: 'b0', nodes: { kind: 'percent', value: 20 }, reasons: ['Empty', 'Drifted'] }),
          budget({ id: 'b1', nodes: { kind: 'count', value: 5 } }),
          budget({
            id: 'b2',
            nodes: { kind: 'count', value: 0 },
            reasons: ['Underutilized'],
            window: utc('@daily', 600),
          }),
          budget({ id: 'b3', nodes: { kind: 'count', value: 2 }, reasons: [], window: utc('0 9 * * 1-5', 5400) }),
          budget({ id: 'b4', nodes: { kind: 'count', value: 0 }, window: utc('@hourly', 0) }),
        ],
      }),
    );
    expect(out).toEqual({
      disruption: {
        consolidationPolicy: 'WhenEmptyOrUnderutilized',
        consolidateAfter: '5m',
        budgets: [
          { nodes: '20%', reasons: ['Empty', 'Drifted'] },
          { nodes: '5' },
          { nodes: '0', reasons: ['Underutilized'], schedule: '@daily', duration: '10m' },
          { nodes: '2', reasons: [], schedule: '0 9 * * 1-5', duration: '1h30m' },
          { nodes: '0', schedule: '@hourly', duration: '0m' },
        ],
      },
      template: { expireAfter: '720h', terminationGracePeriod: '24h' },
      findings: [],
    });
  });

  it('writes Never and leaves expireAfter out when the policy keeps the NodePool own', () => {
    const out = policyToNodePoolDisruption(policy({ consolidateAfterSeconds: null, expireAfterSeconds: undefined }));
    expect(out.disruption.consolidateAfter).toBe('Never');
    expect(out.template).toEqual({});
    expect(policyToNodePoolDisruption(policy({ expireAfterSeconds: null })).template).toEqual({ expireAfter: 'Never' });
  });

  it('shifts a window in a fixed-offset zone to UTC exactly', () => {
    const out = policyToNodePoolDisruption(
      policy({
        budgets: [budget({ nodes: { kind: 'count', value: 0 }, window: utc('30 1 * * 1-5', 3600, 'Asia/Kolkata') })],
      }),
    );
    // 01:30 IST (UTC+5:30) Mon-Fri = 20:00 UTC Sun-Thu
    expect(out.disruption.budgets).toEqual([{ nodes: '0', schedule: '0 20 * * 0-4', duration: '1h' }]);
    expect(out.findings).toEqual([]);
  });

  it('keeps a window in a DST zone always active, with a finding', () => {
    const out = policyToNodePoolDisruption(
      policy({
        budgets: [
          budget({ id: 'b7', nodes: { kind: 'count', value: 3 }, window: utc('0 9 * * *', 3600, 'Europe/Berlin') }),
        ],
      }),
    );
    expect(out.disruption.budgets).toEqual([{ nodes: '3' }]);
    expect(out.findings).toHaveLength(1);
    expect(out.findings[0].feature).toBe('timezone');
    expect(out.findings[0].message).toMatch(
      seq(
        /^cannot express window "0 9 \* \* \*" for 1h in "Europe\/Berlin" of budget b7 in UTC: /,
        /.*daylight saving.*; exported as always active$/,
      ),
    );
  });

  it('exports an allow window as an always-on budget plus nodes "0" on its complement', () => {
    const out = policyToNodePoolDisruption(
      policy({
        budgets: [
          budget({
            mode: 'allow',
            nodes: { kind: 'count', value: 3 },
            reasons: ['Drifted'],
            window: utc('0 2 * * *', 4 * 3600),
          }),
        ],
      }),
    );
    expect(out.findings).toEqual([]);
    expect(out.disruption.budgets).toEqual([
      { nodes: '3', reasons: ['Drifted'] },
      { nodes: '0', reasons: ['Drifted'], schedule: '0 6 * * *', duration: '20h' },
    ]);
  });

  it('reports an allow window it cannot express and blocks instead', () => {
    const out = policyToNodePoolDisruption(
      policy({
        budgets: [
          budget({ id: 'b1', mode: 'allow', nodes: { kind: 'count', value: 3 }, window: utc('0 2 1 * *', 3600) }),
        ],
      }),
    );
    expect(out.disruption.budgets).toEqual([{ nodes: '0' }]);
    expect(out.findings).toEqual([
      {
        feature: 'allow',
        message:
          'cannot express allow window "0 2 1 * *" for 1h in "UTC" of budget b1: the schedule ' +
          'restricts days of the month, so it does not repeat every week; exported as `nodes: "0"` ' +
          '(always blocked)',
      },
    ]);
  });

  it('reports freezes, pod windows, selected maintenance windows, graceful expiration and Expired', () => {
    const out = policyToNodePoolDisruption(
      policy({
        expiration: 'graceful',
        budgets: [budget({ reasons: ['Expired'] }), budget({ id: 'b1', reasons: ['Expired', 'Drifted'] })],
        freezes: [
          {
            id: 'f0',
            name: 'holidays',
            reasons: null,
            range: { fromMs: Date.UTC(2026, 11, 20), toMs: Date.UTC(2027, 0, 2) },
          },
        ],
        podWindows: [
          {
            id: 'pw0',
            selector: [{ key: 'app', operator: 'In', values: ['db'] }],
            namespaces: [],
            mode: 'only',
            window: utc('@daily', 3600),
          },
        ],
        maintenanceWindows: [
          {
            id: 'm0',
            name: 'gpu',
            reasons: null,
            nodeSelector: [{ key: 'gpu', operator: 'Exists', values: [] }],
            windows: [],
          },
        ],
      }),
    );
    expect(out.disruption.budgets).toEqual([{ nodes: '1', reasons: ['Drifted'] }]);
    expect(out.findings.map((f) => f.feature)).toEqual([
      'Expired',
      'Expired',
      'freeze',
      'pod window',
      'maintenance window',
      'graceful expiration',
    ]);
    expect(out.findings[2].message).toBe(
      'freeze holidays (2026-12-20T00:00:00.000Z to 2027-01-02T00:00:00.000Z) has no Karpenter ' +
        'equivalent: budget schedules recur and cannot name a date range',
    );
  });

  it('exports a maintenance window without node selector as nodes "0" budgets', () => {
    const out = policyToNodePoolDisruption(
      policy({
        maintenanceWindows: [
          {
            id: 'm0',
            name: 'business',
            reasons: ['Underutilized', 'Drifted'],
            nodeSelector: [],
            windows: [utc('0 9 * * 1-5', 8 * 3600), utc('0 0 * * 0', 3600, 'Etc/GMT-2')],
          },
          { id: 'm1', name: 'always', reasons: null, nodeSelector: [], windows: [] },
        ],
      }),
    );
    expect(out.findings).toEqual([]);
    expect(out.disruption.budgets).toEqual([
      { nodes: '0', reasons: ['Underutilized', 'Drifted'], schedule: '0 9 * * 1-5', duration: '8h' },
      { nodes: '0', reasons: ['Underutilized', 'Drifted'], schedule: '0 22 * * 6', duration: '1h' },
      { nodes: '0' },
    ]);
  });

  it('exports an invalid budget as nodes "0" and an invalid schedule as written, with findings', () => {
    const out = policyToNodePoolDisruption(
      policy({
        budgets: [
          budget({ error: 'invalid type: string is not a percentage' }),
          budget({ id: 'b1', window: { ...utc('@dailyfoo', 600), error: 'unrecognized descriptor: @dailyfoo' } }),
        ],
      }),
    );
    expect(out.disruption.budgets).toEqual([{ nodes: '0' }, { nodes: '1', schedule: '@dailyfoo', duration: '10m' }]);
    expect(out.findings.map((f) => f.feature)).toEqual(['budget', 'window']);
  });

  it('exports an imported pool with a runtime-invalid schedule unchanged (it fails closed the same way)', () => {
    const np = makeNodePool('default', { budgets: [{ nodes: '1', schedule: '0 0 * * 7', duration: '1h' }] });
    const out = policyToNodePoolDisruption(nodePoolToPolicy(np).policy);
    expect(out.disruption.budgets).toEqual([{ nodes: '1', schedule: '0 0 * * 7', duration: '1h' }]);
    expect(out.findings.map((f) => f.feature)).toEqual(['window']);
  });

  it('rounds sub-minute window durations up, with a finding', () => {
    const out = policyToNodePoolDisruption(policy({ budgets: [budget({ window: utc('@daily', 90) })] }));
    expect(out.disruption.budgets[0].duration).toBe('2m');
    expect(out.findings).toHaveLength(1);
  });
});

describe('utcWindowsFor', () => {
  it.each([
    [utc('@daily', 600), [{ cron: '@daily', durationSeconds: 600 }]],
    [utc('0 23 * * 5', 3600, 'Etc/GMT+2'), [{ cron: '0 1 * * 6', durationSeconds: 3600 }]],
    [utc('0 1,23 * * *', 60, 'Etc/GMT-2'), [{ cron: '0 21,23 * * *', durationSeconds: 60 }]],
  ])('%j', (spec, windows) => {
    expect(utcWindowsFor(spec)).toEqual({ ok: true, windows });
  });
});

describe('exportNodePool', () => {
  it('returns one NodePool per target name, keeping the base template', () => {
    const base = makeNodePool('old', { budgets: [{ nodes: '1' }], expireAfter: '24h' });
    base.status = { conditions: [] };
    const pools = exportNodePool(policy({ target: { kind: 'names', names: ['a', 'b'] }, budgets: [budget({})] }), base);
    expect(pools.map((p) => p.metadata.name)).toEqual(['a', 'b']);
    expect(pools[0]).toMatchObject({ apiVersion: 'karpenter.sh/v1', kind: 'NodePool' });
    expect(pools[0].status).toBeUndefined();
    expect(pools[0].metadata.annotations).toBeUndefined();
    expect(pools[0].spec.template?.spec?.requirements).toEqual(base.spec.template?.spec?.requirements);
    expect(pools[0].spec.template?.spec?.expireAfter).toBe('720h');
    expect(pools[0].spec.disruption?.budgets).toEqual([{ nodes: '1' }]);
    expect(base.spec.disruption?.budgets).toEqual([{ nodes: '1' }]); // base untouched
  });
});

describe('export → import round trip', () => {
  it.each([
    [
      'the docs example',
      [
        budget({ id: 'b0', nodes: { kind: 'percent', value: 20 }, reasons: ['Empty', 'Drifted'] }),
        budget({ id: 'b1', nodes: { kind: 'count', value: 5 } }),
        budget({
          id: 'b2',
          nodes: { kind: 'count', value: 0 },
          reasons: ['Underutilized'],
          window: utc('@daily', 600),
        }),
      ],
    ],
    ['no budgets', []],
    [
      'reasons [] and a weekday window',
      [budget({ reasons: [] }), budget({ id: 'b1', window: utc('0 9 * * 1-5', 8 * 3600 + 1800) })],
    ],
  ])('%s', (_, budgets) => {
    const original = policy({
      name: 'default',
      origin: 'karpenter',
      budgets,
      terminationGracePeriodSeconds: 3600,
      consolidateAfterSeconds: null,
      consolidationPolicy: 'WhenEmpty',
    });
    const [np] = exportNodePool(original);
    const { policy: back, diagnostics } = nodePoolToPolicy(np);
    expect(diagnostics).toEqual([]);
    expect(back).toEqual(original);
  });
});

describe('export of cluster and selector budgets (issue 15)', () => {
  it('reports each as not expressible and exports no per-pool copy (which would over-allow in sum)', () => {
    const base = { nodes: { kind: 'count' as const, value: 2 }, reasons: ['Drifted' as const] };
    const out = policyToNodePoolDisruption(
      policy({
        budgets: [budget({ nodes: { kind: 'count', value: 5 } })],
        scopedBudgets: [
          {
            ...base,
            id: 'cluster:p:1',
            statement: 'cluster budget 2 for Drifted',
            at: 'p.kpol:1',
            scope: { kind: 'cluster', nodePools: null, owners: ['p'] },
          },
          {
            ...base,
            id: 'p/s0',
            statement: 'budget 2 for Drifted on nodes where zone = a',
            at: 'p.kpol:4',
            scope: { kind: 'nodes', selector: [{ key: 'zone', operator: 'In', values: ['a'] }] },
          },
        ],
      }),
    );
    expect(out.disruption.budgets).toEqual([{ nodes: '5' }]);
    expect(out.findings.map((f) => f.feature)).toEqual(['cluster budget', 'selector budget']);
    expect(out.findings[0].message).toContain('cluster budget 2 for Drifted (p.kpol:1) has no Karpenter equivalent');
    expect(out.findings[1].message).toContain('cannot select its nodes by label');
  });
});

describe('issue 15: reason buckets and pod protection in a static NodePool', () => {
  it('exports a `per reason` bucket as the same shared budget (stricter) and says so', () => {
    const out = policyToNodePoolDisruption(
      policy({
        budgets: [budget({ nodes: { kind: 'count', value: 2 }, reasons: ['Drifted'], perReason: true })],
        podWindows: [
          { id: 'p0', selector: [], namespaces: ['kube-system'], mode: 'never', reasons: ['Underutilized'] },
        ],
      }),
    );
    expect(out.disruption.budgets).toEqual([{ nodes: '2', reasons: ['Drifted'] }]);
    expect(out.findings.map((f) => f.feature)).toEqual(['reason bucket', 'pod protection']);
    expect(out.findings[0]!.message).toMatch(/^budget b0 is `per reason`, an independent bucket per reason/);
    expect(out.findings[1]!.message).toMatch(/^pod protection p0 \(never Underutilized\) has no Karpenter equivalent/);
  });
});
