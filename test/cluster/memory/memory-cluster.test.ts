// SPDX-License-Identifier: Apache-2.0
// What only the in-memory server promises: seeding from a snapshot, deterministic uids and
// resourceVersions, copies in watch events, stats/objects/idle, and its documented deviations.
import { describe, expect, it } from 'vitest';
import { ApiError, type WatchEvent } from '../../../src/core/cluster/client.js';
import type { ConfigMap, Pod } from '../../../src/core/cluster/types.js';
import { makeNodeClaimAndNode, makePdb, makePod, makePool } from '../../support/cluster-builder.js';
import { memoryCluster } from './backends.js';
import { MAX_DISRUPTED_PODS } from '../../../src/core/cluster/memory/eviction.js';

const cm = (name: string, data: Record<string, string> = {}): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});

describe('MemoryCluster', () => {
  it('seeds a snapshot keeping uids, timestamps and finalizers, with fresh resourceVersions', async () => {
    const initial = makePool('default', 2, 1);
    const { cluster } = memoryCluster(initial);
    const pods = await cluster.list<Pod>('Pod');
    expect(pods.map((p) => p.metadata.uid)).toEqual(['uid-pod-default-app-0-0', 'uid-pod-default-app-1-0']);
    const claims = await cluster.list('NodeClaim');
    expect(claims[0].metadata.finalizers).toEqual(['karpenter.sh/termination']);
    expect(claims[0].metadata.creationTimestamp).toBe('2026-08-01T00:00:00Z');
    expect(cluster.stats()).toMatchObject({ NodeClaim: 2, Node: 2, Pod: 2, PodDisruptionBudget: 0 });
    expect(cluster.resourceVersion()).toBe('6');
  });

  it('refuses a snapshot with a duplicate object', () => {
    expect(() => memoryCluster([cm('a'), cm('a')])).toThrow(ApiError);
  });

  it('404s an unknown kind', async () => {
    const { cluster } = memoryCluster();
    await expect(
      cluster.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' } }),
    ).rejects.toMatchObject({ code: 404 });
  });

  it('assigns deterministic uids and creationTimestamp from the injected clock', async () => {
    const { cluster, clock } = memoryCluster();
    clock.advance(1500);
    const a = await cluster.create(cm('a'));
    expect(a.metadata.uid).toBe('00000000-0000-4000-8000-000000000001');
    expect(a.metadata.creationTimestamp).toBe('2026-08-20T12:00:01Z');
  });

  it("keeps no reference to the caller's object", async () => {
    const { cluster } = memoryCluster();
    const input = cm('a', { k: 'v' });
    await cluster.create(input);
    input.data!.k = 'mutated';
    expect((await cluster.get<ConfigMap>({ kind: 'ConfigMap', name: 'a' }))!.data).toEqual({ k: 'v' });
  });

  it('hands watchers frozen objects: one watcher cannot change what another sees', async () => {
    const { cluster } = memoryCluster();
    const seen: WatchEvent[] = [];
    const errors: unknown[] = [];
    cluster.watch('ConfigMap', (e) => {
      try {
        (e.object as ConfigMap).data!.k = 'mutated by the first watcher';
      } catch (err) {
        errors.push(err);
      }
    });
    cluster.watch('ConfigMap', (e) => seen.push(e));
    await cluster.create(cm('a', { k: 'v' }));
    await cluster.idle();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(TypeError);
    expect((seen[0].object as ConfigMap).data).toEqual({ k: 'v' });
    expect((await cluster.get<ConfigMap>({ kind: 'ConfigMap', name: 'a' }))!.data).toEqual({ k: 'v' });
  });

  it('a write that changes nothing does not bump the resourceVersion or notify', async () => {
    const { cluster } = memoryCluster();
    const a = await cluster.create(cm('a', { k: 'v' }));
    const events: WatchEvent[] = [];
    cluster.watch('ConfigMap', (e) => events.push(e));
    const same = await cluster.update(a);
    await cluster.patch({ kind: 'ConfigMap', name: 'a' }, { data: { k: 'v' } });
    await cluster.idle();
    expect(same.metadata.resourceVersion).toBe(a.metadata.resourceVersion);
    expect(events).toEqual([]);
  });

  it('stop() also drops events queued before it', async () => {
    const { cluster } = memoryCluster();
    const events: WatchEvent[] = [];
    const w = cluster.watch('ConfigMap', (e) => events.push(e));
    const write = cluster.create(cm('a'));
    w.stop();
    await write;
    await cluster.idle();
    expect(events).toEqual([]);
  });

  it("hands a throwing handler's error to onWatchError and keeps delivering", async () => {
    const errors: unknown[] = [];
    const { clock } = memoryCluster();
    const { MemoryCluster } = await import('../../../src/core/cluster/memory/memory-cluster.js');
    const cluster = new MemoryCluster(clock, [], { onWatchError: (e) => errors.push(e) });
    const names: string[] = [];
    cluster.watch('ConfigMap', () => {
      throw new Error('boom');
    });
    cluster.watch('ConfigMap', (e) => names.push(e.object.metadata.name));
    await cluster.create(cm('a'));
    await cluster.create(cm('b'));
    await cluster.idle();
    expect(errors).toHaveLength(2);
    expect(names).toEqual(['a', 'b']);
  });

  it('objects() exports every object by kind, then namespace and name', async () => {
    const { nodeClaim, node } = makeNodeClaimAndNode('default', 0);
    const { cluster } = memoryCluster([makePod('web-1', node.metadata.name), node, nodeClaim, cm('z')]);
    expect(cluster.objects().map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      `NodeClaim/${nodeClaim.metadata.name}`,
      `Node/${node.metadata.name}`,
      'Pod/web-1',
      'ConfigMap/z',
    ]);
  });

  it('does not collect dependents whose owner is a kind it does not store', async () => {
    const { nodeClaim, node } = makeNodeClaimAndNode('default', 0);
    const daemon = makePod('ds-1', node.metadata.name, { owner: 'DaemonSet' });
    const mirror = makePod('mirror-1', node.metadata.name, { owner: 'Node' });
    mirror.metadata.ownerReferences![0].uid = node.metadata.uid;
    const { cluster } = memoryCluster([
      { ...node, metadata: { ...node.metadata, finalizers: [] } },
      nodeClaim,
      daemon,
      mirror,
    ]);
    await cluster.delete({ kind: 'Node', name: node.metadata.name });
    expect((await cluster.get({ kind: 'Pod', name: 'ds-1' }))!.metadata.deletionTimestamp).toBeUndefined();
    // A mirror pod's owner is its Node, which this server does store.
    expect((await cluster.get({ kind: 'Pod', name: 'mirror-1' }))!.metadata.deletionTimestamp).toBeDefined();
  });

  it('cascades through several levels (NodePool → NodeClaim → Node)', async () => {
    const { nodeClaim, node } = makeNodeClaimAndNode('default', 0);
    const strip = <T extends { metadata: { finalizers?: string[] } }>(o: T): T => ({
      ...o,
      metadata: { ...o.metadata, finalizers: [] },
    });
    const { makeNodePool } = await import('../../support/cluster-builder.js');
    const { cluster } = memoryCluster([makeNodePool('default'), strip(nodeClaim), strip(node)]);
    await cluster.delete({ kind: 'NodePool', name: 'default' });
    expect(cluster.stats()).toMatchObject({ NodePool: 0, NodeClaim: 0, Node: 0 });
  });

  describe('PDB status it did not compute', () => {
    const ready = (name: string) => makePod(name, 'node-a', { labels: { app: 'web' } });

    it('takes a status without observedGeneration (a fixture) as it stands', async () => {
      const { cluster } = memoryCluster([
        ready('web-1'),
        makePdb('web', { matchLabels: { app: 'web' } }, { disruptionsAllowed: 1 }),
      ]);
      await cluster.evict('default', 'web-1');
      const pdb = (await cluster.get({ kind: 'PodDisruptionBudget', namespace: 'default', name: 'web' }))!;
      expect(pdb.status).toMatchObject({ disruptionsAllowed: 0, disruptedPods: { 'web-1': '2026-08-20T12:00:00Z' } });
    });

    it('429s while the status is older than the spec (observedGeneration < generation)', async () => {
      const pdb = makePdb('web', { matchLabels: { app: 'web' } }, { disruptionsAllowed: 1 });
      const { cluster } = memoryCluster([
        ready('web-1'),
        { ...pdb, metadata: { ...pdb.metadata, generation: 2 }, status: { ...pdb.status, observedGeneration: 1 } },
      ]);
      await expect(cluster.evict('default', 'web-1')).rejects.toMatchObject({ code: 429 });
    });

    it('403s while more than MaxDisruptedPodSize (2000) evictions wait for the disruption controller', async () => {
      const waiting = (n: number) =>
        Object.fromEntries(Array.from({ length: n }, (_, i) => [`gone-${i}`, '2026-08-20T11:59:00Z']));
      const pdb = (n: number) => {
        const p = makePdb('web', { matchLabels: { app: 'web' } }, { disruptionsAllowed: 5 });
        return { ...p, status: { ...p.status, disruptedPods: waiting(n) } };
      };
      const full = memoryCluster([ready('web-1'), pdb(MAX_DISRUPTED_PODS + 1)]).cluster;
      await expect(full.evict('default', 'web-1')).rejects.toMatchObject({
        code: 403,
        message:
          'poddisruptionbudgets.policy "web" is forbidden: DisruptedPods map too big - too many evictions not ' +
          'confirmed by PDB controller',
      });
      await full.evict('default', 'web-1').catch(() => undefined);
      expect((await full.get({ kind: 'Pod', namespace: 'default', name: 'web-1' }))!.metadata.deletionTimestamp).toBe(
        undefined,
      );
      // At the limit itself the eviction goes through.
      await memoryCluster([ready('web-1'), pdb(MAX_DISRUPTED_PODS)]).cluster.evict('default', 'web-1');
    });

    it('403s when the budget says fewer than zero disruptions are allowed', async () => {
      const pdb = makePdb('web', { matchLabels: { app: 'web' } }, { disruptionsAllowed: -1 });
      const { cluster } = memoryCluster([ready('web-1'), pdb]);
      await expect(cluster.evict('default', 'web-1')).rejects.toMatchObject({ code: 403 });
    });
  });
});
