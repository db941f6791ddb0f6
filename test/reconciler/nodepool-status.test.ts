// SPDX-License-Identifier: Apache-2.0
// NodePool status.disruption: the evaluator's numbers, written only when they change.
import { describe, expect, it } from 'vitest';
import type { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { NodePool } from '../../src/core/cluster/types.js';
import type { PoolResult } from '../../src/core/eval/output.js';
import {
  NodePoolStatusWriter,
  disruptionNumbers,
  type NodePoolDisruptionStatus,
} from '../../src/control/reconciler/nodepool-status.js';
import { Scenario, policies, pool, replicaSet } from './scenario.js';

const statusOf = async (s: Scenario, name: string) =>
  (
    (await s.rt.cluster.get<NodePool>({ kind: 'NodePool', name }))?.status as
      { disruption?: NodePoolDisruptionStatus } | undefined
  )?.disruption;

describe('NodePool disruption status', () => {
  it(
    'translates a pool result: unlimited reasons carry no numbers, disrupting is the pool ' + 'count for every reason',
    () => {
      const r: PoolResult = {
        policy: 'p',
        nodes: 5,
        disrupting: 1,
        budgets: { Empty: null, Drifted: 2, Underutilized: 0 },
        allowed: { Empty: null, Drifted: 1, Underutilized: 0 },
        errors: ['budget b0: bad'],
      };
      expect(disruptionNumbers(r)).toEqual({
        policy: 'p',
        nodes: 5,
        disrupting: 1,
        errors: ['budget b0: bad'],
        reasons: [
          { reason: 'Empty', disrupting: 1 },
          { reason: 'Drifted', budget: 2, allowed: 1, disrupting: 1 },
          { reason: 'Underutilized', budget: 0, allowed: 0, disrupting: 1 },
        ],
      });
    },
  );

  it('with per reason buckets, a reason a bucket bound shows what the bucket counted', () => {
    const r: PoolResult = {
      policy: 'p',
      nodes: 5,
      disrupting: 3,
      disruptingByReason: { Drifted: 1, Underutilized: 1, unknown: 1 },
      boundByBucket: ['Drifted'],
      budgets: { Empty: 4, Drifted: 3, Underutilized: 4 },
      allowed: { Empty: 1, Drifted: 1, Underutilized: 1 },
      errors: [],
    };
    expect(disruptionNumbers(r).reasons).toEqual([
      { reason: 'Empty', budget: 4, allowed: 1, disrupting: 3 },
      { reason: 'Drifted', budget: 3, allowed: 1, disrupting: 2 }, // its own 1 and the unknown 1
      { reason: 'Underutilized', budget: 4, allowed: 1, disrupting: 3 },
    ]);
  });

  it('writes the evaluation into status once, again only when a number changes', async () => {
    const s = new Scenario(
      [pool('a', ['m5.xlarge']), replicaSet('w', 3, { cpu: '3' })],
      policies('policy pa for nodepool a {\n  consolidate never\n  budget 1 for Drifted\n}\n'),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 3, 15 * 60_000)).toBe(true);
    const writer = new NodePoolStatusWriter(s.rt.cluster);
    let r = await s.tick();
    expect(await writer.reconcile(r.disruption.evaluation)).toEqual(['a']);
    const first = await statusOf(s, 'a');
    expect(first).toMatchObject({ policy: 'pa', nodes: 3, disrupting: 0, errors: [] });
    expect(first?.reasons.find((x) => x.reason === 'Drifted')).toEqual({
      reason: 'Drifted',
      budget: 1,
      allowed: 1,
      disrupting: 0,
    });
    expect(first?.reasons.find((x) => x.reason === 'Empty')).toEqual({ reason: 'Empty', disrupting: 0 });
    expect(first?.lastTransitionTime).toBe(r.disruption.evaluation.at);
    expect(first?.lastTransitionTime).toBe(new Date(s.clock.now() - 10_000).toISOString().replace('.000Z', 'Z'));

    const version = (s.rt.cluster as MemoryCluster).resourceVersion();
    r = await s.tick();
    expect(await writer.reconcile(r.disruption.evaluation)).toEqual([]);
    // nothing else changed in a settled cluster either
    expect((s.rt.cluster as MemoryCluster).resourceVersion()).toBe(version);

    // Drift every node: while one is being replaced the Drifted allowance drops to 0 and back.
    await s.rt.cluster.patch(
      { kind: 'NodePool', name: 'a' },
      { spec: { template: { metadata: { labels: { rev: '2' } } } } },
    );
    const seen: string[] = [];
    let writes = 0;
    await s.until(
      async () => false,
      10 * 60_000,
      10_000,
      async () => {
        const ev = s.history[s.history.length - 1].disruption.evaluation;
        writes += (await writer.reconcile(ev)).length;
        const d = (await statusOf(s, 'a'))!;
        expect(d.disrupting).toBe(ev.nodePools.a.disrupting);
        expect(d.reasons.find((x) => x.reason === 'Drifted')?.allowed).toBe(ev.nodePools.a.allowed.Drifted);
        const key = JSON.stringify([d.nodes, d.disrupting]);
        if (seen[seen.length - 1] !== key) seen.push(key);
      },
    );
    expect(seen.length).toBeGreaterThan(1); // the numbers did move
    // one write per change, none per tick
    expect(writes).toBe(seen.length - (seen[0] === JSON.stringify([3, 0]) ? 1 : 0));
  });
});
