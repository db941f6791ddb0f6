// SPDX-License-Identifier: Apache-2.0
// Emptiness and consolidation (KARPENTER.md#emptiness, KARPENTER.md#consolidation-decision–KARPENTER.md#single-node) on
// the embedded cluster.
import { describe, expect, it } from 'vitest';
import type { Node } from '../../src/core/cluster/types.js';
import { makeNodePool } from '../support/cluster-builder.js';
import { Scenario, policies, pool, replicaSet } from './scenario.js';

async function bringUp(s: Scenario, pods: number): Promise<void> {
  expect(await s.until(async () => (await s.runningPods()).length === pods, 15 * 60_000)).toBe(true);
}

const price = (s: Scenario, n: Node) => {
  const it = s.rt.instanceTypes.get(n.metadata.labels?.['node.kubernetes.io/instance-type'] ?? '');
  return (
    it?.offerings.find(
      (o) =>
        o.zone === n.metadata.labels?.['topology.kubernetes.io/zone'] &&
        o.capacityType === n.metadata.labels?.['karpenter.sh/capacity-type'],
    )?.price ?? NaN
  );
};

describe('emptiness', () => {
  it('deletes nodes left empty after a scale-down, once consolidateAfter has passed', async () => {
    const s = new Scenario(
      [pool('default', ['m5.xlarge']), replicaSet('big', 4, { cpu: '3' })],
      policies('policy p for nodepool default {\n  consolidate when empty after 5m\n}\n'),
    );
    await bringUp(s, 4);
    const before = (await s.nodes()).length;
    expect(before).toBeGreaterThan(1);
    await s.rt.cluster.patch({ kind: 'ReplicaSet', name: 'big', namespace: 'default' }, { spec: { replicas: 0 } });
    const t = s.clock.now();
    await s.until(async () => (await s.runningPods()).length === 0, 5 * 60_000);
    // Not before consolidateAfter (5m) since the last pod event…
    await s.until(async () => s.clock.now() - t > 4 * 60_000, 10 * 60_000);
    expect((await s.nodes()).length).toBe(before);
    expect(await s.until(async () => (await s.nodes()).length === 0, 20 * 60_000)).toBe(true);
    const empties = s.history.filter((h) => h.disruption.started?.method === 'Emptiness');
    expect(empties.length).toBeGreaterThan(0);
    expect(empties[0].disruption.started!.replacements).toEqual([]);
  });

  it("WhenEmpty pools never consolidate busy nodes, with Karpenter's reason", async () => {
    const s = new Scenario(
      [makeNodePool('default'), replicaSet('web', 2, { cpu: '250m' })],
      policies('policy p for nodepool default {\n  consolidate when empty after 0s\n}\n'),
    );
    await bringUp(s, 2);
    await s.until(() => false, 10 * 60_000);
    expect(s.history.some((h) => h.disruption.started)).toBe(false);
    const out = s.history.at(-1)!.disruption.evaluation;
    const busy = Object.values(out.nodes).find((n) => n.blocked.some((b) => b.code === 'ConsolidationPolicyWhenEmpty'));
    expect(busy?.blocked.find((b) => b.code === 'ConsolidationPolicyWhenEmpty')?.message).toBe(
      'NodePool "default" has consolidation policy WhenEmpty, but node is not empty',
    );
  });
});

describe('consolidation', () => {
  it('replaces an oversized node with a cheaper one after the workload shrinks', async () => {
    const s = new Scenario(
      [
        pool('default', ['m5.large', 'm5.xlarge', 'm5.2xlarge', 'm5.4xlarge']),
        replicaSet('web', 6, { cpu: '2', memory: '2Gi' }),
      ],
      policies('policy p for nodepool default {\n  consolidate when empty or underutilized after 1m\n}\n'),
    );
    await bringUp(s, 6);
    const costBefore = (await s.nodes()).reduce((sum, n) => sum + price(s, n), 0);
    await s.rt.cluster.patch({ kind: 'ReplicaSet', name: 'web', namespace: 'default' }, { spec: { replicas: 1 } });
    const settled = await s.until(async () => {
      const nodes = await s.nodes();
      const cost = nodes.reduce((sum, n) => sum + price(s, n), 0);
      return (
        (await s.runningPods()).length === 1 &&
        nodes.length === 1 &&
        s.rt.state.commands.size === 0 &&
        !nodes[0].metadata.deletionTimestamp &&
        cost < costBefore
      );
    }, 60 * 60_000);
    expect(settled).toBe(true);
    const replaced = s.history.map((h) => h.disruption.started).filter((c) => c && c.replacements.length > 0);
    expect(replaced.length).toBeGreaterThan(0);
    // It stays put afterwards: no replacing a node with one of the same price.
    const after = (await s.nodes()).map((n) => n.metadata.name);
    await s.until(() => false, 20 * 60_000);
    expect((await s.nodes()).map((n) => n.metadata.name)).toEqual(after);
    const methods = new Set(s.history.map((h) => h.disruption.started?.method).filter(Boolean));
    expect(
      [...methods].some((m) => m === 'Emptiness' || m === 'MultiNodeConsolidation' || m === 'SingleNodeConsolidation'),
    ).toBe(true);
  });

  it('waits the 15 s validation delay before acting on a consolidation command', async () => {
    // On-demand nodes: the default pool's spot node would never be replaced (spot-to-spot is off),
    // and the waits below would time out with a gap that passes.
    const s = new Scenario(
      [pool('default', ['m5.large', 'm5.xlarge', 'm5.2xlarge']), replicaSet('web', 4, { cpu: '2' })],
      policies('policy p for nodepool default {\n  consolidate when empty or underutilized after 0s\n}\n'),
    );
    await bringUp(s, 4);
    // To none, so every node is emptied: which pods a scale-down keeps differs between servers.
    await s.rt.cluster.patch({ kind: 'ReplicaSet', name: 'web', namespace: 'default' }, { spec: { replicas: 0 } });
    const waiting = () => s.history.at(-1)!.disruption.waitingValidation !== undefined;
    expect(await s.until(waiting, 30 * 60_000, 5_000)).toBe(true);
    const waitingAt = s.clock.now() - 5_000;
    expect(await s.until(() => s.history.at(-1)!.disruption.started !== undefined, 60_000, 5_000)).toBe(true);
    const startedAt = s.clock.now() - 5_000;
    expect(startedAt - waitingAt).toBeGreaterThanOrEqual(15_000);
  });
});
