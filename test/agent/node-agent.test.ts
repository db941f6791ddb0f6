// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { NodeAgent } from '../../src/world/agent/node-agent.js';
import { SimulatedCloud } from '../../src/world/cloud/simulated-cloud.js';
import { ApiError, type ClusterClient } from '../../src/core/cluster/client.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { Condition, KubeObject, Node, NodeClaim, Pod } from '../../src/core/cluster/types.js';
import type { EventRecorder, RecordedEvent } from '../../src/core/observe/recorder.js';

const T0 = Date.UTC(2026, 0, 5, 12);
const cond = (obj: { status?: { conditions?: Condition[] } } | undefined, type: string) =>
  obj?.status?.conditions?.find((c) => c.type === type);

function claim(name: string, extra: Partial<NodeClaim['spec']> = {}): NodeClaim {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      labels: { 'karpenter.sh/nodepool': 'default', team: 'web' },
      finalizers: ['karpenter.sh/termination'],
    },
    spec: {
      requirements: [
        { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large', 'c5.large'] },
        { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
        { key: 'karpenter.sh/nodepool', operator: 'In', values: ['default'] },
      ],
      ...extra,
    },
  };
}

function pod(name: string, nodeName?: string, grace?: number): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      containers: [{ name: 'c' }],
      ...(nodeName ? { nodeName } : {}),
      ...(grace !== undefined ? { terminationGracePeriodSeconds: grace } : {}),
    },
    status: { phase: 'Pending' },
  };
}

class Events implements EventRecorder {
  readonly events: Omit<RecordedEvent, 'at'>[] = [];
  publish(e: Omit<RecordedEvent, 'at'>): void {
    this.events.push(e);
  }
}

function setup(
  opts: {
    initDelayMs?: number;
    launchLatencyMs?: number;
    client?: (c: MemoryCluster) => ClusterClient;
    promptWatches?: boolean;
  } = {},
) {
  const clock = new FakeClock(T0);
  const cluster = new MemoryCluster(clock);
  const cloud = new SimulatedCloud({
    clock,
    launchLatencyMs: opts.launchLatencyMs ?? 30_000,
    terminationDelayMs: 10_000,
  });
  const recorder = new Events();
  const client = opts.client ? opts.client(cluster) : cluster;
  const agent = new NodeAgent({
    client,
    cloud,
    clock,
    recorder,
    initDelayMs: opts.initDelayMs ?? 10_000,
    promptWatches: opts.promptWatches ?? false,
  });
  const getClaim = (n: string) => cluster.get<NodeClaim>({ kind: 'NodeClaim', name: n });
  const getNode = (n: string) => cluster.get<Node>({ kind: 'Node', name: n });
  const getPod = (n: string) => cluster.get<Pod>({ kind: 'Pod', name: n, namespace: 'default' });
  return { clock, cluster, cloud, agent, recorder, getClaim, getNode, getPod };
}

/** Launch, register and initialize one NodeClaim; returns its Node's name. */
async function readyNode(s: ReturnType<typeof setup>, name = 'default-a'): Promise<string> {
  await s.cluster.create(claim(name));
  await s.agent.reconcile();
  s.clock.advance(30_000);
  await s.agent.reconcile();
  s.clock.advance(10_000);
  await s.agent.reconcile();
  return (await s.getClaim(name))!.status!.nodeName!;
}

describe('NodeAgent: NodeClaim lifecycle', () => {
  it('launches, registers after the launch latency, and initializes after the init delay', async () => {
    const s = setup();
    await s.cluster.create(
      claim('default-a', {
        taints: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }],
        startupTaints: [{ key: 'node.cilium.io/agent-not-ready', effect: 'NoExecute' }],
      }),
    );

    expect((await s.agent.reconcile()).launched).toEqual(['default-a']);
    let nc = (await s.getClaim('default-a'))!;
    const providerID = nc.status!.providerID!;
    expect(providerID).toMatch(/^kpol-sim:\/\/\/us-west-2a\/i-[0-9a-f]{17}$/);
    const nodeName = providerID.split('/').pop()!;
    expect(nc.metadata.labels).toMatchObject({
      'node.kubernetes.io/instance-type': 'c5.large',
      'topology.kubernetes.io/zone': 'us-west-2a',
      'karpenter.sh/capacity-type': 'on-demand',
      'karpenter.sh/nodepool': 'default',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/hostname': nodeName,
      team: 'web',
    });
    expect(nc.status!.capacity).toEqual({ cpu: '2', memory: '3788Mi', pods: '29' });
    expect(nc.status!.allocatable).toEqual({ cpu: '1930m', memory: '3114Mi', pods: '29' });
    expect(cond(nc, 'Launched')).toMatchObject({ status: 'True', reason: 'Launched' });
    expect(await s.cluster.list('Node')).toEqual([]);

    s.clock.advance(29_000);
    expect((await s.agent.reconcile()).registered).toEqual([]);
    s.clock.advance(1_000);
    expect((await s.agent.reconcile()).registered).toEqual(['default-a']);
    const node = (await s.getNode(nodeName))!;
    expect(node.spec.providerID).toBe(providerID);
    expect(node.metadata.labels).toMatchObject({
      'node.kubernetes.io/instance-type': 'c5.large',
      'karpenter.sh/registered': 'true',
      'kubernetes.io/hostname': nodeName,
    });
    expect(node.metadata.labels!['karpenter.sh/initialized']).toBeUndefined();
    expect(node.metadata.finalizers).toEqual(['karpenter.sh/termination']);
    expect(node.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'NodeClaim', name: 'default-a', uid: nc.metadata.uid }),
    ]);
    expect(node.spec.taints!.map((t) => t.key)).toEqual(['dedicated', 'node.cilium.io/agent-not-ready']);
    expect(node.status!.allocatable).toEqual(nc.status!.allocatable);
    expect(cond(node, 'Ready')).toMatchObject({ status: 'True', reason: 'KubeletReady' });
    nc = (await s.getClaim('default-a'))!;
    expect(nc.status!.nodeName).toBe(nodeName);
    expect(cond(nc, 'Registered')?.status).toBe('True');
    expect(cond(nc, 'Initialized')).toBeUndefined();

    s.clock.advance(9_999);
    expect((await s.agent.reconcile()).initialized).toEqual([]);
    s.clock.advance(1);
    expect((await s.agent.reconcile()).initialized).toEqual(['default-a']);
    const initNode = (await s.getNode(nodeName))!;
    expect(initNode.metadata.labels!['karpenter.sh/initialized']).toBe('true');
    expect(initNode.spec.taints!.map((t) => t.key)).toEqual(['dedicated']);
    expect(cond(await s.getClaim('default-a'), 'Initialized')?.status).toBe('True');

    // Steady state: nothing more happens, and the cloud saw exactly one create.
    const again = await s.agent.reconcile();
    expect([...again.launched, ...again.registered, ...again.initialized]).toEqual([]);
    expect(s.cloud.calls.filter((c) => c.op === 'create')).toHaveLength(1);
  });

  it('a failed status write does not launch a second instance (launch cache)', async () => {
    let failed = false;
    const s = setup({
      client: (c) =>
        new Proxy(c, {
          get(target, prop, recv) {
            if (prop === 'update')
              return async (obj: KubeObject) => {
                if (!failed) {
                  failed = true;
                  throw new ApiError(409, 'Conflict', 'the object has been modified');
                }
                return target.update(obj);
              };
            const v = Reflect.get(target, prop, recv);
            return typeof v === 'function' ? v.bind(target) : v;
          },
        }),
    });
    await s.cluster.create(claim('default-a'));
    expect((await s.agent.reconcile()).launched).toEqual([]);
    expect((await s.agent.reconcile()).launched).toEqual(['default-a']);
    expect(s.cloud.calls.filter((c) => c.op === 'create')).toHaveLength(1);
    expect(s.cloud.orphans(await s.cluster.list<NodeClaim>('NodeClaim'))).toEqual([]);
  });

  it(
    'an instance launched for a NodeClaim deleted before its status write landed is terminated,' + ' not leaked',
    async () => {
      let fail = true;
      const s = setup({
        launchLatencyMs: 0,
        client: (c) =>
          new Proxy(c, {
            get(target, prop, recv) {
              if (prop === 'update')
                return async (obj: KubeObject) => {
                  if (fail) throw new ApiError(409, 'Conflict', 'the object has been modified');
                  return target.update(obj);
                };
              const v = Reflect.get(target, prop, recv);
              return typeof v === 'function' ? v.bind(target) : v;
            },
          }),
      });
      await s.cluster.create(claim('default-a'));
      await s.agent.reconcile();
      expect(await s.cloud.list()).toHaveLength(1);
      await s.cluster.delete({ kind: 'NodeClaim', name: 'default-a' });
      fail = false;
      expect((await s.agent.reconcile()).finalized).toEqual(['default-a']);
      expect(await s.getClaim('default-a')).toBeUndefined();
      expect((await s.cloud.list()).map((i) => i.state)).toEqual(['terminating']);
    },
  );
});

describe('NodeAgent: launch failures', () => {
  it('a generic failure sets Launched=False/LaunchFailed and is retried next pass', async () => {
    const s = setup();
    s.cloud.failNextCreates(1);
    await s.cluster.create(claim('default-a'));
    expect((await s.agent.reconcile()).launchFailed).toEqual(['default-a']);
    const nc = (await s.getClaim('default-a'))!;
    expect(cond(nc, 'Launched')).toMatchObject({
      status: 'False',
      reason: 'LaunchFailed',
      message: 'simulated launch failure',
    });
    expect(nc.metadata.deletionTimestamp).toBeUndefined();
    expect((await s.agent.reconcile()).launched).toEqual(['default-a']);
    expect(cond(await s.getClaim('default-a'), 'Launched')).toMatchObject({ status: 'True', reason: 'Launched' });
  });

  it(
    'a failure that lasts the launch timeout (5 min) deletes the NodeClaim; its finalizer goes ' +
      'since nothing launched',
    async () => {
      const s = setup();
      s.cloud.failNextCreates(100);
      await s.cluster.create(claim('default-a'));
      await s.agent.reconcile();
      s.clock.advance(299_999);
      expect((await s.agent.reconcile()).deletedNodeClaims).toEqual([]);
      s.clock.advance(1);
      expect((await s.agent.reconcile()).deletedNodeClaims).toEqual(['default-a']);
      expect((await s.getClaim('default-a'))?.metadata.deletionTimestamp).toBeDefined();
      expect((await s.agent.reconcile()).finalized).toEqual(['default-a']);
      expect(await s.getClaim('default-a')).toBeUndefined();
    },
  );

  it(
    'insufficient capacity: Launched=False/InsufficientCapacity, a Warning event, and the ' +
      'NodeClaim deleted at once',
    async () => {
      const s = setup();
      s.cloud.exhaust(() => true);
      await s.cluster.create(claim('default-a'));
      const seen: NodeClaim[] = [];
      const w = s.cluster.watch('NodeClaim', (e) => seen.push(e.object as NodeClaim));
      const pass = await s.agent.reconcile();
      await s.cluster.idle();
      w.stop();
      expect(pass.launchFailed).toEqual(['default-a']);
      expect(pass.deletedNodeClaims).toEqual(['default-a']);
      expect(seen.map((o) => cond(o, 'Launched')?.reason)).toContain('InsufficientCapacity');
      expect(s.recorder.events).toEqual([
        expect.objectContaining({
          type: 'Warning',
          reason: 'InsufficientCapacityError',
          object: expect.objectContaining({ name: 'default-a' }),
        }),
      ]);
      expect(s.recorder.events[0].message).toMatch(/^NodeClaim default-a event: insufficient capacity/);
      // Deleted but still held by its termination finalizer; never launched, so the next pass removes it.
      expect((await s.getClaim('default-a'))?.metadata.deletionTimestamp).toBeDefined();
      expect((await s.agent.reconcile()).finalized).toEqual(['default-a']);
      expect(await s.getClaim('default-a')).toBeUndefined();
      expect(await s.cloud.list()).toEqual([]);
    },
  );

  it('a launched instance that never registers within 15 min gets its NodeClaim deleted', async () => {
    const s = setup({ launchLatencyMs: 60 * 60_000 });
    await s.cluster.create(claim('default-a'));
    await s.agent.reconcile();
    s.clock.advance(15 * 60_000 - 1);
    expect((await s.agent.reconcile()).deletedNodeClaims).toEqual([]);
    s.clock.advance(1);
    expect((await s.agent.reconcile()).deletedNodeClaims).toEqual(['default-a']);
    // It has an instance: the agent leaves the finalizer to termination.
    expect((await s.agent.reconcile()).finalized).toEqual([]);
    expect(await s.getClaim('default-a')).toBeDefined();
  });
});

// Each kubelet case twice: reading every pod every pass, and reading only the pods that can need
// it (promptWatches: changed pods, pods on changed Nodes, terminating pods; pod-work.ts).
describe.each([false, true])('NodeAgent: kubelet (promptWatches %s)', (promptWatches) => {
  it('starts bound pods, leaves unbound pods alone', async () => {
    const s = setup({ promptWatches });
    const nodeName = await readyNode(s);
    await s.cluster.create(pod('bound', nodeName));
    await s.cluster.create(pod('unbound'));
    s.clock.advance(1_000);
    expect((await s.agent.reconcile()).podsStarted).toEqual(['default/bound']);
    const p = (await s.getPod('bound'))!;
    expect(p.status).toMatchObject({ phase: 'Running', startTime: '2026-01-05T12:00:41Z' });
    expect(cond(p, 'Ready')?.status).toBe('True');
    expect((await s.getPod('unbound'))!.status!.phase).toBe('Pending');
  });

  it('removes a terminating pod once its grace period has passed', async () => {
    const s = setup({ promptWatches });
    const nodeName = await readyNode(s);
    await s.cluster.create(pod('web', nodeName, 5));
    await s.agent.reconcile();
    await s.cluster.delete({ kind: 'Pod', name: 'web', namespace: 'default' });
    expect((await s.getPod('web'))!.metadata.deletionTimestamp).toBeDefined();
    s.clock.advance(4_999);
    expect((await s.agent.reconcile()).podsRemoved).toEqual([]);
    expect(await s.getPod('web')).toBeDefined();
    s.clock.advance(1);
    expect((await s.agent.reconcile()).podsRemoved).toEqual(['default/web']);
    expect(await s.getPod('web')).toBeUndefined();
  });

  it('removes a terminating pod once its grace has passed, also after passes in which nothing changed', async () => {
    const s = setup({ promptWatches });
    const nodeName = await readyNode(s);
    await s.cluster.create(pod('web', nodeName, 5));
    await s.agent.reconcile();
    await s.cluster.delete({ kind: 'Pod', name: 'web', namespace: 'default' });
    for (let i = 0; i < 3; i++) expect((await s.agent.reconcile()).podsRemoved).toEqual([]);
    s.clock.advance(5_000);
    expect((await s.agent.reconcile()).podsRemoved).toEqual(['default/web']);
  });

  it('starts a pod bound after quiet passes', async () => {
    const s = setup({ promptWatches });
    const nodeName = await readyNode(s);
    for (let i = 0; i < 3; i++) await s.agent.reconcile();
    await s.cluster.create(pod('late', nodeName));
    expect((await s.agent.reconcile()).podsStarted).toEqual(['default/late']);
  });

  it(
    'marks a Node NotReady (and its pods not Ready) once its instance is gone; removes pods on ' + 'missing Nodes',
    async () => {
      const s = setup({ promptWatches });
      const nodeName = await readyNode(s);
      await s.cluster.create(pod('web', nodeName));
      await s.cluster.create(pod('ghost', 'no-such-node'));
      const pass = await s.agent.reconcile();
      expect(pass.podsRemoved).toEqual(['default/ghost']);
      const nc = (await s.getClaim('default-a'))!;
      await s.cloud.delete(nc.status!.providerID!);
      expect((await s.agent.reconcile()).nodesNotReady).toEqual([nodeName]);
      expect(cond(await s.getNode(nodeName), 'Ready')).toMatchObject({
        status: 'Unknown',
        reason: 'NodeStatusUnknown',
      });
      expect(cond(await s.getPod('web'), 'Ready')?.status).toBe('False');
      // A terminating pod on a dead node stays: no kubelet to finish it.
      await s.cluster.delete({ kind: 'Pod', name: 'web', namespace: 'default' });
      s.clock.advance(60_000);
      expect((await s.agent.reconcile()).podsRemoved).toEqual([]);
    },
  );

  it('orphan detection: an instance whose NodeClaim vanished without termination', async () => {
    const s = setup({ promptWatches });
    await readyNode(s, 'default-a');
    await readyNode(s, 'default-b');
    const b = (await s.getClaim('default-b'))!;
    await s.cluster.patch({ kind: 'NodeClaim', name: 'default-b' }, { metadata: { finalizers: null } });
    await s.cluster.delete({ kind: 'NodeClaim', name: 'default-b' });
    const orphans = s.cloud.orphans(await s.cluster.list<NodeClaim>('NodeClaim'));
    expect(orphans.map((i) => i.providerID)).toEqual([b.status!.providerID]);
  });
});

/** `client` with its list calls counted (what a pass reads). */
function countingLists(client: MemoryCluster): { client: ClusterClient; lists: () => number } {
  let n = 0;
  const proxy = new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'list') return (...args: Parameters<MemoryCluster['list']>) => (n++, target.list(...args));
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { client: proxy, lists: () => n };
}

describe.each([false, true])('NodeAgent: quiet passes (promptWatches %s)', (promptWatches) => {
  it('a settled agent reads nothing until a NodeClaim, Node or Pod changes or the cloud reports a change', async () => {
    let counter!: ReturnType<typeof countingLists>;
    const s = setup({ client: (c) => (counter = countingLists(c)).client, promptWatches });
    const nodeName = await readyNode(s);
    await s.agent.reconcile(); // confirms the fixpoint after the last write
    const before = counter.lists();
    for (let i = 0; i < 5; i++) {
      s.clock.advance(60_000);
      expect(await s.agent.reconcile()).toEqual(
        expect.objectContaining({ launched: [], nodesNotReady: [], podsStarted: [] }),
      );
    }
    expect(counter.lists()).toBe(before);

    // A pod written to the cluster is seen on the next pass.
    await s.cluster.create(pod('late', nodeName));
    expect((await s.agent.reconcile()).podsStarted).toEqual(['default/late']);
  });

  it(
    'an instance terminated in the cloud with nothing written to the cluster still makes its ' + 'Node NotReady',
    async () => {
      const s = setup({ promptWatches });
      const nodeName = await readyNode(s);
      for (let i = 0; i < 3; i++) await s.agent.reconcile();
      const nc = (await s.getClaim('default-a'))!;
      // Terminating from a moment in the future: only the cloud's clock-driven transition changes anything.
      await s.cloud.scheduleInterruption(nc.status!.providerID!, s.clock.now() + 120_000, 'InstanceTerminating');
      expect((await s.agent.reconcile()).nodesNotReady).toEqual([]);
      s.clock.advance(119_000);
      expect((await s.agent.reconcile()).nodesNotReady).toEqual([]);
      s.clock.advance(1_000);
      expect((await s.agent.reconcile()).nodesNotReady).toEqual([nodeName]);
    },
  );
});
