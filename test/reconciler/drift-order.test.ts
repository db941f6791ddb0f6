// SPDX-License-Identifier: Apache-2.0
// Drift order (KARPENTER.md#cost-and-order, KARPENTER.md#drift): candidates sorted by the Drifted condition's
// lastTransitionTime (oldest drift first), then stably partitioned so that nodes with no
// reschedulable pods go first; one node per command.
import { describe, expect, it } from 'vitest';
import type { NodeClaim, Pod } from '../../src/core/cluster/types.js';
import { Scenario, policies, pool, replicaSet } from './scenario.js';

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** Sets Drifted=True with the given transition time, as Karpenter's drift controller would. */
async function markDrifted(s: Scenario, nodeClaim: string, at: number): Promise<void> {
  const nc = (await s.rt.cluster.get<NodeClaim>({ kind: 'NodeClaim', name: nodeClaim }))!;
  const conditions = [
    ...(nc.status?.conditions ?? []).filter((c) => c.type !== 'Drifted'),
    { type: 'Drifted', status: 'True', reason: 'RequirementsDrifted', lastTransitionTime: iso(at) },
  ];
  await s.rt.cluster.patch({ kind: 'NodeClaim', name: nodeClaim }, { status: { conditions } });
}

describe('drift order', () => {
  it('empty nodes first (oldest drift first among them), then the oldest-drifted nodes with pods', async () => {
    const s = new Scenario(
      [pool('default', ['m5.xlarge']), ...['a', 'b', 'c', 'd'].map((n) => replicaSet(n, 1, { cpu: '3' }))],
      policies('policy p for nodepool default {\n  consolidate never\n  budget 1 for Drifted\n}\n'),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 4, 15 * 60_000)).toBe(true);
    const nodeOf = async (app: string) =>
      (await s.pods()).find((p: Pod) => p.metadata.labels?.app === app)!.spec.nodeName!;
    const claimOf = new Map((await s.nodeClaims()).map((nc) => [nc.status!.nodeName!, nc.metadata.name]));
    const node = { a: await nodeOf('a'), b: await nodeOf('b'), c: await nodeOf('c'), d: await nodeOf('d') };
    expect(new Set(Object.values(node)).size).toBe(4);

    // c and d become empty (consolidation is off, so the empty nodes stay).
    for (const rs of ['c', 'd'])
      await s.rt.cluster.patch({ kind: 'ReplicaSet', name: rs, namespace: 'default' }, { spec: { replicas: 0 } });
    expect(await s.until(async () => (await s.pods()).length === 2, 5 * 60_000)).toBe(true);

    const now = s.clock.now();
    await markDrifted(s, claimOf.get(node.a)!, now - 2 * 3600_000); // oldest drift, has a pod
    await markDrifted(s, claimOf.get(node.b)!, now - 3600_000); // has a pod
    await markDrifted(s, claimOf.get(node.c)!, now - 10 * 60_000); // newest drift, empty
    await markDrifted(s, claimOf.get(node.d)!, now - 30 * 60_000); // empty

    expect(
      await s.until(
        async () => {
          const names = new Set((await s.nodes()).map((n) => n.metadata.name));
          return Object.values(node).every((n) => !names.has(n)) && (await s.runningPods()).length === 2;
        },
        2 * 60 * 60_000,
      ),
    ).toBe(true);

    const drifts = s.history.map((h) => h.disruption.started).filter((c) => c?.method === 'Drift');
    expect(drifts.map((c) => c!.candidates.map((x) => x.node))).toEqual([[node.d], [node.c], [node.a], [node.b]]);
    // Empty nodes are deleted without a replacement; the others are replaced first.
    expect(drifts.map((c) => c!.replacements.length)).toEqual([0, 0, 1, 1]);
    expect(drifts.every((c) => c!.reason === 'Drifted')).toBe(true);
  });

  it('with budget 1 the next drift starts only once the previous node is gone', async () => {
    const s = new Scenario(
      [pool('default', ['m5.xlarge']), ...['a', 'b', 'c'].map((n) => replicaSet(n, 1, { cpu: '3' }))],
      policies('policy p for nodepool default {\n  consolidate never\n  budget 1 for Drifted\n}\n'),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 3, 15 * 60_000)).toBe(true);
    const claims = (await s.nodeClaims()).map((nc) => nc.metadata.name).sort();
    const now = s.clock.now();
    for (const [i, name] of claims.entries()) await markDrifted(s, name, now - (i + 1) * 60_000);
    const started: { nodeClaim: string; tick: number }[] = [];
    const released = new Map<string, number>(); // claim → first tick after which it no longer counts against the budget
    expect(
      await s.until(
        async () => {
          const tick = s.history.length;
          const byName = new Map((await s.nodeClaims()).map((nc) => [nc.metadata.name, nc]));
          for (const c of claims) {
            const nc = byName.get(c);
            const terminating = nc?.status?.conditions?.some(
              (x) => x.type === 'InstanceTerminating' && x.status === 'True',
            );
            if ((!nc || terminating) && !released.has(c)) released.set(c, tick);
          }
          const cmd = s.history.at(-1)!.disruption.started;
          if (cmd) started.push({ nodeClaim: cmd.candidates[0].nodeClaim, tick });
          return claims.every((c) => !byName.has(c));
        },
        2 * 60 * 60_000,
      ),
    ).toBe(true);
    // Oldest drift first: the last claim drifted 3 min ago, the first 1 min ago.
    expect(started.map((x) => x.nodeClaim)).toEqual([...claims].reverse());
    // Karpenter stops counting a node against the budget once its NodeClaim is
    // InstanceTerminating (KARPENTER.md#budget-counting), and not before: the next command starts in a later tick.
    for (let i = 1; i < started.length; i++) {
      expect(started[i].tick).toBeGreaterThan(released.get(started[i - 1].nodeClaim)!);
    }
  });
});
