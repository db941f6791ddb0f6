// SPDX-License-Identifier: Apache-2.0
// The report's "NodePools held at 0" (src/edge/simulate/held-budgets.ts), from real simulations of
// the example clusters: a used-up rate budget, a pause (and a pause that cannot be read, which
// holds its reason closed), and the budgets of a pool's own spec, each named as what held the pool,
// in the evaluation's own words, for as many ticks as it held.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadPolicies } from '../../src/core/policy/load.js';
import { simulationObjects } from '../../src/edge/simulate/cluster-objects.js';
import { simulate } from '../../src/edge/simulate/simulated-run.js';
import type { EvalOutput } from '../../src/core/eval/output.js';
import { heldAtZero } from '../../src/edge/simulate/held-budgets.js';
import type { HeldCount } from '../../src/edge/simulate/timeline.js';

const EXAMPLES = new URL('../../rules/examples/', import.meta.url).pathname;
const MINUTE = 60_000;

async function heldOver(cluster: string, policy: string | undefined, from: string, minutes: number) {
  const { objects, errors } = simulationObjects(readFileSync(EXAMPLES + cluster, 'utf8'), cluster);
  expect(errors).toEqual([]);
  const sources = policy ? [{ fileName: policy, text: readFileSync(EXAMPLES + policy, 'utf8') }] : [];
  const loaded = loadPolicies(sources, Date.parse(from));
  expect(loaded.ok).toBe(true);
  const t = await simulate({
    objects,
    policies: loaded.policies,
    fromMs: Date.parse(from),
    forMs: minutes * MINUTE,
    stepMs: MINUTE,
  });
  const find = (pool: string, reason: string) => t.held.filter((h) => h.nodePool === pool && h.reason === reason);
  return { t, find };
}

const only = (rows: HeldCount[]) => {
  expect(rows).toHaveLength(1);
  return rows[0]!;
};

describe('NodePools held at 0 in a simulation', () => {
  it('names a used-up rate budget, held every tick but the one a drift could start in', async () => {
    // At 10:30 two drifts started in the last hour (09:40 and 10:10): `budget 2 per 1h for Drifted`
    // holds Drifted until 10:40, when the 09:40 start leaves the hour; the drift started then uses
    // the slot again until 11:10. Twenty ticks from 10:30: held in all but 10:40's.
    const { t, find } = await heldOver(
      'clusters/steady-rollout.yaml',
      'steady-rollout.kpol',
      '2026-11-23T10:30:00Z',
      20,
    );
    const drifts = t.disruptions.filter((d) => d.reason === 'Drifted').map((d) => new Date(d.at).toISOString());
    expect(drifts).toEqual(['2026-11-23T10:40:00.000Z']);
    const drift = find('web', 'Drifted').find((h) => h.cause === 'rate')!;
    expect(drift.count).toBe(t.ticks - 1);
    expect(drift.example).toMatch(/^rate budget 2 per 1h for Drifted used: 2 disruptions started in the last 1h/);
  });

  it('names a pause for the reasons it pauses, and a pause that cannot be read for its own', async () => {
    const { t, find } = await heldOver('clusters/paused-rollout.yaml', undefined, '2026-11-23T13:50:00Z', 20);
    // The rollout pause ends at 14:00: ten ticks of 13:50..13:59.
    const drift = only(find('default', 'Drifted'));
    expect(drift).toMatchObject({ cause: 'pause', count: 10 });
    expect(drift.example).toContain('Drifted paused by kpol pause until 2026-11-23T14:00:00Z (by alice)');
    // The unreadable pause holds Underutilized every tick, with its own message, not the other pause's.
    const under = only(find('default', 'Underutilized'));
    expect(under).toMatchObject({ cause: 'pause', count: t.ticks });
    expect(under.example).toMatch(/^paused \(fail closed, Underutilized\): ConfigMap\/kpol-system\/kpol-pause-broken/);
    // Empty has a budget of 4 and is never held.
    expect(find('default', 'Empty')).toEqual([]);
  });
});

describe('heldAtZero kept per evaluation record', () => {
  it('answers again when the same pools record comes with other cluster budgets', () => {
    const nodePools = {
      web: { policy: 'p', nodes: 4, disrupting: 0, budgets: { Drifted: 2 }, allowed: { Drifted: 2 }, errors: [] },
    };
    const full = {
      kind: 'cluster' as const,
      statement: 'cluster budget 1 for Drifted (f.kpol:3)',
      at: '',
      nodePools: ['web'],
      nodes: 4,
      disrupting: 1,
      budgets: { Drifted: 1 },
      allowed: { Drifted: 0 },
    };
    const ev = (scopes?: EvalOutput['scopes']) =>
      ({ at: '', nodePools, nodes: {}, decisions: [], warnings: [], scopes }) as EvalOutput;
    const held = ev({ c0: full });
    expect(heldAtZero(held).map((h) => h.cause)).toEqual(['scope']);
    // A reused evaluation: a new output holding the same records gets the same answer object.
    expect(heldAtZero(ev(held.scopes))).toBe(heldAtZero(held));
    // The same pools with the cluster budget open again.
    expect(heldAtZero(ev({ c0: { ...full, disrupting: 0, allowed: { Drifted: 1 } } }))).toEqual([]);
  });
});
