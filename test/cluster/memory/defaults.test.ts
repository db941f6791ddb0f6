// SPDX-License-Identifier: Apache-2.0
// The in-memory server fills in what kube-apiserver does, for the fields kpol reads
// (src/core/cluster/memory/defaults.ts): on create, on writes that remove a default, and for
// seeded snapshot objects. test/k8s/adapter/defaults.test.ts runs the same cases on both.
import { describe, expect, it } from 'vitest';
import type { KubeObject, NodePool, Pod } from '../../../src/core/cluster/types.js';
import { memoryBackend, memoryCluster } from './backends.js';
import { DEFAULTS_CASES } from './defaults-cases.js';

describe('the in-memory server defaults what kube-apiserver defaults', () => {
  it.each(DEFAULTS_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const h = await memoryBackend.setup();
    expect(c.fields(await c.run(h))).toEqual(c.expected);
  });

  it('defaults seeded snapshot objects as a create would, keeping what they say', async () => {
    const seeded: KubeObject[] = [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'bare', namespace: 'shop' },
        spec: { nodeName: 'n1', containers: [{ name: 'main' }] },
        status: { phase: 'Running' },
      },
      {
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodePool',
        metadata: { name: 'default' },
        spec: { template: { spec: { expireAfter: 'Never' } } },
      },
    ];
    const { cluster } = memoryCluster(seeded);
    const pod = (await cluster.get<Pod>({ kind: 'Pod', namespace: 'shop', name: 'bare' }))!;
    expect([pod.spec.terminationGracePeriodSeconds, pod.spec.priority, pod.status?.phase]).toEqual([30, 0, 'Running']);
    const pool = (await cluster.get<NodePool>({ kind: 'NodePool', name: 'default' }))!;
    expect(pool.spec.disruption).toEqual({
      consolidateAfter: '0s',
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      budgets: [{ nodes: '10%' }],
    });
    expect(pool.spec.template?.spec?.expireAfter).toBe('Never');
  });
});
