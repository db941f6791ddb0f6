// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { indexCluster } from '../../src/core/cluster/state.js';
import { loadSnapshot, type Snapshot } from '../../src/core/cluster/snapshot.js';
import type { KubeObject } from '../../src/core/cluster/types.js';
import { isCurrentlyReschedulable, simNodeFromState } from '../../src/world/scheduling/from-state.js';
import { makeNodeClaimAndNode, makePdb, makePod, toList } from '../support/cluster-builder.js';

const NOW = Date.parse('2026-08-20T12:00:00Z');

function snap(objects: KubeObject[]): Snapshot {
  const { snapshot, errors } = loadSnapshot(JSON.stringify(toList(objects)), 't.json');
  expect(errors).toEqual([]);
  return snapshot!;
}

describe('simNodeFromState', () => {
  it('takes labels, taints, allocatable, non-terminal pods and the NodeClaim name', () => {
    const m = makeNodeClaimAndNode('default', 0);
    const node = { ...m.node, spec: { ...m.node.spec, unschedulable: true } };
    const running = makePod('web-1', node.metadata.name);
    const done = makePod('job-1', node.metadata.name, { owner: 'Job', phase: 'Succeeded' });
    const sn = indexCluster(snap([m.nodeClaim, node, running, done])).stateNodes[0];
    const sim = simNodeFromState(sn, { consolidateAfterBlocked: true });
    expect(sim.name).toBe(node.metadata.name);
    expect(sim.labels['karpenter.sh/nodepool']).toBe('default');
    expect(sim.taints).toContainEqual({ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' });
    expect(sim.allocatable.cpu).toBeGreaterThan(0);
    expect(sim.pods.map((p) => p.metadata.name)).toEqual(['web-1']);
    expect(sim.initialized).toBe(true);
    expect(sim.nodeClaim).toBe(m.nodeClaim.metadata.name);
    expect(sim.consolidateAfterBlocked).toBe(true);
  });

  it('an uninitialized managed node is not initialized; an unmanaged node is', () => {
    const m = makeNodeClaimAndNode('default', 0, { initialized: false });
    expect(simNodeFromState(indexCluster(snap([m.nodeClaim, m.node])).stateNodes[0]).initialized).toBe(false);
    expect(simNodeFromState(indexCluster(snap([m.node])).stateNodes[0]).initialized).toBe(true);
  });
});

describe('isCurrentlyReschedulable (KARPENTER.md#pod-predicates)', () => {
  const pods = {
    plain: makePod('web-1', 'n', { labels: { app: 'web' } }),
    daemon: makePod('ds-1', 'n', { owner: 'DaemonSet' }),
    dnd: makePod('dnd-1', 'n', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
    blocked: makePod('db-1', 'n', { labels: { app: 'db' } }),
    blockedUnready: makePod('cache-1', 'n', { labels: { app: 'cache' }, ready: 'False' }),
  };
  const index = indexCluster(
    snap([
      ...Object.values(pods),
      makePdb('db', { matchLabels: { app: 'db' } }, { maxUnavailable: 0 }),
      makePdb(
        'cache',
        { matchLabels: { app: 'cache' } },
        { minAvailable: '100%', unhealthyPodEvictionPolicy: 'AlwaysAllow' },
      ),
      makePdb('web', { matchLabels: { app: 'web' } }, { maxUnavailable: 1, disruptionsAllowed: 0 }),
    ]),
  );

  it.each([
    ['plain (a PDB with no disruptions left is not *fully* blocking)', 'plain', true],
    ['daemonset pod', 'daemon', false],
    ['do-not-disrupt', 'dnd', false],
    ['maxUnavailable: 0', 'blocked', false],
    ['minAvailable 100% with AlwaysAllow and Ready False', 'blockedUnready', true],
  ] as const)('%s → %s', (_, key, expected) => {
    const pod = index.snapshot.pods.find((p) => p.metadata.name === pods[key].metadata.name)!;
    expect(isCurrentlyReschedulable(index, pod, NOW)).toBe(expected);
  });
});
