// SPDX-License-Identifier: Apache-2.0
// Conformance: create, get, list, update and patch (client.ts header), on every backend.
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiError, isApiError } from '../../../src/core/cluster/client.js';
import type { ConfigMap, Pod } from '../../../src/core/cluster/types.js';
import { backends, type Harness } from './backends.js';
import { configMap, machine, pod } from './objects.js';

const rejection = async (p: Promise<unknown>): Promise<ApiError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected the call to fail');
};

describe.each(backends)('writes on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.setup();
  });
  const cmKey = (name: string) => ({ kind: 'ConfigMap' as const, namespace: h.ns, name });

  describe('create', () => {
    it('sets uid, resourceVersion, creationTimestamp and generation 1', async () => {
      const created = await h.client.create(configMap(h, 'a', { k: 'v' }));
      expect(created.metadata.uid).toMatch(/\S/);
      expect(created.metadata.resourceVersion).toMatch(/^\d+$/);
      expect(created.metadata.generation).toBe(1);
      expect(Math.abs(Date.parse(created.metadata.creationTimestamp!) - h.now())).toBeLessThanOrEqual(
        h.toleranceMs + 999,
      );
      expect(created.data).toEqual({ k: 'v' });
      expect(await h.client.get(cmKey('a'))).toEqual(created);
    });

    it('returns 409 AlreadyExists when the name is taken', async () => {
      await h.client.create(configMap(h, 'a'));
      const err = await rejection(h.client.create(configMap(h, 'a')));
      expect([err.code, err.reason]).toEqual([409, 'AlreadyExists']);
      expect(err.message).toBe('configmaps "a" already exists');
    });

    it('gives each object its own uid and an increasing resourceVersion', async () => {
      const a = await h.client.create(configMap(h, 'a'));
      const b = await h.client.create(configMap(h, 'b'));
      expect(a.metadata.uid).not.toBe(b.metadata.uid);
      expect(BigInt(b.metadata.resourceVersion!)).toBeGreaterThan(BigInt(a.metadata.resourceVersion!));
    });

    it('keeps cluster-scoped kinds out of namespaces', async () => {
      const { nodeClaim } = machine(h, 0);
      const created = await h.client.create(nodeClaim);
      expect(created.metadata.namespace).toBeUndefined();
      expect(await h.client.get({ kind: 'NodeClaim', name: nodeClaim.metadata.name })).toBeDefined();
    });
  });

  describe('get and list', () => {
    it('get returns undefined for a missing object', async () => {
      expect(await h.client.get(cmKey('nope'))).toBeUndefined();
    });

    it('list filters by namespace and returns every object of the kind', async () => {
      await h.client.create(configMap(h, 'b'));
      await h.client.create(configMap(h, 'a'));
      const names = (await h.client.list('ConfigMap', h.ns)).map((o) => o.metadata.name);
      expect(names).toEqual(['a', 'b']);
      expect(await h.client.list('ConfigMap', `${h.ns}-other`)).toEqual([]);
    });

    it('returned objects are read-only: changing one throws or changes nothing stored', async () => {
      const created = await h.client.create(configMap(h, 'a', { k: 'v' }));
      const attempt = (change: () => void): void => {
        try {
          change();
        } catch (e) {
          expect(e).toBeInstanceOf(TypeError); // a frozen object (the in-memory server's)
        }
      };
      attempt(() => {
        created.data!.k = 'mutated';
      });
      const got = (await h.client.get<ConfigMap>(cmKey('a')))!;
      attempt(() => {
        got.data!.k = 'mutated too';
      });
      attempt(() => {
        (got.metadata as { labels?: Record<string, string> }).labels = { x: 'y' };
      });
      const listed = await h.client.list<ConfigMap>('ConfigMap', h.ns);
      attempt(() => {
        listed[0].data!.k = 'and again';
      });
      listed.length = 0; // the array is the caller's
      expect((await h.client.get<ConfigMap>(cmKey('a')))!.data).toEqual({ k: 'v' });
      expect((await h.client.get<ConfigMap>(cmKey('a')))!.metadata.labels).toBeUndefined();
      expect(await h.client.list<ConfigMap>('ConfigMap', h.ns)).toHaveLength(1);
    });
  });

  describe('update', () => {
    it('replaces the object and bumps resourceVersion', async () => {
      const created = await h.client.create(configMap(h, 'a', { k: 'v' }));
      const updated = await h.client.update({ ...created, data: { k: 'w' } });
      expect(updated.data).toEqual({ k: 'w' });
      expect(BigInt(updated.metadata.resourceVersion!)).toBeGreaterThan(BigInt(created.metadata.resourceVersion!));
      expect(updated.metadata.uid).toBe(created.metadata.uid);
    });

    it('returns 409 Conflict for a stale resourceVersion and keeps the newer write', async () => {
      const created = await h.client.create(configMap(h, 'a', { k: 'v' }));
      await h.client.update({ ...created, data: { k: 'first' } });
      const err = await rejection(h.client.update({ ...created, data: { k: 'second' } }));
      expect([err.code, err.reason]).toEqual([409, 'Conflict']);
      expect(err.message).toMatch(/the object has been modified/);
      expect((await h.client.get<ConfigMap>(cmKey('a')))!.data).toEqual({ k: 'first' });
    });

    it('without a resourceVersion is unconditional', async () => {
      const created = await h.client.create(configMap(h, 'a', { k: 'v' }));
      await h.client.update({ ...created, data: { k: 'first' } });
      const { resourceVersion: _rv, ...meta } = created.metadata;
      const updated = await h.client.update({ ...created, metadata: meta, data: { k: 'second' } });
      expect(updated.data).toEqual({ k: 'second' });
    });

    it('returns 404 for a missing object', async () => {
      expect((await rejection(h.client.update(configMap(h, 'nope')))).code).toBe(404);
    });

    it('writes status with the rest of the object', async () => {
      const created = await h.createWithStatus(pod(h, 'p', 'node-a'));
      const updated = await h.client.update<Pod>({ ...created, status: { ...created.status, phase: 'Succeeded' } });
      expect(updated.status?.phase).toBe('Succeeded');
    });

    it('bumps generation when the spec changes, not for metadata or status', async () => {
      const created = await h.createWithStatus(pod(h, 'p', 'node-a'));
      const labelled = await h.client.update<Pod>({
        ...created,
        metadata: { ...created.metadata, labels: { a: 'b' } },
      });
      expect(labelled.metadata.generation).toBe(1);
      const nc = await h.client.create(machine(h, 0).nodeClaim);
      const changed = await h.client.update({ ...nc, spec: { ...(nc.spec as object), expireAfter: '1h' } });
      expect(changed.metadata.generation).toBe(2);
    });
  });

  describe('patch', () => {
    it('applies a JSON merge patch: nested merge, null deletes, arrays replace', async () => {
      await h.client.create({
        ...configMap(h, 'a', { keep: '1', drop: '2' }),
        metadata: { name: 'a', namespace: h.ns, labels: { x: '1' }, finalizers: ['a.io/x', 'a.io/y'] },
      });
      const patched = await h.client.patch<ConfigMap>(cmKey('a'), {
        data: { drop: null, add: '3' },
        metadata: { labels: { y: '2' }, finalizers: ['a.io/z'] },
      });
      expect(patched.data).toEqual({ keep: '1', add: '3' });
      expect(patched.metadata.labels).toEqual({ x: '1', y: '2' });
      expect(patched.metadata.finalizers).toEqual(['a.io/z']);
      await h.client.patch(cmKey('a'), { metadata: { finalizers: null } });
    });

    it('checks uid and resourceVersion preconditions (409)', async () => {
      const created = await h.client.create(configMap(h, 'a'));
      expect((await rejection(h.client.patch(cmKey('a'), { data: { k: 'v' } }, { uid: 'other' }))).code).toBe(409);
      await h.client.patch(cmKey('a'), { data: { k: 'v' } });
      const err = await rejection(
        h.client.patch(cmKey('a'), { data: { k: 'w' } }, { resourceVersion: created.metadata.resourceVersion }),
      );
      expect(isApiError(err, 409)).toBe(true);
      const ok = await h.client.patch<ConfigMap>(cmKey('a'), { data: { k: 'w' } }, { uid: created.metadata.uid });
      expect(ok.data).toEqual({ k: 'w' });
    });

    it('treats metadata.resourceVersion in the patch as a precondition', async () => {
      const created = await h.client.create(configMap(h, 'a'));
      await h.client.patch(cmKey('a'), { data: { k: 'v' } });
      const err = await rejection(
        h.client.patch(cmKey('a'), {
          metadata: { resourceVersion: created.metadata.resourceVersion },
          data: { k: 'w' },
        }),
      );
      expect(err.code).toBe(409);
    });

    it('returns 404 for a missing object', async () => {
      expect((await rejection(h.client.patch(cmKey('nope'), { data: {} }))).code).toBe(404);
    });
  });
});
