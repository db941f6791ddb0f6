// SPDX-License-Identifier: Apache-2.0
// Property: for every policy Karpenter can express, import(export(p)) evaluates identically to
// p at random instants — same budgets, same allowances, same candidates.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exportNodePool, policyToNodePoolDisruption } from '../../rules/karpenter-export.js';
import { nodePoolToPolicy } from '../../rules/karpenter-import.js';
import type { BudgetSpec, PolicySpec, Reason } from '../../rules/model.js';
import { loadSnapshot } from '../../src/core/cluster/snapshot.js';
import { indexCluster } from '../../src/core/cluster/state.js';
import type { KubeObject } from '../../src/core/cluster/types.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { makeNodePool, makePod, makePool, toList } from '../support/cluster-builder.js';

const objects: KubeObject[] = [makeNodePool('default', { consolidateAfter: '0s' }), ...makePool('default', 7, 0)];
objects.push(makePod('busy', (objects[2] as { metadata: { name: string } }).metadata.name));
const { snapshot } = loadSnapshot(JSON.stringify(toList(objects)), 'rt.json');
const index = indexCluster(snapshot!);

const reasonsArb = fc.option(fc.subarray<Reason>(['Empty', 'Drifted', 'Underutilized'], { minLength: 1 }), {
  nil: null,
});
const quantityArb = fc.oneof(
  fc.integer({ min: 0, max: 10 }).map((value) => ({ kind: 'count' as const, value })),
  fc.integer({ min: 0, max: 100 }).map((value) => ({ kind: 'percent' as const, value })),
);
// Weekly schedules (what an allow window can be complemented from) in UTC or a fixed-offset zone.
const cronArb = fc
  .record({
    minute: fc.constantFrom(0, 15, 30),
    hour: fc.integer({ min: 0, max: 23 }),
    dow: fc.constantFrom('*', 'mon-fri', 'sat,sun', '1', '0,3,5'),
  })
  .map((c) => `${c.minute} ${c.hour} * * ${c.dow}`);
const windowArb = fc.record({
  cron: fc.oneof(cronArb, fc.constantFrom('@daily', '@hourly', '@weekly')),
  durationSeconds: fc.constantFrom(600, 3600, 4 * 3600, 10 * 3600 + 1800, 30 * 3600),
  timeZone: fc.constantFrom('UTC', 'Asia/Kolkata', 'Asia/Tokyo'),
});
const budgetArb = fc
  .record({
    nodes: quantityArb,
    reasons: reasonsArb,
    mode: fc.constantFrom<'budget' | 'allow'>('budget', 'allow'),
    window: fc.option(windowArb, { nil: undefined }),
  })
  .map((b) => ({
    ...b,
    window: b.mode === 'allow' ? (b.window ?? { cron: '@daily', durationSeconds: 3600, timeZone: 'UTC' }) : b.window,
  }));

const policyArb = fc
  .record({
    budgets: fc.array(budgetArb, { maxLength: 4 }),
    consolidationPolicy: fc.constantFrom<PolicySpec['consolidationPolicy']>(
      'WhenEmpty',
      'WhenEmptyOrUnderutilized',
      'Balanced',
    ),
    consolidateAfterSeconds: fc.constantFrom<number | null>(0, 300, null),
  })
  .map((r): PolicySpec => ({
    name: 'p',
    origin: 'kpol',
    target: { kind: 'names', names: ['default'] },
    consolidationPolicy: r.consolidationPolicy,
    consolidateAfterSeconds: r.consolidateAfterSeconds,
    expireAfterSeconds: undefined,
    expiration: 'forceful',
    freezes: [],
    podWindows: [],
    maintenanceWindows: [],
    budgets: r.budgets.map((b, i): BudgetSpec => ({ id: `b${i}`, ...b, ...(b.window ? { window: b.window } : {}) })),
  }));

const instantArb = fc
  .integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2027-01-01T00:00:00Z') })
  .map((ms) => Math.floor(ms / 60000) * 60000);

describe('import(export(p)) ≡ p', () => {
  it('at random instants, for policies Karpenter can express', async () => {
    await fc.assert(
      fc.asyncProperty(policyArb, fc.array(instantArb, { minLength: 3, maxLength: 6 }), async (p, instants) => {
        // not exactly expressible: reported, not compared
        if (policyToNodePoolDisruption(p).findings.length > 0) return;
        const [np] = exportNodePool(p);
        const { policy: back, diagnostics } = nodePoolToPolicy(np);
        expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        const kpolPolicy = { ...back, origin: 'kpol' as const };
        for (const at of instants) {
          const a = await new Evaluator().evaluate(index, [p], at);
          const b = await new Evaluator().evaluate(index, [kpolPolicy], at);
          expect(b.nodePools.default.allowed, new Date(at).toISOString()).toEqual(a.nodePools.default.allowed);
          expect(b.nodes).toEqual(a.nodes);
        }
      }),
      { numRuns: 60 },
    );
  });
  it('the generator does produce exportable allow windows (the property is not vacuous)', () => {
    const sample = fc
      .sample(policyArb, 200)
      .filter((p) => p.budgets.some((b) => b.mode === 'allow') && policyToNodePoolDisruption(p).findings.length === 0);
    expect(sample.length).toBeGreaterThan(20);
  });
});
