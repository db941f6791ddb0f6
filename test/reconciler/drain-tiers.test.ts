// SPDX-License-Identifier: Apache-2.0
// Drain tiers (KARPENTER.md#drain-tiers step 4): (1) non-critical non-daemonset, (2) non-critical
// daemonset, (3) critical non-daemonset, (4) critical daemonset — critical by priorityClassName
// (`system-cluster-critical` / `system-node-critical`). Only the first non-empty tier is
// evicted; the next starts once every pod of the previous one is gone.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/core/cluster/types.js';
import { makePod } from '../support/cluster-builder.js';
import { Scenario, policies, pool, replicaSet } from './scenario.js';

function pod(name: string, node: string, owner: 'DaemonSet' | 'none', priorityClassName?: string): Pod {
  const p = makePod(name, node, { owner, labels: { app: name } });
  // A fresh pod, as the API server would hold it: no fixture uid/start time, Pending until the kubelet starts it.
  delete p.metadata.uid;
  delete p.metadata.creationTimestamp;
  p.status = { phase: 'Pending' };
  if (priorityClassName) p.spec.priorityClassName = priorityClassName;
  return p;
}

describe('drain tiers', () => {
  it(
    'evicts workloads, then daemons, then critical pods, then critical daemons — each tier ' +
      'after the previous is gone',
    async () => {
      const s = new Scenario(
        [pool('default', ['m5.xlarge']), replicaSet('web', 1, { cpu: '1' })],
        policies('policy p for nodepool default {\n  consolidate never\n}\n'),
      );
      expect(await s.until(async () => (await s.runningPods()).length === 1, 15 * 60_000)).toBe(true);
      const node = (await s.runningPods())[0].spec.nodeName!;
      const web = (await s.runningPods())[0].metadata.name;
      const tiers: [string, number][] = [
        [web, 1],
        ['log-agent', 2],
        ['coredns', 3],
        ['kube-proxy', 4],
      ];
      await s.rt.cluster.create(pod('log-agent', node, 'DaemonSet'));
      await s.rt.cluster.create(pod('coredns', node, 'none', 'system-cluster-critical'));
      await s.rt.cluster.create(pod('kube-proxy', node, 'DaemonSet', 'system-node-critical'));
      expect(await s.until(async () => (await s.runningPods()).length === 4, 60_000, 5_000)).toBe(true);

      await s.rt.cluster.delete({ kind: 'Node', name: node });
      const gone = new Map<string, number>();
      expect(
        await s.until(
          async () => {
            const names = new Set((await s.pods()).filter((p) => p.spec.nodeName === node).map((p) => p.metadata.name));
            for (const [name] of tiers) if (!names.has(name) && !gone.has(name)) gone.set(name, s.clock.now() - 5_000);
            return !(await s.nodes()).some((n) => n.metadata.name === node);
          },
          20 * 60_000,
          5_000,
        ),
      ).toBe(true);

      const evictedAt = new Map(s.rt.events.list({ reason: 'Evicted' }).map((e) => [e.object.name, e.at]));
      for (const [name] of tiers) expect(evictedAt.has(name), name).toBe(true);
      // Manual deletion: no DisruptionReason on the NodeClaim.
      for (const e of s.rt.events.list({ reason: 'Evicted' }))
        expect(e.message).toBe('Evicted pod: Forceful Termination');
      for (let i = 1; i < tiers.length; i++) {
        const [prev] = tiers[i - 1];
        const [cur] = tiers[i];
        expect(evictedAt.get(cur)!, `${cur} after ${prev}`).toBeGreaterThan(evictedAt.get(prev)!);
        // Not before the previous tier's pod is gone (its 30 s grace period served).
        expect(evictedAt.get(cur)!, `${cur} after ${prev} is gone`).toBeGreaterThanOrEqual(gone.get(prev)!);
        expect(evictedAt.get(cur)! - evictedAt.get(prev)!).toBeGreaterThanOrEqual(30_000);
      }
      // The workload runs again on a new node.
      expect(
        await s.until(async () => (await s.runningPods()).some((p) => p.metadata.labels?.app === 'web'), 10 * 60_000),
      ).toBe(true);
      expect(s.rt.cloud.orphans(await s.nodeClaims())).toEqual([]);
    },
  );
});
