// SPDX-License-Identifier: Apache-2.0
// Conformance: watch delivers every later change of its kind, in order, after the write.
import { beforeEach, describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../../src/core/cluster/client.js';
import { backends, type Harness } from './backends.js';
import { configMap, pod, podKey } from './objects.js';

describe.each(backends)('watch on $name', (backend) => {
  let h: Harness;
  beforeEach(async () => {
    h = await backend.setup();
  });
  const cmKey = (name: string) => ({ kind: 'ConfigMap' as const, namespace: h.ns, name });
  const summary = (events: WatchEvent[]) => events.map((e) => `${e.type} ${e.object.metadata.name}`);

  it('delivers ADDED, MODIFIED and DELETED in write order with increasing resourceVersions', async () => {
    const events: WatchEvent[] = [];
    const w = h.client.watch('ConfigMap', (e) => events.push(e));
    await h.client.create(configMap(h, 'a'));
    await h.client.create(configMap(h, 'b'));
    await h.client.patch(cmKey('a'), { data: { k: 'v' } });
    await h.client.delete(cmKey('b'));
    await h.settle();
    w.stop();
    expect(summary(events)).toEqual(['ADDED a', 'ADDED b', 'MODIFIED a', 'DELETED b']);
    const versions = events.map((e) => BigInt(e.object.metadata.resourceVersion!));
    expect([...versions].sort((x, y) => (x < y ? -1 : 1))).toEqual(versions);
    expect(events[2].object).toMatchObject({ data: { k: 'v' } });
    // A MODIFIED event says what the object was before it (an informer's update handler is given both).
    expect(events[2].old).toMatchObject({ metadata: { resourceVersion: events[0].object.metadata.resourceVersion } });
    expect(events[2].old).not.toHaveProperty('data.k');
    expect(events.filter((e) => e.type !== 'MODIFIED').every((e) => e.old === undefined)).toBe(true);
  });

  it('delivers asynchronously: nothing reaches the handler inside the write', async () => {
    const events: WatchEvent[] = [];
    const w = h.client.watch('ConfigMap', (e) => events.push(e));
    const write = h.client.create(configMap(h, 'a'));
    expect(events).toEqual([]);
    await write;
    await h.settle();
    w.stop();
    expect(summary(events)).toEqual(['ADDED a']);
  });

  it('only reports its own kind', async () => {
    const events: WatchEvent[] = [];
    const w = h.client.watch('Pod', (e) => events.push(e));
    await h.client.create(configMap(h, 'a'));
    await h.createWithStatus(pod(h, 'p', undefined));
    await h.settle();
    w.stop();
    expect(summary(events)).toEqual(['ADDED p']);
  });

  it('reports a graceful pod deletion as MODIFIED, then DELETED when it is removed', async () => {
    await h.createWithStatus(pod(h, 'p', 'node-a'));
    const events: WatchEvent[] = [];
    const w = h.client.watch('Pod', (e) => events.push(e));
    await h.client.delete(podKey(h, 'p'));
    await h.client.delete(podKey(h, 'p'), { gracePeriodSeconds: 0 });
    await h.settle();
    w.stop();
    expect(summary(events)).toEqual(['MODIFIED p', 'DELETED p']);
    expect(events[0].object.metadata.deletionTimestamp).toBeDefined();
  });

  it('stop() ends delivery', async () => {
    const events: WatchEvent[] = [];
    const w = h.client.watch('ConfigMap', (e) => events.push(e));
    await h.client.create(configMap(h, 'a'));
    await h.settle();
    w.stop();
    await h.client.create(configMap(h, 'b'));
    await h.settle();
    expect(summary(events)).toEqual(['ADDED a']);
  });

  it('changes made by a handler are delivered after the change that caused them', async () => {
    const events: WatchEvent[] = [];
    const w = h.client.watch('ConfigMap', (e) => {
      events.push(e);
      if (e.type === 'ADDED' && e.object.metadata.name === 'a') void h.client.create(configMap(h, 'from-handler'));
    });
    await h.client.create(configMap(h, 'a'));
    await h.settle();
    await h.client.create(configMap(h, 'b'));
    await h.settle();
    w.stop();
    expect(summary(events)).toEqual(['ADDED a', 'ADDED from-handler', 'ADDED b']);
    const versions = events.map((e) => BigInt(e.object.metadata.resourceVersion!));
    expect(versions[0] < versions[1] && versions[1] < versions[2]).toBe(true);
  });
});
