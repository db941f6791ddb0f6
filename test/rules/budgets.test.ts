// SPDX-License-Identifier: Apache-2.0
// Budget arithmetic through the compiled pool rules, with Karpenter's own numbers
// (KARPENTER.md#budget-allowance–KARPENTER.md#budget-example).
import { describe, expect, it } from 'vitest';
import { allowanceFor, quantityValue } from '../../rules/budgets.js';
import { compile } from '../../rules/compile.js';
import { GraphEngine } from '../../rules/engine.js';
import type { BudgetSpec, PolicySpec, Reason } from '../../rules/model.js';

function policy(budgets: BudgetSpec[], extra: Partial<PolicySpec> = {}): PolicySpec {
  return {
    name: 'p',
    origin: 'karpenter',
    target: { kind: 'names', names: ['default'] },
    consolidationPolicy: 'WhenEmptyOrUnderutilized',
    consolidateAfterSeconds: 0,
    expireAfterSeconds: undefined,
    expiration: 'forceful',
    budgets,
    freezes: [],
    podWindows: [],
    maintenanceWindows: [],
    ...extra,
  };
}
const pct = (value: number) => ({ kind: 'percent' as const, value });
const cnt = (value: number) => ({ kind: 'count' as const, value });
const daily10m = { cron: '@daily', durationSeconds: 600, timeZone: 'UTC' };

async function allow(
  p: PolicySpec,
  windows: Record<string, boolean>,
  reason: Reason,
  n: number,
  disrupting = 0,
  errors = 0,
) {
  const engine = new GraphEngine(compile(p));
  const facts: Record<string, unknown> = { now: 0, budgetErrors: errors };
  for (const [id, v] of Object.entries(windows)) facts[`window:${id}`] = v;
  return allowanceFor(await engine.runPool(facts as never), reason, { nodes: n, disrupting });
}

describe('quantityValue (KARPENTER.md#budget-allowance)', () => {
  it.each([
    [5, 10, 1],
    [10, 11, 2],
    [20, 19, 4],
    [50, 3, 2],
    [33, 10, 4],
    [1, 1, 1],
    [0, 50, 0],
    [10, 0, 0],
    [100, 7, 7],
  ])('%i%% of %i nodes rounds up to %i', (p, n, want) => {
    expect(quantityValue(pct(p), n)).toBe(want);
  });
  it('integer budgets are absolute, independent of the node count', () => {
    expect(quantityValue(cnt(5), 2)).toBe(5);
    expect(quantityValue(cnt(1000), 3)).toBe(1000);
  });
});

describe('the docs example, 19 nodes (KARPENTER.md#budget-example)', () => {
  const docs = policy([
    { id: 'b0', nodes: pct(20), reasons: ['Empty', 'Drifted'], mode: 'budget' },
    { id: 'b1', nodes: cnt(5), reasons: null, mode: 'budget' },
    { id: 'b2', nodes: cnt(0), reasons: ['Underutilized'], mode: 'budget', window: daily10m },
  ]);
  it.each([
    ['Empty', false, 4],
    ['Drifted', false, 4],
    ['Underutilized', false, 5],
    ['Empty', true, 4],
    ['Drifted', true, 4],
    ['Underutilized', true, 0],
  ] as const)('%s with the @daily window active=%s → %i', async (reason, active, want) => {
    const a = await allow(docs, { b2: active }, reason, 19);
    expect(a.budget).toBe(want);
    expect(a.allowed).toBe(want);
  });
  it('one deleting node is subtracted from every reason: 3 / 3 / 4', async () => {
    expect((await allow(docs, { b2: false }, 'Empty', 19, 1)).allowed).toBe(3);
    expect((await allow(docs, { b2: false }, 'Drifted', 19, 1)).allowed).toBe(3);
    expect((await allow(docs, { b2: false }, 'Underutilized', 19, 1)).allowed).toBe(4);
  });
  it('with 25+ nodes the 5 budget binds Empty and Drifted', async () => {
    expect((await allow(docs, { b2: false }, 'Drifted', 25)).budget).toBe(5);
    expect((await allow(docs, { b2: false }, 'Drifted', 26)).budget).toBe(5);
    expect((await allow(docs, { b2: false }, 'Drifted', 24)).budget).toBe(5);
    expect((await allow(docs, { b2: false }, 'Drifted', 20)).budget).toBe(4);
  });
  it('the allowance is floored at 0 when more nodes are disrupting than allowed', async () => {
    expect((await allow(docs, { b2: false }, 'Empty', 19, 7)).allowed).toBe(0);
  });
});

describe('reasons and defaults (KARPENTER.md#budget-reasons)', () => {
  it('a reason no budget names is unlimited', async () => {
    const p = policy([{ id: 'b0', nodes: cnt(0), reasons: ['Drifted'], mode: 'budget' }]);
    expect(await allow(p, {}, 'Empty', 10)).toEqual({ budget: null, allowed: null });
    expect((await allow(p, {}, 'Drifted', 10)).budget).toBe(0);
  });
  it('an empty reasons list applies to no reason; no budgets at all is unlimited', async () => {
    expect(
      (await allow(policy([{ id: 'b0', nodes: cnt(0), reasons: [], mode: 'budget' }]), {}, 'Drifted', 10)).budget,
    ).toBeNull();
    expect((await allow(policy([]), {}, 'Drifted', 10)).budget).toBeNull();
  });
  it('an inactive budget is ignored', async () => {
    const p = policy([{ id: 'b0', nodes: cnt(0), reasons: null, mode: 'budget', window: daily10m }]);
    expect((await allow(p, { b0: false }, 'Empty', 10)).budget).toBeNull();
    expect((await allow(p, { b0: true }, 'Empty', 10)).budget).toBe(0);
  });
  it('any invalid budget fails every reason closed (KARPENTER.md#budget-fail-closed)', async () => {
    const p = policy([{ id: 'b0', nodes: pct(50), reasons: ['Drifted'], mode: 'budget' }]);
    for (const r of ['Empty', 'Drifted', 'Underutilized'] as const) {
      expect(await allow(p, {}, r, 10, 0, 1)).toMatchObject({ budget: 0, allowed: 0 });
    }
  });
});

describe('kpol extensions', () => {
  it('an allow window gives its quantity inside and 0 outside, unlike a deny budget', async () => {
    const p = policy([{ id: 'b0', nodes: cnt(3), reasons: ['Drifted'], mode: 'allow', window: daily10m }]);
    expect((await allow(p, { b0: true }, 'Drifted', 10)).budget).toBe(3);
    expect((await allow(p, { b0: false }, 'Drifted', 10)).budget).toBe(0);
    expect((await allow(p, { b0: false }, 'Empty', 10)).budget).toBeNull();
  });
  it('a freeze blocks its reasons inside [from, to) only', async () => {
    const p = policy([], { freezes: [{ id: 'f0', reasons: ['Drifted'], range: { fromMs: 1000, toMs: 2000 } }] });
    const engine = new GraphEngine(compile(p));
    const at = async (now: number) =>
      allowanceFor(await engine.runPool({ now, budgetErrors: 0 }), 'Drifted', { nodes: 10, disrupting: 0 }).budget;
    expect(await at(999)).toBeNull();
    expect(await at(1000)).toBe(0);
    expect(await at(1999)).toBe(0);
    expect(await at(2000)).toBeNull();
  });
});
