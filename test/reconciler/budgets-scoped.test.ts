// SPDX-License-Identifier: Apache-2.0
// Cluster and selector budgets (issue 15) on the real reconciler: a `cluster budget 2 for Drifted`
// over three NodePools whose own budgets would each allow 2 keeps the nodes drifting across all
// three at 2 or fewer at every tick, and still uses the whole 2; a selector budget inside a
// two-pool policy caps the matching slice while the rest drifts at the policy's pace.
// Planted bug (BudgetMapping.room ignoring the scopes): the first test sees 6 in flight and fails.
import { describe, expect, it } from 'vitest';
import type { NodeClaim } from '../../src/core/cluster/types.js';
import { Scenario, policies, pool, replicaSet } from './scenario.js';

const POOL_LABEL = 'karpenter.sh/nodepool';
const isTrue = (nc: NodeClaim, type: string) =>
  nc.status?.conditions?.some((c) => c.type === type && c.status === 'True') === true;

/** Drifts every pool and records, per tick, the original nodes in flight per pool (Karpenter's "disrupting"). */
async function driftAll(s: Scenario, pools: string[], total: number) {
  expect(await s.until(async () => (await s.runningPods()).length === total, 15 * 60_000)).toBe(true);
  const original = new Map(
    (await s.nodeClaims()).map((nc) => [nc.metadata.name, nc.metadata.labels?.[POOL_LABEL] ?? '']),
  );
  for (const name of pools)
    await s.rt.cluster.patch(
      { kind: 'NodePool', name },
      { spec: { template: { metadata: { labels: { rev: '2' } } } } },
    );
  const samples: Record<string, number>[] = [];
  const done = await s.until(
    async () =>
      (await s.nodeClaims()).every((nc) => !original.has(nc.metadata.name)) && (await s.runningPods()).length === total,
    6 * 60 * 60_000,
    10_000,
    async () => {
      const marked = new Set([...s.rt.state.commands.values()].flatMap((c) => c.candidates.map((x) => x.nodeClaim)));
      const inFlight: Record<string, number> = Object.fromEntries(pools.map((p) => [p, 0]));
      for (const nc of await s.nodeClaims()) {
        const p = original.get(nc.metadata.name);
        if (p === undefined || isTrue(nc, 'InstanceTerminating')) continue;
        if (marked.has(nc.metadata.name) || nc.metadata.deletionTimestamp) inFlight[p]++;
      }
      samples.push(inFlight);
    },
  );
  expect(done).toBe(true);
  return samples;
}

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

describe('cluster and selector budgets on the reconciler', () => {
  it('a cluster budget of 2 holds drift across three pools to 2 at every tick, and uses all of it', async () => {
    const pools = ['a', 'b', 'c'];
    const s = new Scenario(
      [
        ...pools.map((p) => pool(p, ['m5.xlarge'])),
        ...pools.map((p) => replicaSet(`w${p}`, 3, { cpu: '3', nodeSelector: { [POOL_LABEL]: p } })),
      ],
      policies(
        'cluster budget 2 for Drifted\n' +
          pools
            .map((p) => `policy p${p} for nodepool ${p} {\n  consolidate never\n  budget 2 for Drifted\n}\n`)
            .join(''),
      ),
    );
    const samples = await driftAll(s, pools, 9);
    const peak = Math.max(...samples.map(sum));
    expect(peak).toBe(2);
    // The evaluation reports the scope, and the drift spread over every pool.
    const ev = s.history.at(-1)!.disruption.evaluation;
    const scope = Object.values(ev.scopes ?? {})[0]!;
    expect(scope).toMatchObject({ kind: 'cluster', nodePools: ['a', 'b', 'c'], nodes: 9, budgets: { Drifted: 2 } });
    const drifts = s.history.map((h) => h.disruption.started).filter((c) => c?.method === 'Drift');
    expect(new Set(drifts.map((d) => d!.candidates[0].nodePool))).toEqual(new Set(pools));
  });

  it('a selector budget caps the matching slice of a policy while the rest drifts at the policy pace', async () => {
    const s = new Scenario(
      [
        pool('a', ['m5.xlarge']),
        pool('b', ['m5.xlarge']),
        replicaSet('wa', 4, { cpu: '3', nodeSelector: { [POOL_LABEL]: 'a' } }),
        replicaSet('wb', 4, { cpu: '3', nodeSelector: { [POOL_LABEL]: 'b' } }),
      ],
      policies(
        'policy ab for nodepool a, b {\n  consolidate never\n  budget 3 for Drifted\n' +
          '  budget 1 for Drifted on nodes where karpenter.sh/nodepool = a\n}\n',
      ),
    );
    const samples = await driftAll(s, ['a', 'b'], 8);
    expect(Math.max(...samples.map((x) => x.a))).toBe(1);
    expect(Math.max(...samples.map((x) => x.b))).toBe(3);
  });
});
