// SPDX-License-Identifier: Apache-2.0
// Generated inputs for the benchmarks: a long policy file and a large cluster.
import type { KubeObject } from '../../src/core/cluster/types.js';
import { makeNodeClaimAndNode, makeNodePool, makePdb, makePod } from '../support/cluster-builder.js';

/** A policy file of about `lines` lines: many policies using every statement kind. */
export function generatePolicy(lines: number): string {
  const out: string[] = [
    '# generated for the benchmark',
    'schedule nightly = "0 1 * * mon-fri" for 4h in "Europe/Berlin"',
    '',
  ];
  for (let i = 0; out.length < lines; i++) {
    out.push(
      `policy gen-${i} for nodepool pool-${i} {`,
      '  consolidate when empty or underutilized after 5m',
      '  expire after 720h',
      '  termination grace 24h',
      `  budget ${(i % 50) + 1}% for Empty, Drifted`,
      '  budget 5',
      '  budget 0 for Underutilized during "@daily" for 10m',
      '  allow 3 Drifted only during nightly',
      `  pods where app = "ml-${i}" disruptable only during "0 2 * * sat" for 6h`,
      '  window zone-freeze blocks Underutilized on nodes where topology.kubernetes.io/zone in ' +
        '(us-west-2a) during "0 9 * * 1-5" for 8h',
      '}',
      '',
    );
  }
  return out.join('\n');
}

export interface ClusterShape {
  pools: number;
  nodes: number;
  pods: number;
  /**
   * Pods owned by ReplicaSets that exist (one per pool and pod slot, a replica per node), so an
   * evicted pod comes back and needs capacity, as in a real cluster. Without it the pods' owners
   * are absent and an evicted pod is gone for good.
   */
  replicaSets?: boolean;
}

/** A cluster of `nodes` machines over `pools` NodePools with `pods` pods, PDBs and some protections. */
export const generateCluster = (shape: ClusterShape): KubeObject[] => [...clusterObjects(shape)];

/**
 * generateCluster's objects one at a time: a Runtime seeded from this keeps no object it has
 * copied into its store (RuntimeOptions.objects), so the bench measures the controller, not its seed.
 */
export function* clusterObjects(shape: ClusterShape): Generator<KubeObject> {
  const perPool = Math.ceil(shape.nodes / shape.pools);
  const podsPerNode = Math.round(shape.pods / shape.nodes);
  for (let p = 0; p < shape.pools; p++) {
    const pool = `pool-${p}`;
    yield makeNodePool(pool, { consolidateAfter: '5m' });
    for (let i = 0; i < perPool && p * perPool + i < shape.nodes; i++) {
      // Machines made together 36 h before the simulations' start: nothing expires within a week;
      // a simulated month sees them all reach the default expireAfter (720 h) in its 685th hour.
      // Names are unique across any number of pools.
      const { nodeClaim, node } = makeNodeClaimAndNode(pool, i, {
        drifted: i % 7 === 0,
        createdAt: '2026-11-22T00:00:00Z',
      });
      const name = `node-${p}-${i}`;
      const zone = node.metadata.labels?.['topology.kubernetes.io/zone'];
      const providerID = `aws:///${zone}/i-${p.toString(16)}x${i.toString(16)}`;
      node.metadata.name = name;
      node.metadata.labels = { ...node.metadata.labels, 'kubernetes.io/hostname': name };
      node.spec.providerID = providerID;
      nodeClaim.metadata.name = `${pool}-${i}`;
      nodeClaim.status = { ...nodeClaim.status, providerID, nodeName: name };
      yield nodeClaim;
      yield node;
      for (let k = 0; k < podsPerNode; k++) {
        const annotations: Record<string, string> = {};
        if ((i + k) % 97 === 0) annotations['karpenter.sh/do-not-disrupt'] = 'true';
        if ((i + k) % 89 === 0) annotations['karpenter.sh/disruption-schedule'] = '0 2 * * 6';
        if (shape.replicaSets) {
          yield makePod(`${workload(p, k)}-${i}`, node.metadata.name, {
            namespace: `team-${p % 10}`,
            labels: workloadLabels(p, k),
          });
        } else {
          yield makePod(`app-${p}-${i}-${k}`, node.metadata.name, {
            namespace: `team-${p % 10}`,
            labels: { app: `app-${k % 20}`, team: `t${p % 10}` },
            annotations,
          });
        }
      }
    }
    if (shape.replicaSets) {
      const replicas = Math.min(perPool, shape.nodes - p * perPool);
      for (let k = 0; k < podsPerNode; k++) yield replicaSetFor(p, k, replicas);
    }
  }
  // PDBs that allow disruptions everywhere, and one that allows none (it holds a tenth of the nodes).
  for (let t = 0; t < 10; t++) {
    for (let a = 0; a < 20; a += 4)
      yield makePdb(
        `app-${a}`,
        { matchLabels: { app: `app-${a}` } },
        { namespace: `team-${t}`, minAvailable: 1, disruptionsAllowed: 1 },
      );
  }
  yield makePdb(
    'app-1',
    { matchLabels: { app: 'app-1' } },
    { namespace: 'team-0', maxUnavailable: 0, disruptionsAllowed: 0 },
  );
}

const workload = (p: number, k: number) => `app-${p}-k${k}`;
const workloadLabels = (p: number, k: number) => ({
  app: `app-${k % 20}`,
  team: `t${p % 10}`,
  workload: workload(p, k),
});

/**
 * The ReplicaSet owning pod slot `k` of pool `p` (makePod names its pods' owner from their name, with the same uid).
 */
function replicaSetFor(p: number, k: number, replicas: number): KubeObject {
  const name = workload(p, k);
  const labels = workloadLabels(p, k);
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: `team-${p % 10}`, uid: `uid-ReplicaSet-${name}` },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          nodeSelector: { 'karpenter.sh/nodepool': `pool-${p}` },
          terminationGracePeriodSeconds: 30,
          containers: [{ name: 'main', resources: { requests: { cpu: '100m', memory: '128Mi' } } }],
        },
      },
    },
  } as KubeObject;
}
