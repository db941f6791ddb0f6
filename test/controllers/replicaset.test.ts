// SPDX-License-Identifier: Apache-2.0
// The ReplicaSet controller: replicas from the template, surplus removed, evicted pods replaced.
import { beforeEach, describe, expect, it } from 'vitest';
import type { ReplicaSet } from '../../src/core/cluster/memory/api-fields.js';
import type { Pod } from '../../src/core/cluster/types.js';
import { backends, memoryCluster, type Harness } from '../cluster/memory/backends.js';
import { replicaSet } from '../cluster/memory/objects.js';

describe.each(backends)('ReplicaSet controller on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.setup();
  });
  const web = { app: 'web' };
  const webPods = async (): Promise<Pod[]> =>
    (await h.client.list<Pod>('Pod', h.ns)).filter((p) => p.metadata.labels?.app === 'web');
  const rsKey = () => ({ kind: 'ReplicaSet' as const, namespace: h.ns, name: 'web' });

  it('creates spec.replicas Pending pods from the template, controlled by the ReplicaSet', async () => {
    const rs = await h.client.create(replicaSet(h, 'web', 3, web));
    await h.settle();
    const pods = await webPods();
    expect(pods).toHaveLength(3);
    for (const p of pods) {
      expect(p.metadata.name).toMatch(/^web-[a-z0-9]{5}$/);
      expect(p.metadata.labels).toEqual(web);
      expect(p.metadata.ownerReferences).toEqual([
        expect.objectContaining({
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'web',
          uid: rs.metadata.uid,
          controller: true,
        }),
      ]);
      expect(p.spec.nodeName).toBeUndefined();
      expect(p.status?.phase).toBe('Pending');
      expect(p.spec.containers?.[0].name).toBe('main');
    }
    expect((await h.client.get<ReplicaSet>(rsKey()))!.status).toMatchObject({ replicas: 3 });
  });

  it('replaces an evicted pod as soon as it starts terminating', async () => {
    await h.client.create(replicaSet(h, 'web', 2, web));
    await h.settle();
    for (const p of await webPods()) await h.runPod(h.ns, p.metadata.name, 'node-a');
    const [victim] = await webPods();
    await h.client.evict(h.ns, victim.metadata.name);
    await h.settle();
    const pods = await webPods();
    expect(pods).toHaveLength(3);
    expect(pods.find((p) => p.metadata.name === victim.metadata.name)!.metadata.deletionTimestamp).toBeDefined();
    const replacement = pods.filter((p) => p.metadata.name !== victim.metadata.name && !p.spec.nodeName);
    expect(replacement).toHaveLength(1);
    expect(replacement[0].status?.phase).toBe('Pending');
  });

  it('replaces a deleted unbound pod', async () => {
    await h.client.create(replicaSet(h, 'web', 1, web));
    await h.settle();
    const [first] = await webPods();
    await h.client.delete({ kind: 'Pod', namespace: h.ns, name: first.metadata.name });
    await h.settle();
    const pods = await webPods();
    expect(pods).toHaveLength(1);
    expect(pods[0].metadata.name).not.toBe(first.metadata.name);
  });

  it('deletes the surplus when scaled down, unscheduled pods first', async () => {
    await h.client.create(replicaSet(h, 'web', 3, web));
    await h.settle();
    const [a, b] = await webPods();
    await h.runPod(h.ns, a.metadata.name, 'node-a');
    await h.runPod(h.ns, b.metadata.name, 'node-a');
    await h.client.patch(rsKey(), { spec: { replicas: 2 } });
    await h.settle();
    const pods = await webPods();
    expect(pods.map((p) => p.metadata.name).sort()).toEqual([a.metadata.name, b.metadata.name].sort());
  });

  // Passes after the first: only the ReplicaSet object changes, or only a pod of one of two.
  it('follows a scale with no pod written since, and leaves an untouched ReplicaSet alone', async () => {
    await h.client.create(replicaSet(h, 'web', 2, web));
    await h.client.create(replicaSet(h, 'api', 1, { app: 'api' }));
    await h.settle();
    await h.settle();
    await h.client.patch(rsKey(), { spec: { replicas: 4 } });
    await h.settle();
    expect(await webPods()).toHaveLength(4);
    const [api] = (await h.client.list<Pod>('Pod', h.ns)).filter((p) => p.metadata.labels?.app === 'api');
    await h.client.delete({ kind: 'Pod', namespace: h.ns, name: api.metadata.name });
    await h.settle();
    const apiPods = (await h.client.list<Pod>('Pod', h.ns)).filter((p) => p.metadata.labels?.app === 'api');
    expect(apiPods).toHaveLength(1);
    expect(apiPods[0].metadata.name).not.toBe(api.metadata.name);
    expect(await webPods()).toHaveLength(4);
  });
});

describe('ReplicaSet controller (memory)', () => {
  it('generates the same names from the same seed', async () => {
    const names = async (): Promise<string[]> => {
      const { cluster, replicaSets } = memoryCluster();
      await cluster.create({ ...replicaSetInDefault(4) });
      await replicaSets.reconcile();
      return (await cluster.list('Pod')).map((p) => p.metadata.name);
    };
    const first = await names();
    expect(first).toHaveLength(4);
    expect(new Set(first).size).toBe(4);
    expect(await names()).toEqual(first);
  });

  it('removes the newest pod first among equals', async () => {
    const { cluster, clock, replicaSets } = memoryCluster();
    await cluster.create(replicaSetInDefault(1));
    await replicaSets.reconcile();
    const [older] = await cluster.list<Pod>('Pod');
    clock.advance(60_000);
    await cluster.patch({ kind: 'ReplicaSet', namespace: 'default', name: 'web' }, { spec: { replicas: 2 } });
    await replicaSets.reconcile();
    await cluster.patch({ kind: 'ReplicaSet', namespace: 'default', name: 'web' }, { spec: { replicas: 1 } });
    await replicaSets.reconcile();
    expect((await cluster.list('Pod')).map((p) => p.metadata.name)).toEqual([older.metadata.name]);
  });

  it("leaves a deleting ReplicaSet's pods alone", async () => {
    const { cluster, replicaSets } = memoryCluster();
    await cluster.create({
      ...replicaSetInDefault(2),
      metadata: { name: 'web', namespace: 'default', finalizers: ['kpol.dev/hold'] },
    });
    await replicaSets.reconcile();
    await cluster.delete({ kind: 'ReplicaSet', namespace: 'default', name: 'web' });
    const [p] = await cluster.list('Pod');
    await cluster.delete({ kind: 'Pod', namespace: 'default', name: p.metadata.name });
    await replicaSets.reconcile();
    expect(await cluster.list('Pod')).toHaveLength(1);
  });
});

function replicaSetInDefault(replicas: number): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'main' }] } },
    },
  };
}
