// SPDX-License-Identifier: Apache-2.0
// Standalone on a real cluster (SIMULATED_CLOUD_ONLY): another cloud provider's NodeClaims and
// Nodes are left alone by every controller — not launched, adopted, expired, consolidated,
// drained or finalized, and their pods are not run — while kpol's own machines go through
// their whole life. The same cluster with the default ownership (simulations: the simulated
// cloud adopts everything) shows each of those controllers would have acted.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { KubeObject, Node, NodeClaim, Pod } from '../../src/core/cluster/types.js';
import { launchedBySimulatedCloud, SIMULATED_CLOUD_ONLY, type Ownership } from '../../src/world/cloud/ownership.js';
import { Runtime } from '../../src/control/runtime/runtime.js';
import { makeNodeClaimAndNode, makePod } from '../support/cluster-builder.js';
import { policies, pool, replicaSet, T0 } from '../reconciler/scenario.js';

const POLICY = policies(`policy p for nodepool a, b {
  consolidate when empty or underutilized after 0s
}
`);

/** Pool `a` is another provider's (aws:/// machines); pool `b` is kpol's, with one pending pod for it. */
function world(): KubeObject[] {
  const expired = makeNodeClaimAndNode('a', 0, { expireAfter: '1h' }); // created months before T0: expired, and empty
  const deleting = makeNodeClaimAndNode('a', 1, { deleting: true });
  const nodeGoing = makeNodeClaimAndNode('a', 2);
  nodeGoing.node.metadata.deletionTimestamp = new Date(T0 - 60_000).toISOString();
  const fresh: NodeClaim = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name: 'a-fresh', labels: { 'karpenter.sh/nodepool': 'a' }, finalizers: ['karpenter.sh/termination'] },
    spec: {
      nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
      requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] }],
    },
  };
  return [
    pool('a', ['m5.large']),
    pool('b', ['m5.large']),
    expired.nodeClaim,
    expired.node,
    deleting.nodeClaim,
    deleting.node,
    nodeGoing.nodeClaim,
    nodeGoing.node,
    fresh,
    makePod('on-going', nodeGoing.node.metadata.name, { owner: 'none', phase: 'Pending' }),
    replicaSet('mine', 1, { cpu: '1', nodeSelector: { 'karpenter.sh/nodepool': 'b' } }),
  ];
}

const FOREIGN = (o: KubeObject) =>
  o.metadata.labels?.['karpenter.sh/nodepool'] === 'a' || o.metadata.name === 'on-going';
const key = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;

async function run(ownership: Ownership | undefined) {
  const clock = new FakeClock(T0);
  const objects = world();
  const cluster = new MemoryCluster(clock, objects);
  const all = async () => [
    ...(await cluster.list<NodeClaim>('NodeClaim')),
    ...(await cluster.list<Node>('Node')),
    ...(await cluster.list<Pod>('Pod')),
  ];
  const versions = new Map((await all()).filter(FOREIGN).map((o) => [key(o), o.metadata.resourceVersion]));
  const rt = new Runtime({
    clock,
    objects,
    cluster,
    workloadControllers: true,
    policies: POLICY,
    ...(ownership && { ownership }),
  });
  for (let i = 0; i < 60; i++) {
    if (i === 10) {
      // One more of another provider's machines appears while kpol runs: a launched, empty one.
      const later = makeNodeClaimAndNode('a', 3);
      for (const o of [later.nodeClaim, later.node]) {
        const { uid: _, resourceVersion: __, ...metadata } = o.metadata;
        const created = await cluster.create({ ...o, metadata } as KubeObject);
        versions.set(key(created), created.metadata.resourceVersion);
      }
    }
    await rt.tick();
    await cluster.idle();
    clock.advance(10_000);
  }
  const after = await all();
  return {
    rt,
    /** Another provider's objects as they were created, and their resourceVersion now (undefined: gone). */
    foreign: [...versions].map(([k, v]) => ({
      key: k,
      before: v,
      now: after.find((o) => key(o) === k)?.metadata.resourceVersion,
    })),
    claims: new Map((await cluster.list<NodeClaim>('NodeClaim')).map((nc) => [nc.metadata.name, nc])),
    nodes: new Map((await cluster.list<Node>('Node')).map((n) => [n.metadata.name, n])),
    pods: await cluster.list<Pod>('Pod'),
  };
}

describe('standalone ownership (SIMULATED_CLOUD_ONLY)', () => {
  it('leaves every machine of another provider alone and runs its own', async () => {
    const { rt, foreign, claims, pods, nodes } = await run(SIMULATED_CLOUD_ONLY);
    // Not one write to pool a's NodeClaims and Nodes or the pod on its Node: nothing launched,
    // expired, consolidated, tainted, drained, finalized, marked NotReady or started.
    expect(foreign.length).toBe(10);
    expect(foreign.filter((f) => f.now !== f.before)).toEqual([]);
    expect(rt.cloud.calls.filter((c) => c.op === 'create').map((c) => c.args[0])).not.toContain('a-fresh');
    expect(rt.notAdopted).toEqual([]); // not even offered to the simulated cloud

    // kpol's own pool b: a NodeClaim it made, launched in the simulated cloud, its pod running there.
    const mine = [...claims.values()].filter((nc) => nc.metadata.labels?.['karpenter.sh/nodepool'] === 'b');
    expect(mine.length).toBeGreaterThan(0);
    for (const nc of mine) expect(launchedBySimulatedCloud(nc)).toBe(true);
    const running = pods.filter((p) => p.metadata.labels?.app === 'mine' && p.status?.phase === 'Running');
    expect(running.map((p) => nodes.get(p.spec.nodeName!)?.spec.providerID)).toEqual([
      expect.stringMatching(/^kpol-sim:\/\//),
    ]);
  });

  it(
    'only the Node rule keeps their Nodes safe: with every Node owned, their kubelet and drain ' + 'are taken over',
    async () => {
      const { foreign } = await run({ nodeClaim: SIMULATED_CLOUD_ONLY.nodeClaim, node: () => true });
      expect(foreign.filter((f) => f.now !== f.before).map((f) => f.key.split('/')[0])).toEqual(
        expect.arrayContaining(['Node', 'Pod']),
      );
    },
  );

  it('the same cluster with every machine owned (a simulation): each of those controllers acts on pool a', async () => {
    const { rt, foreign, claims, nodes, pods } = await run(undefined);
    // Every seeded one written or gone (the one appearing later the simulated cloud never adopted).
    expect(foreign.filter((f) => f.now === f.before && !f.key.includes('aaaa3'))).toEqual([]);
    expect(claims.has('a-aaaa0')).toBe(false); // expired (or consolidated) and finalized
    expect(claims.has('a-aaaa1')).toBe(false); // its deletion finished
    expect(rt.cloud.calls.filter((c) => c.op === 'create').map((c) => c.args[0])).toContain('a-fresh'); // launched
    const going = makeNodeClaimAndNode('a', 2).node.metadata.name;
    expect(nodes.has(going)).toBe(false); // drained and released
    expect(pods.find((p) => p.metadata.name === 'on-going')).toBeUndefined();
  });
});
