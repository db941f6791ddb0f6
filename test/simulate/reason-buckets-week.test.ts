// SPDX-License-Identifier: Apache-2.0
// A week of `kpol simulate` (issue 15): a NodePool whose 8 nodes are all drifted and
// underutilized, so drift and consolidation both want to act. Under Karpenter's shared count
// (`budget 1`) a consolidation in flight holds drift back and vice versa: never both at once.
// With independent buckets (`budget 1 for Drifted per reason`, `budget 1 for Underutilized per
// reason`, …) drift proceeds while a consolidation holds its own bucket, and no tick ever has
// more than one node disrupting for a reason.
import { describe, expect, it } from 'vitest';
import type { KubeObject, NodeClaim } from '../../src/core/cluster/types.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { simulationObjects } from '../../src/edge/simulate/cluster-objects.js';
import { simulate } from '../../src/edge/simulate/simulated-run.js';
import { makeNodeClaimAndNode, makeNodePool, makePod, toList } from '../support/cluster-builder.js';

const FROM = Date.parse('2026-11-23T00:00:00Z');
const WEEK = 7 * 24 * 3600_000;
const NODES = 8;

function objects(): KubeObject[] {
  const out: KubeObject[] = [makeNodePool('web', { consolidationPolicy: 'WhenEmptyOrUnderutilized' })];
  for (let i = 0; i < NODES; i++) {
    // Drifted (the NodeClaim's Drifted condition, as Karpenter's drift controller sets it)
    const { nodeClaim, node } = makeNodeClaimAndNode('web', i, { createdAt: '2026-11-20T00:00:00Z', drifted: true });
    out.push(nodeClaim, node);
    const pod = makePod(`web-${i}`, node.metadata.name, {
      labels: { app: 'web' },
      requests: { cpu: '300m', memory: '256Mi' },
    });
    pod.metadata.ownerReferences = [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'uid-rs-web', controller: true },
    ];
    out.push(pod);
  }
  out.push({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web', namespace: 'default', uid: 'uid-rs-web' },
    spec: {
      replicas: NODES,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'main', resources: { requests: { cpu: '300m', memory: '256Mi' } } }] },
      },
    },
  } as unknown as KubeObject);
  const { objects: loaded, errors } = simulationObjects(JSON.stringify(toList(out)), 'cluster.json');
  expect(errors).toEqual([]);
  return loaded;
}

async function week(body: string) {
  const loaded = loadPolicies([{ fileName: 'p.kpol', text: `policy p for nodepool web {\n${body}\n}\n` }]);
  expect(loaded.ok).toBe(true);
  /** Per tick, the nodes disrupting for each reason (commands in flight and deleting NodeClaims). */
  const perTick: Record<string, number>[] = [];
  const t = await simulate({
    objects: objects(),
    policies: loaded.policies,
    fromMs: FROM,
    forMs: WEEK,
    stepMs: 60_000,
    onTick: async (rt) => {
      const by: Record<string, Set<string>> = {};
      const add = (reason: string, id: string) => (by[reason] ??= new Set()).add(id);
      for (const c of rt.state.commands.values()) for (const x of c.candidates) add(c.reason, x.providerID);
      for (const nc of await rt.cluster.list<NodeClaim>('NodeClaim')) {
        if (!nc.metadata.deletionTimestamp) continue;
        const r = nc.status?.conditions?.find((c) => c.type === 'DisruptionReason' && c.status === 'True')?.reason;
        add(r ?? 'unknown', nc.status?.providerID ?? nc.metadata.name);
      }
      perTick.push(Object.fromEntries(Object.entries(by).map(([r, s]) => [r, s.size])));
    },
  });
  const drifts = t.disruptions.filter((d) => d.reason === 'Drifted').length;
  const consolidations = t.disruptions.filter((d) => d.reason === 'Underutilized' || d.reason === 'Empty').length;
  const together = perTick.filter((x) => (x.Drifted ?? 0) > 0 && (x.Underutilized ?? 0) + (x.Empty ?? 0) > 0);
  return { t, perTick, drifts, consolidations, together: together.length };
}

describe('a simulated week with independent reason buckets', () => {
  it('shared count (Karpenter): drift and consolidation never overlap', async () => {
    const shared = await week('budget 1');
    expect(shared.drifts).toBeGreaterThan(0);
    expect(shared.together).toBe(0);
    for (const x of shared.perTick) expect(Object.values(x).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1);
  }, 120_000);

  it('buckets: drift proceeds while consolidation holds its own bucket, and no bucket is ever exceeded', async () => {
    const buckets = await week(
      'budget 1 for Drifted per reason\nbudget 1 for Underutilized per reason\nbudget 1 for Empty per reason',
    );
    for (const [i, x] of buckets.perTick.entries()) {
      for (const reason of ['Drifted', 'Underutilized', 'Empty'])
        expect((x[reason] ?? 0) + (x.unknown ?? 0), `tick ${i} ${reason}: ${JSON.stringify(x)}`).toBeLessThanOrEqual(1);
    }
    // …and it is not idle: drift and consolidation both acted, at the same time
    expect(buckets.drifts).toBeGreaterThan(0);
    expect(buckets.consolidations).toBeGreaterThan(0);
    expect(buckets.together).toBeGreaterThan(0);
  }, 120_000);
});
