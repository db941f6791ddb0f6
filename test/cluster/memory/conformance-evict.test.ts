// SPDX-License-Identifier: Apache-2.0
// Conformance: the Eviction subresource against PodDisruptionBudgets whose status the cluster's
// disruption controller computes (never written by the test).
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/core/cluster/client.js';
import type { PdbStatus } from '../../../src/core/cluster/memory/api-fields.js';
import type { Pod, PodDisruptionBudget } from '../../../src/core/cluster/types.js';
import { backends, type Harness } from './backends.js';
import { pdb, pod, podKey, replicaSet } from './objects.js';

const failure = async (p: Promise<unknown>): Promise<ApiError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected the eviction to fail');
};

describe.each(backends)('evict on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.setup();
  });
  const web = { app: 'web' };
  const runWeb = async (names: string[], o: Parameters<typeof pod>[3] = {}): Promise<Pod[]> =>
    Promise.all(names.map((n) => h.createWithStatus(pod(h, n, 'node-a', { labels: web, ...o }))));
  /** A ReplicaSet's pods, created by the cluster's ReplicaSet controller and run on node-a. */
  const runReplicaSet = async (name: string, replicas: number): Promise<Pod[]> => {
    await h.client.create(replicaSet(h, name, replicas, web));
    await h.settle();
    const pods = await h.client.list<Pod>('Pod', h.ns);
    expect(pods).toHaveLength(replicas);
    const running = await Promise.all(pods.map((p) => h.runPod(h.ns, p.metadata.name, 'node-a')));
    await h.settle();
    return running;
  };
  const pdbStatus = async (name: string): Promise<PdbStatus> =>
    ((await h.client.get<PodDisruptionBudget>({ kind: 'PodDisruptionBudget', namespace: h.ns, name }))!.status ??
      {}) as PdbStatus;

  it('404 for a missing pod', async () => {
    expect((await failure(h.client.evict(h.ns, 'nope'))).code).toBe(404);
  });

  it('409 on a uid precondition mismatch, and nothing happens', async () => {
    await runWeb(['web-1']);
    expect((await failure(h.client.evict(h.ns, 'web-1', { uid: 'someone-else' }))).code).toBe(409);
    expect((await h.client.get(podKey(h, 'web-1')))!.metadata.deletionTimestamp).toBeUndefined();
  });

  it('without a PDB deletes the pod gracefully and marks it DisruptionTarget', async () => {
    const [p] = await runWeb(['web-1']);
    await h.client.evict(h.ns, 'web-1', { uid: p.metadata.uid });
    const evicted = (await h.client.get<Pod>(podKey(h, 'web-1')))!;
    expect(Date.parse(evicted.metadata.deletionTimestamp!) - h.now()).toBeGreaterThan(25_000);
    expect(evicted.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' }),
    );
  });

  it('an unbound pod is removed at once', async () => {
    await h.createWithStatus(pod(h, 'pending', undefined, { labels: web }));
    await h.client.evict(h.ns, 'pending');
    expect(await h.client.get(podKey(h, 'pending'))).toBeUndefined();
  });

  it('spends one disruption and records the pod, then 429 when none is left', async () => {
    const [first, second] = await runReplicaSet('web', 3);
    await h.client.create(pdb(h, 'web', web, { maxUnavailable: 1 }));
    await h.settle();
    expect((await pdbStatus('web')).disruptionsAllowed).toBe(1);

    await h.client.evict(h.ns, first.metadata.name, { uid: first.metadata.uid });
    const after = await pdbStatus('web');
    expect(after.disruptionsAllowed).toBe(0);
    expect(Object.keys(after.disruptedPods ?? {})).toEqual([first.metadata.name]);
    expect((await h.client.get(podKey(h, first.metadata.name)))!.metadata.deletionTimestamp).toBeDefined();

    const err = await failure(h.client.evict(h.ns, second.metadata.name));
    expect([err.code, err.reason, err.message]).toEqual([
      429,
      'TooManyRequests',
      "Cannot evict pod as it would violate the pod's disruption budget.",
    ]);
    expect((await h.client.get(podKey(h, second.metadata.name)))!.metadata.deletionTimestamp).toBeUndefined();

    await h.settle();
    expect(await pdbStatus('web')).toMatchObject({
      disruptionsAllowed: 0,
      currentHealthy: 2,
      desiredHealthy: 2,
      expectedPods: 3,
    });
  });

  it('429 from a PDB that allows nothing (maxUnavailable 0)', async () => {
    await runWeb(['web-1']);
    await h.client.create(pdb(h, 'web', web, { maxUnavailable: 0 }));
    await h.settle();
    expect((await failure(h.client.evict(h.ns, 'web-1'))).code).toBe(429);
  });

  it('AlwaysAllow lets an unready pod go without spending a disruption', async () => {
    await runWeb(['web-1', 'web-2']);
    await h.createWithStatus(pod(h, 'web-sick', 'node-a', { labels: web, ready: 'False' }));
    await h.client.create(pdb(h, 'web', web, { minAvailable: 3, unhealthyPodEvictionPolicy: 'AlwaysAllow' }));
    await h.settle();
    expect((await pdbStatus('web')).disruptionsAllowed).toBe(0);
    expect((await failure(h.client.evict(h.ns, 'web-1'))).code).toBe(429);
    await h.client.evict(h.ns, 'web-sick');
    expect((await h.client.get(podKey(h, 'web-sick')))!.metadata.deletionTimestamp).toBeDefined();
    expect((await pdbStatus('web')).disruptedPods).toBeUndefined();
  });

  it('IfHealthyBudget (the default) blocks an unready pod while the budget is not met', async () => {
    await runWeb(['web-1']);
    await h.createWithStatus(pod(h, 'web-sick', 'node-a', { labels: web, ready: 'False' }));
    await h.client.create(pdb(h, 'web', web, { minAvailable: 2 }));
    await h.settle();
    expect((await failure(h.client.evict(h.ns, 'web-sick'))).code).toBe(429);
  });

  it('IfHealthyBudget lets an unready pod go while the budget is met, without spending', async () => {
    await runWeb(['web-1', 'web-2']);
    await h.createWithStatus(pod(h, 'web-sick', 'node-a', { labels: web, ready: 'False' }));
    await h.client.create(pdb(h, 'web', web, { minAvailable: 2 }));
    await h.settle();
    expect(await pdbStatus('web')).toMatchObject({ disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2 });
    await h.client.evict(h.ns, 'web-sick');
    expect((await h.client.get(podKey(h, 'web-sick')))!.metadata.deletionTimestamp).toBeDefined();
  });

  it('500 with the API message when more than one PDB selects the pod', async () => {
    await runWeb(['web-1']);
    await h.client.create(pdb(h, 'web-a', web, { maxUnavailable: 1 }));
    await h.client.create(pdb(h, 'web-b', web, { maxUnavailable: 1 }));
    await h.settle();
    const err = await failure(h.client.evict(h.ns, 'web-1'));
    expect([err.code, err.message]).toEqual([
      500,
      'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    ]);
  });

  it('terminal pods are evicted without consulting PDBs', async () => {
    await runWeb(['web-1']);
    await h.createWithStatus(pod(h, 'web-done', 'node-a', { labels: web, phase: 'Succeeded' }));
    await h.client.create(pdb(h, 'web', web, { maxUnavailable: 0 }));
    await h.settle();
    await h.client.evict(h.ns, 'web-done');
    expect(await h.client.get(podKey(h, 'web-done'))).toBeUndefined();
  });

  it('a PDB in another namespace does not apply', async () => {
    await runWeb(['web-1']);
    await h.client.create({
      ...pdb(h, 'web', web, { maxUnavailable: 0 }),
      metadata: { name: 'web', namespace: `${h.ns}-other` },
    });
    await h.settle();
    await h.client.evict(h.ns, 'web-1');
    expect((await h.client.get(podKey(h, 'web-1')))!.metadata.deletionTimestamp).toBeDefined();
  });
});
