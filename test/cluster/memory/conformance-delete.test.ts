// SPDX-License-Identifier: Apache-2.0
// Conformance: delete with finalizers, graceful pod deletion, preconditions and owner cascade.
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/core/cluster/client.js';
import type { ServerObjectMeta } from '../../../src/core/cluster/memory/api-fields.js';
import type { KubeObject, Pod } from '../../../src/core/cluster/types.js';
import { backends, type Harness } from './backends.js';
import { configMap, machine, pod, podKey, replicaSet } from './objects.js';

const codeOf = async (p: Promise<unknown>): Promise<number | undefined> => {
  try {
    await p;
    return undefined;
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
};

const grace = (obj: KubeObject | undefined): number | undefined =>
  (obj?.metadata as ServerObjectMeta | undefined)?.deletionGracePeriodSeconds;

describe.each(backends)('delete on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.setup();
  });
  const cmKey = (name: string) => ({ kind: 'ConfigMap' as const, namespace: h.ns, name });
  const expectAt = (ts: string | undefined, ms: number): void => {
    expect(ts).toBeDefined();
    expect(Math.abs(Date.parse(ts!) - ms)).toBeLessThanOrEqual(h.toleranceMs + 999);
  };

  it('returns 404 for a missing object', async () => {
    expect(await codeOf(h.client.delete(cmKey('nope')))).toBe(404);
  });

  it('removes an object without finalizers at once', async () => {
    await h.client.create(configMap(h, 'a'));
    await h.client.delete(cmKey('a'));
    expect(await h.client.get(cmKey('a'))).toBeUndefined();
  });

  describe('finalizers', () => {
    const withFinalizer = () => ({
      ...configMap(h, 'a'),
      metadata: { name: 'a', namespace: h.ns, finalizers: ['kpol.dev/test'] },
    });

    it('keep the object with deletionTimestamp = now until the last one is removed by update', async () => {
      await h.client.create(withFinalizer());
      await h.client.delete(cmKey('a'));
      const deleting = (await h.client.get(cmKey('a')))!;
      expectAt(deleting.metadata.deletionTimestamp, h.now());
      expect(grace(deleting)).toBe(0);
      await h.client.delete(cmKey('a'));
      expect((await h.client.get(cmKey('a')))!.metadata.deletionTimestamp).toBe(deleting.metadata.deletionTimestamp);
      await h.client.update({ ...deleting, metadata: { ...deleting.metadata, finalizers: [] } });
      expect(await h.client.get(cmKey('a'))).toBeUndefined();
    });

    it('are removed by a patch too', async () => {
      await h.client.create({
        ...withFinalizer(),
        metadata: { ...withFinalizer().metadata, finalizers: ['kpol.dev/a', 'kpol.dev/b'] },
      });
      await h.client.delete(cmKey('a'));
      await h.client.patch(cmKey('a'), { metadata: { finalizers: ['kpol.dev/b'] } });
      expect(await h.client.get(cmKey('a'))).toBeDefined();
      await h.client.patch(cmKey('a'), { metadata: { finalizers: null } });
      expect(await h.client.get(cmKey('a'))).toBeUndefined();
    });

    it('cannot be added once the object is being deleted (422)', async () => {
      await h.client.create(withFinalizer());
      await h.client.delete(cmKey('a'));
      expect(
        await codeOf(h.client.patch(cmKey('a'), { metadata: { finalizers: ['kpol.dev/test', 'kpol.dev/new'] } })),
      ).toBe(422);
    });
  });

  describe('pods', () => {
    it('a bound pod is deleted gracefully with its terminationGracePeriodSeconds', async () => {
      await h.createWithStatus({
        ...pod(h, 'p', 'node-a'),
        spec: { ...pod(h, 'p', 'node-a').spec, terminationGracePeriodSeconds: 45 },
      });
      await h.client.delete(podKey(h, 'p'));
      const deleting = (await h.client.get<Pod>(podKey(h, 'p')))!;
      expectAt(deleting.metadata.deletionTimestamp, h.now() + 45_000);
      expect(grace(deleting)).toBe(45);
    });

    it('gracePeriodSeconds overrides the pod default, and 0 removes at once', async () => {
      await h.createWithStatus(pod(h, 'p', 'node-a'));
      await h.client.delete(podKey(h, 'p'), { gracePeriodSeconds: 10 });
      expectAt((await h.client.get(podKey(h, 'p')))!.metadata.deletionTimestamp, h.now() + 10_000);
      await h.client.delete(podKey(h, 'p'), { gracePeriodSeconds: 0 });
      expect(await h.client.get(podKey(h, 'p'))).toBeUndefined();
    });

    it('a second delete may shorten the grace period but never lengthen it', async () => {
      await h.createWithStatus(pod(h, 'p', 'node-a'));
      const requested = h.now();
      await h.client.delete(podKey(h, 'p'));
      await h.client.delete(podKey(h, 'p'), { gracePeriodSeconds: 60 });
      expect(grace(await h.client.get(podKey(h, 'p')))).toBe(30);
      await h.client.delete(podKey(h, 'p'), { gracePeriodSeconds: 5 });
      const shortened = (await h.client.get(podKey(h, 'p')))!;
      expect(grace(shortened)).toBe(5);
      expectAt(shortened.metadata.deletionTimestamp, requested + 5_000);
    });

    it('an unbound pod is removed at once', async () => {
      await h.createWithStatus(pod(h, 'p', undefined));
      await h.client.delete(podKey(h, 'p'));
      expect(await h.client.get(podKey(h, 'p'))).toBeUndefined();
    });

    it('a terminal pod is removed at once', async () => {
      await h.createWithStatus(pod(h, 'p', 'node-a', { phase: 'Succeeded' }));
      await h.client.delete(podKey(h, 'p'));
      expect(await h.client.get(podKey(h, 'p'))).toBeUndefined();
    });

    it('a graceful pod with a finalizer stays after the grace-0 delete until the finalizer goes', async () => {
      await h.createWithStatus({
        ...pod(h, 'p', 'node-a'),
        metadata: { ...pod(h, 'p', 'node-a').metadata, finalizers: ['kpol.dev/test'] },
      });
      await h.client.delete(podKey(h, 'p'));
      await h.client.delete(podKey(h, 'p'), { gracePeriodSeconds: 0 });
      expect(grace(await h.client.get(podKey(h, 'p')))).toBe(0);
      await h.client.patch(podKey(h, 'p'), { metadata: { finalizers: null } });
      expect(await h.client.get(podKey(h, 'p'))).toBeUndefined();
    });
  });

  describe('preconditions', () => {
    it('a uid mismatch is 409 and deletes nothing', async () => {
      const created = await h.client.create(configMap(h, 'a'));
      expect(await codeOf(h.client.delete(cmKey('a'), { preconditions: { uid: 'someone-else' } }))).toBe(409);
      expect(await h.client.get(cmKey('a'))).toBeDefined();
      await h.client.delete(cmKey('a'), { preconditions: { uid: created.metadata.uid } });
      expect(await h.client.get(cmKey('a'))).toBeUndefined();
    });

    it('a resourceVersion mismatch is 409', async () => {
      const created = await h.client.create(configMap(h, 'a'));
      await h.client.patch(cmKey('a'), { data: { k: 'v' } });
      expect(
        await codeOf(
          h.client.delete(cmKey('a'), { preconditions: { resourceVersion: created.metadata.resourceVersion } }),
        ),
      ).toBe(409);
    });
  });

  describe('owner-reference cascade', () => {
    it('deleting a ReplicaSet deletes its pods (unbound at once, bound gracefully)', async () => {
      const rs = await h.client.create(replicaSet(h, 'web', 0, { app: 'web' }));
      const owner = [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata.uid, controller: true },
      ];
      const withOwner = (p: Pod): Pod => ({ ...p, metadata: { ...p.metadata, ownerReferences: owner } });
      await h.createWithStatus(withOwner(pod(h, 'web-pending', undefined)));
      await h.createWithStatus(withOwner(pod(h, 'web-bound', 'node-a')));
      await h.client.delete({ kind: 'ReplicaSet', namespace: h.ns, name: 'web' });
      await h.settle();
      expect(await h.client.get(podKey(h, 'web-pending'))).toBeUndefined();
      expect((await h.client.get(podKey(h, 'web-bound')))?.metadata.deletionTimestamp).toBeDefined();
    });

    it('keeps a dependent while another owner remains', async () => {
      const a = await h.client.create(configMap(h, 'owner-a'));
      const b = await h.client.create(configMap(h, 'owner-b'));
      const refs = [a, b].map((o) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: o.metadata.name,
        uid: o.metadata.uid,
      }));
      await h.client.create({
        ...configMap(h, 'dep'),
        metadata: { name: 'dep', namespace: h.ns, ownerReferences: refs },
      });
      await h.client.delete(cmKey('owner-a'));
      await h.settle();
      expect(await h.client.get(cmKey('dep'))).toBeDefined();
      await h.client.delete(cmKey('owner-b'));
      await h.settle();
      expect(await h.client.get(cmKey('dep'))).toBeUndefined();
    });

    it('waits for the owner to be gone, not merely deleting (NodeClaim → Node, both finalized)', async () => {
      const { nodeClaim, node } = machine(h, 0);
      const nc = await h.client.create(nodeClaim);
      await h.client.create({
        ...node,
        metadata: {
          ...node.metadata,
          ownerReferences: [{ ...node.metadata.ownerReferences![0], uid: nc.metadata.uid }],
        },
      });
      const nodeKey = { kind: 'Node' as const, name: node.metadata.name };
      await h.client.delete({ kind: 'NodeClaim', name: nc.metadata.name });
      await h.settle();
      expect((await h.client.get(nodeKey))!.metadata.deletionTimestamp).toBeUndefined();
      await h.client.patch({ kind: 'NodeClaim', name: nc.metadata.name }, { metadata: { finalizers: null } });
      await h.settle();
      const deleting = (await h.client.get(nodeKey))!;
      expect(deleting.metadata.deletionTimestamp).toBeDefined();
      expect(deleting.metadata.finalizers).toEqual(['karpenter.sh/termination']);
    });
  });
});
