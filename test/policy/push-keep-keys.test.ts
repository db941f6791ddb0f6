// SPDX-License-Identifier: Apache-2.0
// pushPolicies as the editor's save uses it: one key written, the ConfigMap's other keys kept
// and checked beside it, and a base version whose key text still holds is no conflict.
import { describe, expect, it } from 'vitest';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { ConfigMap } from '../../src/core/cluster/types.js';
import { FakeClock } from '../../src/core/clock.js';
import { pushPolicies } from '../../src/core/policy/push.js';

const NS = 'kpol-system';
const at = { namespace: NS, name: 'team' };
const policy = (name: string, pool: string) => `policy ${name} for nodepool ${pool} {\n  budget 10%\n}\n`;
const file = (key: string, text: string) => ({ key, fileName: `configmap/${NS}/team/${key}`, text });

function setup() {
  const cluster = new MemoryCluster(new FakeClock(0), [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'team', namespace: NS, labels: { 'kpol.dev/policy': 'true' } },
      data: { 'a.kpol': policy('a', 'x'), 'b.kpol': policy('b', 'y'), README: 'kept' },
    } satisfies ConfigMap,
  ]);
  const read = async () => (await cluster.get<ConfigMap>({ kind: 'ConfigMap', ...at }))!;
  return { cluster, read };
}

describe('pushPolicies with keepOtherKeys', () => {
  it('writes one key and keeps the others', async () => {
    const { cluster, read } = setup();
    const r = await pushPolicies(cluster, [file('a.kpol', policy('a', 'z'))], at, { keepOtherKeys: true });
    expect(r.kind).toBe('written');
    expect((await read()).data).toEqual({ 'a.kpol': policy('a', 'z'), 'b.kpol': policy('b', 'y'), README: 'kept' });
  });

  it(
    'checks the key beside the same ConfigMap’s other keys: a clash with a sibling is refused, ' + 'nothing written',
    async () => {
      const { cluster, read } = setup();
      const before = (await read()).metadata.resourceVersion;
      const r = await pushPolicies(cluster, [file('a.kpol', policy('b', 'z'))], at, { keepOtherKeys: true });
      expect(r.kind).toBe('refused');
      expect((await read()).metadata.resourceVersion).toBe(before);
    },
  );

  it('a newer version is a conflict unless every written key still holds its base text', async () => {
    const { cluster, read } = setup();
    const base = await read();
    await cluster.update({ ...base, metadata: { ...base.metadata, annotations: { 'kpol.dev/status': 'valid' } } });
    const rv = base.metadata.resourceVersion!;
    const stale = await pushPolicies(cluster, [file('a.kpol', policy('a', 'z'))], at, {
      keepOtherKeys: true,
      base: { resourceVersion: rv },
    });
    expect(stale).toMatchObject({ kind: 'conflict', current: { data: { 'a.kpol': policy('a', 'x') } } });
    const same = await pushPolicies(cluster, [file('a.kpol', policy('a', 'z'))], at, {
      keepOtherKeys: true,
      base: { resourceVersion: rv, texts: { 'a.kpol': policy('a', 'x') } },
    });
    expect(same.kind).toBe('written');
    const again = await pushPolicies(cluster, [file('a.kpol', policy('a', 'w'))], at, {
      keepOtherKeys: true,
      base: { resourceVersion: rv, texts: { 'a.kpol': policy('a', 'x') } },
    });
    expect(again.kind).toBe('conflict');
  });

  it('without a base version, a key that exists already is a conflict (the editor’s new policy)', async () => {
    const { cluster } = setup();
    const r = await pushPolicies(cluster, [file('a.kpol', policy('a', 'z'))], at, { keepOtherKeys: true, base: {} });
    expect(r.kind).toBe('conflict');
  });
});
