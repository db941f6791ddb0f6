// SPDX-License-Identifier: Apache-2.0
// Policies in ConfigMaps against the in-memory API server: hot reload, per-ConfigMap last good
// version, the status annotation and the Warning Event.
import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/core/cluster/types.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import { FakeClock } from '../../src/core/clock.js';
import { EventLog } from '../../src/core/observe/event-log.js';
import { ConfigMapPolicies } from '../../src/core/policy/configmap-policies.js';
import { ANNOTATION_POLICY_STATUS } from '../../src/core/policy/configmap-status.js';

const NS = 'kpol-system';
const good = (name: string, pool: string, budget = '10%') =>
  `policy ${name} for nodepool ${pool} {\n  budget ${budget}\n}\n`;
const BROKEN = 'policy a for nodepool x {\n  budget 5 for Drifed\n}\n';

const cm = (name: string, data: Record<string, string>, labelled = true, namespace = NS): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, ...(labelled && { labels: { 'kpol.dev/policy': 'true' } }) },
  data,
});

async function setup(objects: ConfigMap[]) {
  const clock = new FakeClock(Date.parse('2026-11-22T10:00:00Z'));
  const cluster = new MemoryCluster(clock, objects);
  const events = new EventLog(clock);
  let changes = 0;
  const store = new ConfigMapPolicies({
    client: cluster,
    clock,
    namespace: NS,
    recorder: events,
    onChange: () => changes++,
  });
  await store.start();
  await cluster.idle();
  await store.settled();
  const settle = async () => {
    await cluster.idle();
    await store.settled();
    await cluster.idle(); // the annotation write's own event
    await store.settled();
  };
  const setData = async (name: string, data: Record<string, string>) => {
    const cur = (await cluster.get<ConfigMap>({ kind: 'ConfigMap', name, namespace: NS }))!;
    await cluster.update({ ...cur, data });
    await settle();
  };
  const annotation = async (name: string) =>
    (await cluster.get<ConfigMap>({ kind: 'ConfigMap', name, namespace: NS }))?.metadata.annotations?.[
      ANNOTATION_POLICY_STATUS
    ];
  return { clock, cluster, events, store, settle, setData, annotation, changes: () => changes };
}

const budgetOf = (store: ConfigMapPolicies, name: string) =>
  store.policies.find((p) => p.name === name)?.budgets.map((b) => b.nodes);

describe('ConfigMap policies', () => {
  it('keeps the objects of the policies an edit left alone, so the evaluator keeps their work', async () => {
    const t = await setup([
      cm('a', { 'a.kpol': good('a', 'x', '10%') + good('a2', 'x2') }),
      cm('b', { 'b.kpol': good('b', 'y') }),
    ]);
    const before = new Map(t.store.policies.map((p) => [p.name, p]));
    // An edit of the same length: the next policy in the file keeps its source positions.
    await t.setData('a', { 'a.kpol': good('a', 'x', '20%') + good('a2', 'x2') });
    const after = new Map(t.store.policies.map((p) => [p.name, p]));
    expect(after.get('a')).not.toBe(before.get('a'));
    expect(budgetOf(t.store, 'a')).toEqual([{ kind: 'percent', value: 20 }]);
    // Untouched: the other policy of the edited file and the other ConfigMap's policy.
    expect(after.get('a2')).toBe(before.get('a2'));
    expect(after.get('b')).toBe(before.get('b'));
    // Moving a policy (a longer line above it, here) changes where its messages point: a new object.
    await t.setData('a', { 'a.kpol': good('a', 'x', '3') + good('a2', 'x2') });
    expect(t.store.policies.find((p) => p.name === 'a2')).not.toBe(after.get('a2'));
  });

  it('loads the *.kpol keys of labelled ConfigMaps in its namespace only, and annotates them valid', async () => {
    const t = await setup([
      cm('a', { 'a.kpol': good('a', 'x'), 'notes.txt': 'not a policy' }),
      cm('unlabelled', { 'u.kpol': good('u', 'y') }, false),
      cm('elsewhere', { 'e.kpol': good('e', 'z') }, true, 'default'),
    ]);
    expect(t.store.loaded).toBe(true);
    expect(t.store.policies.map((p) => p.name)).toEqual(['a']);
    expect(await t.annotation('a')).toBe('valid');
    expect(await t.annotation('unlabelled')).toBeUndefined();
  });

  it('hot-reloads a changed ConfigMap', async () => {
    const t = await setup([cm('a', { 'a.kpol': good('a', 'x', '10%') })]);
    expect(budgetOf(t.store, 'a')).toEqual([{ kind: 'percent', value: 10 }]);
    await t.setData('a', { 'a.kpol': good('a', 'x', '3') });
    expect(budgetOf(t.store, 'a')).toEqual([{ kind: 'count', value: 3 }]);
  });

  it(
    'keeps the last good version of a broken ConfigMap, with a Warning Event and annotation ' +
      'naming the error; a fix takes effect',
    async () => {
      const t = await setup([cm('a', { 'p.kpol': good('a', 'x', '10%') })]);
      const before = t.store.policies;
      await t.setData('a', { 'p.kpol': BROKEN });
      expect(t.store.policies).toBe(before);
      const warnings = t.events.list({ reason: 'PolicyInvalid' });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ type: 'Warning', object: { kind: 'ConfigMap', name: 'a', namespace: NS } });
      expect(warnings[0].message).toContain('configmap/kpol-system/a/p.kpol:2:16: error KPOL2001');
      expect(await t.annotation('a')).toMatch(/^configmap\/kpol-system\/a\/p\.kpol:2:16: error KPOL2001: .*Drifed/);

      await t.setData('a', { 'p.kpol': good('a', 'x', '2') });
      expect(budgetOf(t.store, 'a')).toEqual([{ kind: 'count', value: 2 }]);
      expect(await t.annotation('a')).toBe('valid');
      expect(t.events.list({ reason: 'PolicyValid' })).toHaveLength(1);
    },
  );

  it('a valid change in one ConfigMap applies while another stays broken on its last good version', async () => {
    const t = await setup([cm('a', { 'a.kpol': good('a', 'x', '1') }), cm('b', { 'b.kpol': good('b', 'y', '1') })]);
    await t.setData('b', { 'b.kpol': BROKEN.replace('policy a for nodepool x', 'policy b for nodepool y') });
    await t.setData('a', { 'a.kpol': good('a', 'x', '4') });
    expect(budgetOf(t.store, 'a')).toEqual([{ kind: 'count', value: 4 }]);
    expect(budgetOf(t.store, 'b')).toEqual([{ kind: 'count', value: 1 }]);
    expect(await t.annotation('a')).toBe('valid');
    expect(await t.annotation('b')).toContain('configmap/kpol-system/b/b.kpol:2:16');
  });

  it('a ConfigMap that conflicts with another (same policy name) is refused, the other kept', async () => {
    const t = await setup([cm('a', { 'a.kpol': good('shared', 'x') })]);
    await t.cluster.create(cm('b', { 'b.kpol': good('shared', 'y') }));
    await t.settle();
    expect(t.store.policies.map((p) => p.name)).toEqual(['shared']);
    expect(t.store.policies[0].target).toMatchObject({ names: ['x'] });
    expect(await t.annotation('a')).toBe('valid');
    expect(await t.annotation('b')).toMatch(/^configmap\/kpol-system\/b\/b\.kpol:1:\d+: error KPOL2/);
  });

  it('a ConfigMap broken from the start contributes nothing; the others load', async () => {
    const t = await setup([
      cm('a', { 'a.kpol': good('a', 'x') }),
      cm('b', { 'b.kpol': BROKEN.replace('policy a for nodepool x', 'policy b for nodepool y') }),
    ]);
    expect(t.store.loaded).toBe(true);
    expect(t.store.policies.map((p) => p.name)).toEqual(['a']);
    expect(t.store.states.get(`${NS}/b`)?.rejected[0].diagnostic.code).toBe('KPOL2001');
  });

  it('deleting or unlabelling a ConfigMap removes its policies', async () => {
    const t = await setup([cm('a', { 'a.kpol': good('a', 'x') }), cm('b', { 'b.kpol': good('b', 'y') })]);
    await t.cluster.delete({ kind: 'ConfigMap', name: 'a', namespace: NS });
    await t.settle();
    expect(t.store.policies.map((p) => p.name)).toEqual(['b']);
    const b = (await t.cluster.get<ConfigMap>({ kind: 'ConfigMap', name: 'b', namespace: NS }))!;
    await t.cluster.update({ ...b, metadata: { ...b.metadata, labels: {} } });
    await t.settle();
    expect(t.store.policies).toEqual([]);
  });

  it('settles without writes: a reload with nothing changed neither patches nor notifies', async () => {
    const t = await setup([cm('a', { 'a.kpol': good('a', 'x') }), cm('b', { 'b.kpol': BROKEN })]);
    const version = t.cluster.resourceVersion();
    const changes = t.changes();
    await t.store.reload();
    expect(t.cluster.resourceVersion()).toBe(version);
    expect(t.changes()).toBe(changes);
    expect(t.events.list({ reason: 'PolicyInvalid' })).toHaveLength(1);
  });

  it('policy files given on the command line are part of every set', async () => {
    const clock = new FakeClock(0);
    const cluster = new MemoryCluster(clock, [cm('a', { 'a.kpol': good('dup', 'x') })]);
    const store = new ConfigMapPolicies({
      client: cluster,
      clock,
      namespace: NS,
      files: [{ fileName: 'local.kpol', text: good('dup', 'y') }],
    });
    await store.start();
    expect(store.policies.map((p) => p.target)).toEqual([expect.objectContaining({ names: ['y'] })]);
    expect(store.states.get(`${NS}/a`)?.status).toContain('configmap/kpol-system/a/a.kpol');
    store.stop();
  });

  it(
    'applied() is what is enforced: the files, then each ConfigMap’s accepted version (its ' +
      'last good one while refused)',
    async () => {
      const clock = new FakeClock(0);
      const cluster = new MemoryCluster(clock, [
        cm('b', { 'b.kpol': good('b', 'y', '1') }),
        cm('a', { 'a.kpol': good('a', 'x', '1') }),
      ]);
      const local = { fileName: 'local.kpol', text: good('l', 'z') };
      const store = new ConfigMapPolicies({ client: cluster, clock, namespace: NS, files: [local] });
      await store.start();
      expect(store.files).toEqual([local]);
      expect(store.applied().map((s) => s.fileName)).toEqual([
        'local.kpol',
        `configmap/${NS}/a/a.kpol`,
        `configmap/${NS}/b/b.kpol`,
      ]);
      const b = (await cluster.get<ConfigMap>({ kind: 'ConfigMap', name: 'b', namespace: NS }))!;
      await cluster.update({
        ...b,
        data: { 'b.kpol': BROKEN.replace('policy a for nodepool x', 'policy b for nodepool y') },
      });
      await cluster.idle();
      await store.settled();
      expect(store.applied().find((s) => s.fileName.endsWith('/b.kpol'))?.text).toBe(good('b', 'y', '1'));
      await cluster.delete({ kind: 'ConfigMap', name: 'a', namespace: NS });
      await cluster.idle();
      await store.settled();
      expect(store.applied().map((s) => s.fileName)).toEqual(['local.kpol', `configmap/${NS}/b/b.kpol`]);
      store.stop();
    },
  );
});
