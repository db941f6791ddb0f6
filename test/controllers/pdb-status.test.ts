// SPDX-License-Identifier: Apache-2.0
// Conformance: the PDB status the cluster's disruption controller writes, through a whole
// eviction → replacement → Ready cycle with the ReplicaSet controller.
import { beforeEach, describe, expect, it } from 'vitest';
import type { PdbStatus } from '../../src/core/cluster/memory/api-fields.js';
import type { Pod, PodDisruptionBudget } from '../../src/core/cluster/types.js';
import { DELETION_TIMEOUT_MS } from '../../src/world/controllers/pdb-arithmetic.js';
import { backends, memoryCluster, type Harness } from '../cluster/memory/backends.js';
import { pdb, replicaSet } from '../cluster/memory/objects.js';
import { makePdb, makePod } from '../support/cluster-builder.js';

describe.each(backends)('PDB status on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.setup();
  });
  const web = { app: 'web' };
  const status = async (): Promise<PdbStatus> =>
    ((await h.client.get<PodDisruptionBudget>({ kind: 'PodDisruptionBudget', namespace: h.ns, name: 'web' }))!.status ??
      {}) as PdbStatus;
  const podsOfWeb = async (): Promise<Pod[]> =>
    (await h.client.list<Pod>('Pod', h.ns)).filter((p) => p.metadata.labels?.app === 'web');
  const runAllPending = async (): Promise<void> => {
    for (const p of await podsOfWeb()) if (!p.spec.nodeName) await h.runPod(h.ns, p.metadata.name, 'node-a');
    await h.settle();
  };

  it.each([
    [
      'maxUnavailable 1',
      { maxUnavailable: 1 },
      { expectedPods: 3, currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1 },
    ],
    [
      'maxUnavailable "50%"',
      { maxUnavailable: '50%' },
      { expectedPods: 3, currentHealthy: 3, desiredHealthy: 1, disruptionsAllowed: 2 },
    ],
    [
      'minAvailable 3',
      { minAvailable: 3 },
      { expectedPods: 3, currentHealthy: 3, desiredHealthy: 3, disruptionsAllowed: 0 },
    ],
    [
      'minAvailable "50%"',
      { minAvailable: '50%' },
      { expectedPods: 3, currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1 },
    ],
  ] as const)('%s over 3 Ready replicas', async (_name, spec, want) => {
    await h.client.create(replicaSet(h, 'web', 3, web));
    await h.settle();
    await runAllPending();
    const created = await h.client.create(pdb(h, 'web', web, spec));
    await h.settle();
    expect(await status()).toMatchObject({ ...want, observedGeneration: created.metadata.generation });
  });

  // Label sets are shared between stored pods and a selector's answer per label set is kept
  // (pdb-arithmetic.ts): pods of another app in the same namespace, listed first, stay out.
  it('counts only the pods its selector matches among other apps in the namespace', async () => {
    await h.client.create(replicaSet(h, 'api', 2, { app: 'api' }));
    await h.client.create(replicaSet(h, 'web', 3, web));
    await h.settle();
    for (const p of await h.client.list<Pod>('Pod', h.ns)) await h.runPod(h.ns, p.metadata.name, 'node-a');
    await h.settle();
    await h.client.create(pdb(h, 'web', web, { maxUnavailable: 1 }));
    await h.settle();
    expect(await status()).toMatchObject({ expectedPods: 3, currentHealthy: 3, disruptionsAllowed: 1 });
  });

  it('minAvailable "50%" of 3: one eviction leaves 0 allowed until the replacement is Ready', async () => {
    await h.client.create(replicaSet(h, 'web', 3, web));
    await h.settle();
    await runAllPending();
    await h.client.create(pdb(h, 'web', web, { minAvailable: '50%' }));
    await h.settle();
    expect(await status()).toMatchObject({ desiredHealthy: 2, disruptionsAllowed: 1 });

    const [victim] = await podsOfWeb();
    await h.client.evict(h.ns, victim.metadata.name, { uid: victim.metadata.uid });
    await h.settle();
    const pods = await podsOfWeb();
    expect(pods).toHaveLength(4);
    expect(pods.filter((p) => p.metadata.deletionTimestamp === undefined && !p.spec.nodeName)).toHaveLength(1);
    expect(await status()).toMatchObject({
      expectedPods: 3,
      currentHealthy: 2,
      desiredHealthy: 2,
      disruptionsAllowed: 0,
    });

    await runAllPending();
    expect(await status()).toMatchObject({ currentHealthy: 3, disruptionsAllowed: 1 });
  });

  it('a spec change is observed (observedGeneration follows generation)', async () => {
    await h.client.create(replicaSet(h, 'web', 2, web));
    await h.settle();
    await runAllPending();
    const created = await h.client.create(pdb(h, 'web', web, { minAvailable: 2 }));
    await h.settle();
    expect((await status()).disruptionsAllowed).toBe(0);
    const current = (await h.client.get<PodDisruptionBudget>({
      kind: 'PodDisruptionBudget',
      namespace: h.ns,
      name: 'web',
    }))!;
    const changed = await h.client.update({ ...current, spec: { ...current.spec, minAvailable: 1 } });
    expect(changed.metadata.generation).toBeGreaterThan(created.metadata.generation!);
    await h.settle();
    expect(await status()).toMatchObject({ observedGeneration: changed.metadata.generation, disruptionsAllowed: 1 });
  });
});

describe('PDB status (memory, fake clock)', () => {
  it('an evicted pod that is still running counts as unhealthy until its record expires', async () => {
    const pod = makePod('web-1', 'node-a', { labels: { app: 'web' }, owner: 'none' });
    const other = makePod('web-2', 'node-a', { labels: { app: 'web' }, owner: 'none' });
    const { cluster, clock, pdbs } = memoryCluster([
      pod,
      other,
      makePdb('web', { matchLabels: { app: 'web' } }, { minAvailable: 1 }),
    ]);
    await pdbs.reconcile();
    // The eviction record alone (as if the DELETE after it had not landed) keeps web-1 unhealthy.
    const key = { kind: 'PodDisruptionBudget' as const, namespace: 'default', name: 'web' };
    const pdbObj = (await cluster.get<PodDisruptionBudget>(key))!;
    await cluster.update({
      ...pdbObj,
      status: { ...pdbObj.status, disruptedPods: { 'web-1': '2026-08-20T12:00:00Z' } } as PodDisruptionBudget['status'],
    });
    await pdbs.reconcile();
    expect((await cluster.get<PodDisruptionBudget>(key))!.status).toMatchObject({
      currentHealthy: 1,
      disruptionsAllowed: 0,
    });
    clock.advance(DELETION_TIMEOUT_MS + 1000);
    await pdbs.reconcile();
    const after = (await cluster.get<PodDisruptionBudget>(key))!.status as PdbStatus;
    expect(after).toMatchObject({ currentHealthy: 2, disruptionsAllowed: 1 });
    expect(after.disruptedPods).toBeUndefined();
  });

  it('start() keeps the status current on watch events', async () => {
    const { cluster, pdbs } = memoryCluster([
      makePod('web-1', 'node-a', { labels: { app: 'web' }, owner: 'none' }),
      makePdb('web', { matchLabels: { app: 'web' } }, { minAvailable: 0 }),
    ]);
    const loop = pdbs.start();
    await cluster.create(makePod('web-2', 'node-a', { labels: { app: 'web' }, owner: 'none' }));
    for (let i = 0; i < 5; i++) {
      await cluster.idle();
      await loop.idle();
    }
    loop.stop();
    expect(
      (await cluster.get({ kind: 'PodDisruptionBudget', namespace: 'default', name: 'web' }))!.status,
    ).toMatchObject({ currentHealthy: 2, disruptionsAllowed: 2 });
  });
});

describe('PDB status: per-namespace passes', () => {
  it(
    'a change in one namespace updates its PDBs on the next pass, and each namespace is read ' +
      'only when something in it changed',
    async () => {
      const objs = ['a', 'b'].flatMap((ns) => [
        makePod('web-1', 'node-a', { namespace: ns, labels: { app: 'web' }, owner: 'none' }),
        makePod('web-2', 'node-a', { namespace: ns, labels: { app: 'web' }, owner: 'none' }),
        makePdb('web', { matchLabels: { app: 'web' } }, { namespace: ns, minAvailable: 1 }),
      ]);
      const { cluster, pdbs } = memoryCluster(objs);
      const reads: string[] = [];
      const list = cluster.list.bind(cluster);
      cluster.list = ((kind, namespace) => (
        reads.push(`${kind}/${namespace ?? '*'}`),
        list(kind, namespace)
      )) as typeof cluster.list;
      const healthy = async (ns: string) =>
        (await cluster.get<PodDisruptionBudget>({ kind: 'PodDisruptionBudget', namespace: ns, name: 'web' }))!.status
          ?.currentHealthy;
      await pdbs.reconcile();
      await pdbs.reconcile(); // the first pass's writes mark both namespaces; this one finds nothing new
      expect([await healthy('a'), await healthy('b')]).toEqual([2, 2]);
      reads.length = 0;
      await pdbs.reconcile();
      expect(reads).toEqual([]);

      await cluster.delete({ kind: 'Pod', namespace: 'b', name: 'web-2' }, { gracePeriodSeconds: 0 });
      await pdbs.reconcile();
      expect([await healthy('a'), await healthy('b')]).toEqual([2, 1]);
      expect(reads.some((r) => r.endsWith('/a'))).toBe(false);
      await cluster.delete({ kind: 'Pod', namespace: 'a', name: 'web-1' }, { gracePeriodSeconds: 0 });
      await pdbs.reconcile();
      expect([await healthy('a'), await healthy('b')]).toEqual([1, 1]);
    },
  );
});
