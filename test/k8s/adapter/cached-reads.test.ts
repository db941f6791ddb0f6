// SPDX-License-Identifier: Apache-2.0
// The controller's cached reads against kube-apiserver: list() answers from the informer
// cache — the same objects while nothing changed, in the server's order — and never shows the
// world as it was before this client's own write, though the write's watch event always
// arrives after its answer: every list right after a create, patch, delete, eviction or
// binding includes it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod, PodDisruptionBudget } from '../../../src/core/cluster/types.js';
import type { KubeClusterClient } from '../../../src/edge/kube/kube-cluster.js';
import { eventually } from '../control-plane/eventually.js';
import { closeKubeClient, createNamespace, imaged, kubeClient, newKubeClient } from './kube-backend.js';

let cached: KubeClusterClient;
let other: KubeClusterClient;
let ns: string;

beforeAll(async () => {
  other = await kubeClient();
  ns = `kpol-cache-${randomBytes(3).toString('hex')}`;
  await createNamespace(other, ns);
  cached = newKubeClient({ cachedReads: true });
  await cached.start(['ConfigMap', 'Pod', 'PodDisruptionBudget']);
});
afterAll(async () => {
  cached?.close();
  await closeKubeClient();
});

const cm = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data,
});
const pod = (name: string, labels: Record<string, string> = {}): Pod =>
  imaged({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns, labels },
    spec: { schedulerName: 'kpol-cache-test', containers: [{ name: 'c' }] },
  } as unknown as Pod);
const names = (xs: Array<{ metadata: { name: string } }>) => xs.map((x) => x.metadata.name);

describe('cached reads on a real API server', () => {
  it(
    'answers from the cache: the same objects while they are unchanged, a new one for a change,' +
      ' in the server’s order',
    async () => {
      for (const n of ['c', 'a', 'b']) await other.create(cm(n, { v: '1' }));
      await eventually('the cache to hold them', async () =>
        (await cached.list('ConfigMap', ns)).length === 3 ? true : undefined,
      );
      const fromServer = cached.reads.server;
      const first = await cached.list('ConfigMap', ns);
      const second = await cached.list('ConfigMap', ns);
      expect(cached.reads.server).toBe(fromServer);
      expect(names(first)).toEqual(['a', 'b', 'c']);
      expect(names(first)).toEqual(names(await other.listFromServer('ConfigMap', ns)));
      second.forEach((o, i) => expect(o).toBe(first[i]));

      await other.patch({ kind: 'ConfigMap', namespace: ns, name: 'b' }, { data: { v: '2' } });
      await eventually('the change to reach the cache', async () =>
        (await cached.list<any>('ConfigMap', ns))[1].data.v === '2' ? true : undefined,
      );
      const third = await cached.list('ConfigMap', ns);
      expect(third[0]).toBe(first[0]);
      expect(third[1]).not.toBe(first[1]);
      expect(third[2]).toBe(first[2]);
    },
  );

  it('shows its own writes at once: a list right after each write includes it', async () => {
    for (let i = 0; i < 10; i++) {
      await cached.create(cm(`own-${i}`));
      expect(names(await cached.list('ConfigMap', ns))).toContain(`own-${i}`);
      await cached.patch({ kind: 'ConfigMap', namespace: ns, name: `own-${i}` }, { data: { n: String(i) } });
      expect((await cached.list<any>('ConfigMap', ns)).find((o) => o.metadata.name === `own-${i}`).data).toEqual({
        n: String(i),
      });
      await cached.delete({ kind: 'ConfigMap', namespace: ns, name: `own-${i}` });
      expect(names(await cached.list('ConfigMap', ns))).not.toContain(`own-${i}`);
    }
    // Once the watch has caught up, reads come from the cache again.
    await eventually('reads from the cache again', async () => {
      const before = cached.reads.cache;
      await cached.list('ConfigMap', ns);
      return cached.reads.cache > before ? true : undefined;
    });
  });

  it('after an eviction and a binding, the next list shows them, and the PDB the eviction charged', async () => {
    await other.create({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: ns },
      spec: { minAvailable: 0, selector: { matchLabels: { app: 'web' } } },
    } as unknown as PodDisruptionBudget);
    await other.create(pod('unbound'));
    await other.create(pod('web-0', { app: 'web' }));
    await other.patch({ kind: 'Pod', namespace: ns, name: 'web-0' }, { spec: { nodeName: 'nowhere' } });
    await other.patch(
      { kind: 'Pod', namespace: ns, name: 'web-0' },
      { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
    );
    await eventually('the disruption controller to allow one', async () => {
      const [pdb] = await other.listFromServer<PodDisruptionBudget>('PodDisruptionBudget', ns);
      return pdb?.status?.disruptionsAllowed === 1 ? true : undefined;
    });
    await eventually('the cache to hold the PDB at that', async () =>
      (await cached.list<PodDisruptionBudget>('PodDisruptionBudget', ns))[0]?.status?.disruptionsAllowed === 1
        ? true
        : undefined,
    );

    await cached.patch({ kind: 'Pod', namespace: ns, name: 'unbound' }, { spec: { nodeName: 'somewhere' } });
    expect((await cached.list<Pod>('Pod', ns)).find((p) => p.metadata.name === 'unbound')?.spec.nodeName).toBe(
      'somewhere',
    );

    await cached.evict(ns, 'web-0');
    const evicted = (await cached.list<Pod>('Pod', ns)).find((p) => p.metadata.name === 'web-0');
    expect(evicted === undefined || evicted.metadata.deletionTimestamp !== undefined).toBe(true);
    expect((await cached.list<PodDisruptionBudget>('PodDisruptionBudget', ns))[0].status?.disruptionsAllowed).toBe(0);
  });
});
