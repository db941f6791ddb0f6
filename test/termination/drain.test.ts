// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/core/cluster/types.js';
import { drainTier, planDrain } from '../../src/control/termination/drain.js';
import { makePod, type PodOptions } from '../support/cluster-builder.js';

const NOW = Date.parse('2026-08-20T12:00:10Z');
const T = Date.parse('2026-08-20T12:05:00Z');
const pod = (
  name: string,
  o: PodOptions & { critical?: 'system-cluster-critical' | 'system-node-critical' | 'high'; g?: number } = {},
): Pod => {
  const p = makePod(name, 'node-a', o);
  if (o.critical) p.spec.priorityClassName = o.critical;
  if (o.g !== undefined) p.spec.terminationGracePeriodSeconds = o.g;
  return p;
};
const names = (pods: Pod[]): string[] => pods.map((p) => p.metadata.name).sort();

describe('drainTier', () => {
  it.each([
    ['non-critical, not a daemon', pod('a'), 1],
    ['non-critical daemon', pod('b', { owner: 'DaemonSet' }), 2],
    ['critical by name (cluster), not a daemon', pod('c', { critical: 'system-cluster-critical' }), 3],
    ['critical by name (node) daemon', pod('d', { owner: 'DaemonSet', critical: 'system-node-critical' }), 4],
    [
      'high priority value but another class name is not critical',
      pod('e', { critical: 'high', priority: 2_000_000_000 }),
      1,
    ],
  ])('%s → tier %s', (_c, p, tier) => {
    expect(drainTier(p as Pod)).toBe(tier);
  });
});

describe('planDrain', () => {
  const workload = pod('web-1');
  const daemon = pod('log-agent-x', { owner: 'DaemonSet' });
  const critical = pod('dns-1', { critical: 'system-cluster-critical' });
  const criticalDaemon = pod('cni-x', { owner: 'DaemonSet', critical: 'system-node-critical' });

  it('queues only the first non-empty tier; critical daemonsets go last', () => {
    const all = [criticalDaemon, critical, daemon, workload];
    expect(planDrain(all, undefined, NOW)).toMatchObject({ tier: 1 });
    expect(names(planDrain(all, undefined, NOW).enqueue)).toEqual(['web-1']);
    expect(names(planDrain([criticalDaemon, critical, daemon], undefined, NOW).enqueue)).toEqual(['log-agent-x']);
    expect(names(planDrain([criticalDaemon, critical], undefined, NOW).enqueue)).toEqual(['dns-1']);
    expect(planDrain([criticalDaemon], undefined, NOW)).toMatchObject({ tier: 4 });
    expect(names(planDrain(all, undefined, NOW).waiting)).toEqual(['cni-x', 'dns-1', 'log-agent-x', 'web-1']);
  });

  it('a terminating pod still holds its tier (the next tier waits until it is gone)', () => {
    const leaving = pod('web-2', { deletionTimestamp: '2026-08-20T12:00:30Z' });
    const plan = planDrain([leaving, daemon], undefined, NOW);
    expect(plan.tier).toBe(1);
    expect(names(plan.enqueue)).toEqual(['web-2']);
  });

  it('skips mirror, terminal, disrupted-taint-tolerating and stuck-terminating pods', () => {
    const plan = planDrain(
      [
        pod('static-1', { owner: 'Node' }),
        pod('job-1', { phase: 'Succeeded' }),
        pod('job-2', { phase: 'Failed' }),
        pod('tolerant-1', { tolerations: [{ operator: 'Exists' }] }),
        pod('stuck-1', { deletionTimestamp: '2026-08-20T11:59:09Z' }), // 61 s past its deletionTimestamp
        pod('slow-1', { deletionTimestamp: '2026-08-20T11:59:10Z' }), // exactly 60 s: still waited for
      ],
      undefined,
      NOW,
    );
    expect(names(plan.waiting)).toEqual(['slow-1']);
    expect(names(plan.enqueue)).toEqual(['slow-1']);
  });

  it('waits for do-not-disrupt pods', () => {
    const plan = planDrain([pod('db-1', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } })], undefined, NOW);
    expect(names(plan.waiting)).toEqual(['db-1']);
    expect(names(plan.enqueue)).toEqual(['db-1']);
  });

  it('queues force-delete-eligible pods at once across tiers', () => {
    // g ≥ T − now
    const slowCriticalDaemon = pod('cni-slow', { owner: 'DaemonSet', critical: 'system-node-critical', g: 300 });
    const plan = planDrain([workload, daemon, slowCriticalDaemon], T, NOW);
    expect(plan.tier).toBe(1);
    expect(names(plan.enqueue)).toEqual(['cni-slow', 'web-1']);
  });

  it('nothing waiting: empty plan without a tier', () => {
    expect(planDrain([pod('static-1', { owner: 'Node' })], T, NOW)).toEqual({ waiting: [], enqueue: [] });
  });
});
