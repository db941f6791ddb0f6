// SPDX-License-Identifier: Apache-2.0
// Manual deletion (KARPENTER.md#termination): deleting a Node, a NodeClaim or a NodePool takes the same
// graceful path — the termination finalizer holds both objects, the Node is tainted and drained
// through the Eviction API, the instance is terminated in the cloud, then the finalizers go.
// No instance is left without a NodeClaim.
import { describe, expect, it } from 'vitest';
import { TAINT_DISRUPTED, type Node, type NodeClaim } from '../../src/core/cluster/types.js';
import { Scenario, policies, pool, replicaSet } from './scenario.js';

const FINALIZER = 'karpenter.sh/termination';

interface Trace {
  evictedAt: Map<string, number>;
  instanceDeleteAt?: number;
  nodeGoneAt?: number;
  claimGoneAt?: number;
  taintedWhileDraining: boolean;
}

/** Brings up one node with two pods; returns its names. */
async function oneNode(s: Scenario): Promise<{ node: string; claim: string; providerID: string; pods: string[] }> {
  expect(await s.until(async () => (await s.runningPods()).length === 2, 15 * 60_000)).toBe(true);
  const ncs = await s.nodeClaims();
  expect(ncs).toHaveLength(1);
  const nc = ncs[0];
  expect(nc.metadata.finalizers).toEqual([FINALIZER]);
  const n = (await s.nodes())[0];
  expect(n.metadata.finalizers).toContain(FINALIZER);
  return {
    node: nc.status!.nodeName!,
    claim: nc.metadata.name,
    providerID: nc.status!.providerID!,
    pods: (await s.runningPods()).map((p) => p.metadata.name),
  };
}

/** Ticks until both objects are gone, recording when each step of the flow happened. */
async function followTermination(
  s: Scenario,
  o: { node: string; claim: string; providerID: string; pods: string[] },
): Promise<Trace> {
  const t: Trace = { evictedAt: new Map(), taintedWhileDraining: true };
  const ok = await s.until(async () => {
    const at = s.clock.now() - 10_000;
    const node = await s.rt.cluster.get<Node>({ kind: 'Node', name: o.node });
    const claim = await s.rt.cluster.get<NodeClaim>({ kind: 'NodeClaim', name: o.claim });
    if (node) {
      // Held by the finalizer while anything is left to do.
      expect(node.metadata.deletionTimestamp).toBeDefined();
      expect(node.metadata.finalizers).toContain(FINALIZER);
      if (!(node.spec.taints ?? []).some((x) => x.key === TAINT_DISRUPTED && x.effect === 'NoSchedule'))
        t.taintedWhileDraining = false;
    }
    if (claim) expect(claim.metadata.deletionTimestamp).toBeDefined();
    if (!node && t.nodeGoneAt === undefined) t.nodeGoneAt = at;
    if (!claim && t.claimGoneAt === undefined) t.claimGoneAt = at;
    return !node && !claim;
  }, 30 * 60_000);
  expect(ok).toBe(true);
  for (const e of s.rt.events.list({ reason: 'Evicted' }))
    if (o.pods.includes(e.object.name)) t.evictedAt.set(e.object.name, e.at);
  t.instanceDeleteAt = s.rt.cloud.calls.find((c) => c.op === 'delete' && c.args[0] === o.providerID)?.at;
  return t;
}

function expectGraceful(s: Scenario, o: { pods: string[] }, t: Trace): void {
  expect(t.taintedWhileDraining).toBe(true);
  // Every pod went through the Eviction API (drain), before the instance was terminated.
  expect([...t.evictedAt.keys()].sort()).toEqual([...o.pods].sort());
  expect(
    s.rt.events
      .list({ reason: 'Evicted' })
      .filter((e) => o.pods.includes(e.object.name))
      .every((e) => e.message === 'Evicted pod: Forceful Termination'),
  ).toBe(true);
  expect(t.instanceDeleteAt).toBeDefined();
  for (const at of t.evictedAt.values()) expect(at).toBeLessThanOrEqual(t.instanceDeleteAt!);
  // The finalizers are removed only once the instance is gone (termination takes 20 s in the simulator).
  expect(t.nodeGoneAt!).toBeGreaterThanOrEqual(t.instanceDeleteAt! + 20_000);
  expect(t.claimGoneAt!).toBeGreaterThanOrEqual(t.nodeGoneAt!);
}

describe('manual deletion takes the graceful termination path', () => {
  const make = () =>
    new Scenario(
      [pool('default', ['m5.xlarge']), replicaSet('web', 2, { cpu: '1' })],
      policies('policy p for nodepool default {\n  consolidate never\n}\n'),
    );

  it('kubectl delete node: the NodeClaim follows, drained, instance terminated, finalizers removed', async () => {
    const s = make();
    const o = await oneNode(s);
    await s.rt.cluster.delete({ kind: 'Node', name: o.node });
    const t = await followTermination(s, o);
    expectGraceful(s, o, t);
    expect(await s.until(async () => (await s.runningPods()).length === 2, 10 * 60_000)).toBe(true);
    expect(s.rt.cloud.orphans(await s.nodeClaims())).toEqual([]);
    expect((await s.rt.cloud.list()).map((i) => i.providerID)).not.toContain(o.providerID);
  });

  it('kubectl delete nodeclaim: the Node follows, same flow', async () => {
    const s = make();
    const o = await oneNode(s);
    await s.rt.cluster.delete({ kind: 'NodeClaim', name: o.claim });
    const t = await followTermination(s, o);
    expectGraceful(s, o, t);
    expect(await s.until(async () => (await s.runningPods()).length === 2, 10 * 60_000)).toBe(true);
    expect(s.rt.cloud.orphans(await s.nodeClaims())).toEqual([]);
  });

  it('kubectl delete nodepool: its NodeClaims are terminated gracefully, no instance left behind', async () => {
    const s = new Scenario(
      [
        pool('default', ['m5.xlarge']),
        pool('other', ['m5.xlarge']),
        replicaSet('web', 2, { cpu: '1', nodeSelector: { 'karpenter.sh/nodepool': 'default' } }),
        replicaSet('keep', 1, { cpu: '1', nodeSelector: { 'karpenter.sh/nodepool': 'other' } }),
      ],
      policies('policy p for nodepools default, other {\n  consolidate never\n}\n'),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 3, 15 * 60_000)).toBe(true);
    const ncs = await s.nodeClaims();
    const victim = ncs.find((nc) => nc.metadata.labels?.['karpenter.sh/nodepool'] === 'default')!;
    const keep = ncs.find((nc) => nc.metadata.labels?.['karpenter.sh/nodepool'] === 'other')!;
    const o = {
      node: victim.status!.nodeName!,
      claim: victim.metadata.name,
      providerID: victim.status!.providerID!,
      pods: (await s.runningPods()).filter((p) => p.metadata.labels?.app === 'web').map((p) => p.metadata.name),
    };
    await s.rt.cluster.delete({ kind: 'NodePool', name: 'default' });
    const t = await followTermination(s, o);
    expectGraceful(s, o, t);
    // The other pool is untouched; web has nowhere to go now and stays pending.
    expect((await s.nodeClaims()).map((nc) => nc.metadata.name)).toEqual([keep.metadata.name]);
    await s.until(() => false, 5 * 60_000);
    expect((await s.nodeClaims()).map((nc) => nc.metadata.name)).toEqual([keep.metadata.name]);
    expect((await s.runningPods()).map((p) => p.metadata.labels?.app)).toEqual(['keep']);
    expect(s.rt.cloud.orphans(await s.nodeClaims())).toEqual([]);
    expect((await s.rt.cloud.list()).map((i) => i.providerID)).toEqual([keep.status!.providerID]);
  });
});
