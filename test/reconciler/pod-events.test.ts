// SPDX-License-Identifier: Apache-2.0
// The pod-events controller bumps a NodeClaim's lastPodEventTime on the changes Karpenter's event
// filter lets through (KARPENTER.md#consolidate-after) — a pod created bound, bound, made
// terminal or terminating — and on no other change to a pod, including the first change kpol
// sees to a pod that existed before it started.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { ClusterClient } from '../../src/core/cluster/client.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { NodeClaim } from '../../src/core/cluster/types.js';
import { PodEventsController } from '../../src/control/reconciler/pod-events.js';
import { makeNodeClaimAndNode, makePod, SNAPSHOT_TIME } from '../support/cluster-builder.js';

const { nodeClaim, node } = makeNodeClaimAndNode('default', 0);
const NODE = node.metadata.name;
const podKey = (name: string) => ({ kind: 'Pod' as const, namespace: 'default', name });

/** A cluster whose pods existed before the controller started, and a step that reads the bump. */
function setup(strip = false) {
  const clock = new FakeClock(Date.parse(SNAPSHOT_TIME));
  const cluster = new MemoryCluster(clock, [
    nodeClaim,
    node,
    makePod('web-a', NODE),
    makePod('web-p', undefined),
    makePod('ds-a', NODE, { owner: 'DaemonSet' }),
  ]);
  // A client whose watch events do not say what the object was before.
  const client: ClusterClient = strip
    ? Object.assign(Object.create(cluster) as MemoryCluster, {
        watch: (kind: 'Pod', handler: Parameters<ClusterClient['watch']>[1]) =>
          cluster.watch(kind, (e) => handler({ type: e.type, object: e.object })),
      })
    : cluster;
  const controller = new PodEventsController(client, clock, (k) => cluster.kindVersion(k));
  /** Runs `change` 20 s later (past the 10 s dedupe) and a pass; whether the NodeClaim was bumped then. */
  const bumps = async (change: () => Promise<unknown>): Promise<boolean> => {
    clock.advance(20_000);
    await change();
    await new Promise((r) => setImmediate(r)); // watch events are delivered after the write
    await controller.reconcile();
    const nc = await cluster.get<NodeClaim>({ kind: 'NodeClaim', name: nodeClaim.metadata.name });
    return nc?.status?.lastPodEventTime !== undefined && Date.parse(nc.status.lastPodEventTime) === clock.now();
  };
  return { cluster, bumps };
}

describe('pod events', () => {
  it('counts binding, a bound pod created, terminal, terminating; not labels, conditions, DaemonSet pods', async () => {
    const { cluster, bumps } = setup();
    const label = (name: string, v: string) => () =>
      cluster.patch(podKey(name), { metadata: { labels: { touched: v } } });
    expect(await bumps(label('web-a', '1'))).toBe(false); // first change kpol sees to a pod older than it
    expect(await bumps(label('web-a', '2'))).toBe(false);
    const conditions = [{ type: 'Ready', status: 'False' }];
    expect(await bumps(() => cluster.patch(podKey('web-a'), { status: { conditions } }))).toBe(false);
    expect(await bumps(label('ds-a', '1'))).toBe(false);
    expect(await bumps(() => cluster.patch(podKey('web-p'), { spec: { nodeName: NODE } }))).toBe(true);
    expect(await bumps(label('web-p', '1'))).toBe(false);
    expect(await bumps(() => cluster.create(makePod('web-b', NODE)))).toBe(true);
    expect(await bumps(() => cluster.patch(podKey('web-b'), { status: { phase: 'Succeeded' } }))).toBe(true);
    expect(await bumps(() => cluster.delete(podKey('web-a')))).toBe(true); // graceful: terminating
    expect(await bumps(() => cluster.delete(podKey('web-a'), { gracePeriodSeconds: 0 }))).toBe(false); // gone
    expect(await bumps(() => cluster.create(makePod('ds-b', NODE, { owner: 'DaemonSet' })))).toBe(false);
  });

  it('counts a change whose before the client does not hold (a bump too many only delays consolidation)', async () => {
    const { cluster, bumps } = setup(true);
    expect(await bumps(() => cluster.patch(podKey('web-a'), { metadata: { labels: { touched: '1' } } }))).toBe(true);
    expect(await bumps(() => cluster.patch(podKey('web-a'), { metadata: { labels: { touched: '2' } } }))).toBe(true);
  });
});
