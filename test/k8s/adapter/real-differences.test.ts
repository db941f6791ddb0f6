// SPDX-License-Identifier: Apache-2.0
// What kube-apiserver and kube-controller-manager do where the in-memory server's conformance
// suite expects something tidier (the cases conformance.test.ts skips): asserted here as the
// real behaviour kpol must live with.
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, type WatchEvent } from '../../../src/core/cluster/client.js';
import type { NodeClaim, Pod, PodDisruptionBudget } from '../../../src/core/cluster/types.js';
import type { Harness } from '../../cluster/memory/backends.js';
import { configMap, pdb, pod, podKey, replicaSet } from '../../cluster/memory/objects.js';
import { closeKubeClient, kubeBackend } from './kube-backend.js';

afterAll(closeKubeClient);

const failure = async (p: Promise<unknown>): Promise<ApiError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected a failure');
};

describe('kube-apiserver where the in-memory server differs', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await kubeBackend.setup();
  });

  it('sets generation on kinds that count spec changes (a CRD) but not on ConfigMaps', async () => {
    expect((await h.client.create(configMap(h, 'a'))).metadata.generation).toBeUndefined();
    const nc = await h.client.create<NodeClaim>({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name: `${h.prefix}gen` },
      spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] },
    });
    expect(nc.metadata.generation).toBe(1);
  });

  it(
    'an eviction spends the last disruption at once: the next one is refused with 429 before ' + 'any controller runs',
    async () => {
      const web = { app: 'web' };
      await h.client.create(replicaSet(h, 'web', 3, web));
      await h.settle();
      const pods = await h.client.list<Pod>('Pod', h.ns);
      for (const p of pods) await h.runPod(h.ns, p.metadata.name, 'node-a');
      await h.client.create(pdb(h, 'web', web, { maxUnavailable: 1 }));
      await h.settle();
      expect(
        (await h.client.get<PodDisruptionBudget>({ kind: 'PodDisruptionBudget', namespace: h.ns, name: 'web' }))!.status
          ?.disruptionsAllowed,
      ).toBe(1);
      await h.client.evict(h.ns, pods[0].metadata.name);
      const err = await failure(h.client.evict(h.ns, pods[1].metadata.name));
      expect([err.code, err.reason, err.message]).toEqual([
        429,
        'TooManyRequests',
        "Cannot evict pod as it would violate the pod's disruption budget.",
      ]);
      expect((await h.client.get(podKey(h, pods[0].metadata.name)))!.metadata.deletionTimestamp).toBeDefined();
    },
  );

  it(
    'deleting a ReplicaSet: the garbage collector deletes the pods it made (unbound at once, ' + 'bound gracefully)',
    async () => {
      const web = { app: 'web' };
      await h.client.create({
        ...replicaSet(h, 'web', 2, web),
        spec: {
          ...replicaSet(h, 'web', 2, web).spec,
          template: {
            metadata: { labels: web },
            spec: {
              schedulerName: 'kpol-conformance',
              terminationGracePeriodSeconds: 30,
              containers: [{ name: 'main' }],
            },
          },
        },
      });
      await h.settle();
      const [bound, unbound] = await h.client.list<Pod>('Pod', h.ns);
      await h.runPod(h.ns, bound.metadata.name, 'node-a');
      await h.client.delete({ kind: 'ReplicaSet', namespace: h.ns, name: 'web' });
      await h.settle();
      expect(await h.client.get(podKey(h, unbound.metadata.name))).toBeUndefined();
      expect((await h.client.get(podKey(h, bound.metadata.name)))?.metadata.deletionTimestamp).toBeDefined();
    },
  );

  it('a grace-0 delete of a deleting pod is a MODIFIED (deletionGracePeriodSeconds 0) before the DELETED', async () => {
    await h.createWithStatus(pod(h, 'p', 'node-a'));
    await h.settle();
    const events: WatchEvent[] = [];
    const w = h.client.watch('Pod', (e) => {
      if (e.object.metadata.namespace === h.ns) events.push(e);
    });
    await h.client.delete(podKey(h, 'p'));
    await h.client.delete(podKey(h, 'p'), { gracePeriodSeconds: 0 });
    await h.settle();
    w.stop();
    expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED', 'DELETED']);
    expect(events[0].object.metadata.deletionTimestamp).toBeDefined();
    expect((events[1].object.metadata as { deletionGracePeriodSeconds?: number }).deletionGracePeriodSeconds).toBe(0);
  });
});
