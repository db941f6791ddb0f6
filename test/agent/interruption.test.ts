// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { InterruptionController } from '../../src/world/agent/interruption.js';
import { NodeAgent } from '../../src/world/agent/node-agent.js';
import { SimulatedCloud } from '../../src/world/cloud/simulated-cloud.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { Node, NodeClaim } from '../../src/core/cluster/types.js';
import type { EventRecorder, RecordedEvent } from '../../src/core/observe/recorder.js';

const T0 = Date.UTC(2026, 0, 5, 12);

class Events implements EventRecorder {
  readonly events: Omit<RecordedEvent, 'at'>[] = [];
  publish(e: Omit<RecordedEvent, 'at'>): void {
    this.events.push(e);
  }
}

function claim(name: string, capacityType = 'spot'): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name, labels: { 'karpenter.sh/nodepool': 'batch' }, finalizers: ['karpenter.sh/termination'] },
    spec: {
      requirements: [
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: [capacityType] },
      ],
    },
  };
}

async function setup(names: string[]) {
  const clock = new FakeClock(T0);
  const cluster = new MemoryCluster(clock);
  const cloud = new SimulatedCloud({ clock, launchLatencyMs: 0, terminationDelayMs: 10_000 });
  const recorder = new Events();
  const agent = new NodeAgent({ client: cluster, cloud, clock });
  const controller = new InterruptionController({ client: cluster, source: cloud, clock, recorder });
  for (const n of names) await cluster.create(claim(n));
  await agent.reconcile();
  await agent.reconcile();
  const claims = new Map((await cluster.list<NodeClaim>('NodeClaim')).map((c) => [c.metadata.name, c]));
  return { clock, cluster, cloud, recorder, agent, controller, claims };
}

describe('InterruptionController', () => {
  it(
    'a spot interruption deletes the NodeClaim at once, publishes the events, and lists it as ' +
      'pending until the deadline',
    async () => {
      const s = await setup(['batch-a', 'batch-b']);
      const a = s.claims.get('batch-a')!;
      s.cloud.interrupt(a.status!.providerID!);
      const pass = await s.controller.reconcile();
      expect(pass.deleted).toEqual(['batch-a']);
      expect(
        (await s.cluster.get<NodeClaim>({ kind: 'NodeClaim', name: 'batch-a' }))!.metadata.deletionTimestamp,
      ).toBeDefined();
      expect(
        (await s.cluster.get<NodeClaim>({ kind: 'NodeClaim', name: 'batch-b' }))!.metadata.deletionTimestamp,
      ).toBeUndefined();
      const nodeName = a.status!.nodeName!;
      expect(s.recorder.events.map((e) => [e.reason, e.object.kind, e.object.name, e.message])).toEqual([
        ['SpotInterrupted', 'NodeClaim', 'batch-a', 'Spot interruption warning was triggered'],
        ['SpotInterrupted', 'Node', nodeName, 'Spot interruption warning was triggered'],
        ['TerminatingOnInterruption', 'NodeClaim', 'batch-a', 'Interruption triggered termination for the NodeClaim'],
        ['TerminatingOnInterruption', 'Node', nodeName, 'Interruption triggered termination for the Node'],
      ]);
      expect(s.controller.pendingInterruptions()).toEqual([
        {
          nodeClaim: 'batch-a',
          nodeName,
          nodePool: 'batch',
          instanceType: 'm5.large',
          zone: a.metadata.labels!['topology.kubernetes.io/zone'],
          capacityType: 'spot',
          providerID: a.status!.providerID,
          kind: 'SpotInterruption',
          receivedAt: T0,
          deadline: T0 + 120_000,
        },
      ]);
      // The interrupted spot offering is unavailable to the next launch.
      const zone = a.metadata.labels!['topology.kubernetes.io/zone'];
      expect(
        s.cloud
          .instanceTypes()
          .find((t) => t.name === 'm5.large')!
          .offerings.find((o) => o.zone === zone && o.capacityType === 'spot')!.available,
      ).toBe(false);
      // Handed out once.
      expect((await s.controller.reconcile()).deleted).toEqual([]);

      s.clock.advance(119_999);
      expect(s.controller.pendingInterruptions()).toHaveLength(1);
      s.clock.advance(1);
      expect(s.controller.pendingInterruptions()).toEqual([]);
      s.clock.advance(10_000);
      expect((await s.agent.reconcile()).nodesNotReady).toEqual([nodeName]);
      expect((await s.cluster.get<Node>({ kind: 'Node', name: nodeName }))!.status!.conditions![0].status).toBe(
        'Unknown',
      );
    },
  );

  it('acknowledge drops a pending interruption; a NodeClaim that is gone drops out too', async () => {
    const s = await setup(['batch-a', 'batch-b']);
    s.cloud.interrupt(s.claims.get('batch-a')!.status!.providerID!);
    s.cloud.interrupt(s.claims.get('batch-b')!.status!.providerID!, 'ScheduledChange', 3_600_000);
    await s.controller.reconcile();
    expect(s.controller.pendingInterruptions().map((p) => [p.nodeClaim, p.kind])).toEqual([
      ['batch-a', 'SpotInterruption'],
      ['batch-b', 'ScheduledChange'],
    ]);
    s.controller.acknowledge('batch-a');
    expect(s.controller.pendingInterruptions().map((p) => p.nodeClaim)).toEqual(['batch-b']);
    await s.cluster.patch({ kind: 'NodeClaim', name: 'batch-b' }, { metadata: { finalizers: null } });
    await s.controller.reconcile();
    expect(s.controller.pendingInterruptions()).toEqual([]);
    expect(
      s.recorder.events
        .filter((e) => e.object.name === 'batch-b' && e.object.kind === 'NodeClaim')
        .map((e) => e.reason),
    ).toEqual(['InstanceUnhealthy', 'TerminatingOnInterruption']);
  });

  it('a rebalance recommendation only records an event', async () => {
    const s = await setup(['batch-a']);
    s.cloud.interrupt(s.claims.get('batch-a')!.status!.providerID!, 'RebalanceRecommendation');
    const pass = await s.controller.reconcile();
    expect(pass.deleted).toEqual([]);
    expect(s.controller.pendingInterruptions()).toEqual([]);
    expect(s.recorder.events.map((e) => [e.type, e.reason])).toEqual([
      ['Normal', 'SpotRebalanceRecommendation'],
      ['Normal', 'SpotRebalanceRecommendation'],
    ]);
    expect(
      (await s.cluster.get<NodeClaim>({ kind: 'NodeClaim', name: 'batch-a' }))!.metadata.deletionTimestamp,
    ).toBeUndefined();
  });

  it('ignores instances no NodeClaim owns, and does not re-delete a NodeClaim already deleting', async () => {
    const s = await setup(['batch-a']);
    const stray = await s.cloud.create(claim('not-in-cluster'));
    s.cloud.interrupt(stray.providerID);
    await s.cluster.delete({ kind: 'NodeClaim', name: 'batch-a' });
    s.cloud.interrupt(s.claims.get('batch-a')!.status!.providerID!, 'InstanceTerminating');
    const pass = await s.controller.reconcile();
    expect(pass.ignored.map((n) => n.providerID)).toEqual([stray.providerID]);
    expect(pass.deleted).toEqual([]);
    expect(s.controller.pendingInterruptions()).toEqual([]);
    expect(s.recorder.events.map((e) => e.reason)).toEqual(['InstanceTerminating', 'InstanceTerminating']);
  });
});
