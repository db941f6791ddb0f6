// SPDX-License-Identifier: Apache-2.0
// Informers against kube-apiserver: a watch resumed from a kept resourceVersion replays what
// changed meanwhile; one resumed from a compacted version gets 410 Gone, relists, and turns
// the difference into events, so no change is lost either way.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../../src/core/cluster/client.js';
import type { KubeClusterClient } from '../../../src/edge/kube/kube-cluster.js';
import { eventually } from '../control-plane/eventually.js';
import { closeKubeClient, createNamespace, kubeClient } from './kube-backend.js';

let client: KubeClusterClient;
let ns: string;
beforeAll(async () => {
  client = await kubeClient();
  ns = `kpol-inf-${randomBytes(3).toString('hex')}`;
  await createNamespace(client, ns);
  await client.start(['ConfigMap']);
});
afterAll(closeKubeClient);

const cm = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
  data,
});
const key = (name: string) => ({ kind: 'ConfigMap' as const, namespace: ns, name });
const mine = (events: WatchEvent[]) =>
  events.filter((e) => e.object.metadata.namespace === ns).map((e) => `${e.type} ${e.object.metadata.name}`);

/** `name`'s MODIFIED event: the object after the patch, and `old` as it was before. */
function expectChangeWithOld(events: WatchEvent[], name: string): void {
  const e = events.find((x) => x.type === 'MODIFIED' && x.object.metadata.name === name)!;
  expect(e.object).toMatchObject({ data: { k: 'v' } });
  expect(e.old?.metadata.name).toBe(name);
  expect((e.old as { data?: object } | undefined)?.data ?? {}).toEqual({});
  expect(e.old?.metadata.resourceVersion).not.toBe(e.object.metadata.resourceVersion);
}

describe('informer on a real API server', () => {
  it('resumed from its last resourceVersion, replays the changes made while it was stopped, in order', async () => {
    const inf = client.informerOf('ConfigMap')!;
    const events: WatchEvent[] = [];
    const sub = client.watch('ConfigMap', (e) => events.push(e));
    await client.create(cm('a'));
    await client.create(cm('b'));
    await eventually('a and b', async () => (mine(events).length === 2 ? true : undefined));
    inf.stop();
    await client.patch(key('a'), { data: { k: 'v' } });
    await client.delete(key('b'));
    await client.create(cm('c'));
    const relists = inf.relists;
    inf.resume();
    await eventually('the missed changes', async () => (mine(events).length === 5 ? true : undefined));
    sub.stop();
    expect(mine(events)).toEqual(['ADDED a', 'ADDED b', 'MODIFIED a', 'DELETED b', 'ADDED c']);
    expect(inf.relists).toBe(relists);
    expectChangeWithOld(events, 'a');
  });

  // The path a 410 Gone takes. A young apiserver still holds every version in its watch cache
  // (a watch from resourceVersion 1 replays history instead of answering 410), so the relist is
  // requested directly; the 410 classification itself is covered by test/kube/.
  it('a relist turns the difference between cache and server into events', async () => {
    const inf = client.informerOf('ConfigMap')!;
    await client.create(cm('d'));
    await client.create(cm('e'));
    await eventually('d and e cached', async () => (inf.cached().has(`${ns}/e`) ? true : undefined));
    const events: WatchEvent[] = [];
    const sub = client.watch('ConfigMap', (e) => events.push(e));
    inf.stop();
    await client.patch(key('d'), { data: { k: 'v' } });
    await client.delete(key('e'));
    await client.create(cm('f'));
    const lists = inf.lists;
    inf.relist();
    inf.resume();
    await eventually('the relist', async () => (inf.lists > lists && mine(events).length >= 3 ? true : undefined));
    sub.stop();
    expect(mine(events).sort()).toEqual(['ADDED f', 'DELETED e', 'MODIFIED d']);
    // A MODIFIED made by a relist carries the object before it from the cache, as a watched one does:
    // the pod-events filter (src/control/reconciler/pod-events.ts) compares the two.
    expectChangeWithOld(events, 'd');
    expect(inf.cached().has(`${ns}/e`)).toBe(false);
  });

  it("the change stamp moves at once on the client's own write, before its watch event arrives", async () => {
    const before = client.kindVersion('ConfigMap');
    await client.create(cm('g'));
    expect(client.kindVersion('ConfigMap')).not.toBe(before);
  });
});
