// SPDX-License-Identifier: Apache-2.0
// Issue 4, end to end 2: a Deployment scaled down leaves two half-used nodes; kpol consolidates
// one of them away (Underutilized, delete); kube-controller-manager's ReplicaSet controller
// recreates the evicted pod and kube-scheduler binds it onto the remaining node.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { sharedControlPlane } from '../control-plane/inject.js';
import { kubectlOk } from '../control-plane/kubectl.js';
import {
  apply,
  cleanup,
  deployment,
  disruptingNodes,
  events,
  nodePool,
  policyConfigMap,
  poolState,
  prepare,
  readyPods,
  sampleUntil,
} from './e2e-cluster.js';
import { killStrays, startKpol } from './kpol-process.js';

const cp = sharedControlPlane();
const id = randomBytes(3).toString('hex');
const ns = `kpol-e2e-cons-${id}`;
const pool = `e2e-cons-${id}`;

afterAll(async () => {
  killStrays();
  await cleanup(cp, ns, pool);
});

describe('e2e 2: underutilized nodes consolidated', () => {
  it(
    'deletes a half-used node; its pod is recreated by the ReplicaSet controller and bound by ' +
      'kube-scheduler on the remaining node',
    async () => {
      await prepare(cp, ns);
      await apply(cp, nodePool(pool, '1'));
      await apply(
        cp,
        policyConfigMap(
          ns,
          'consolidation',
          `
      policy compact for nodepool ${pool} {
        consolidate when empty or underutilized after 5s
        budget 1
      }`,
        ),
      );
      // Three 800m pods need two m5.large nodes (two on one, one on the other).
      await apply(cp, deployment(ns, 'web', pool, 3, '800m'));
      const kpol = await startKpol(cp.kubeconfigPath, ns);
      const read = () => poolState(cp, pool, ns);
      await sampleUntil(
        'three pods Ready on two nodes',
        read,
        () => {},
        (s) =>
          readyPods(s, 'web').length === 3 && s.nodes.length === 2 && disruptingNodes(s).length === 0 ? s : undefined,
        90_000,
      );

      // The ReplicaSet controller scales down from the fuller node first: one pod per node, each
      // node 40% used, and both pods fit on one.
      await kubectlOk(cp.kubeconfigPath, ['-n', ns, 'scale', 'deployment/web', '--replicas=2']);
      const spread = await sampleUntil(
        'one pod on each node',
        read,
        () => {},
        (s) => {
          const pods = readyPods(s, 'web');
          return pods.length === 2 &&
            s.pods.filter((p) => p.metadata.labels?.app === 'web').length === 2 &&
            new Set(pods.map((p) => p.spec.nodeName)).size === 2
            ? s
            : undefined;
        },
        60_000,
      );
      const before = new Map(readyPods(spread, 'web').map((p) => [p.metadata.name, p.spec.nodeName!]));
      const nodesBefore = spread.nodes.map((n) => n.metadata.name);

      const after = await sampleUntil(
        'one node left running both pods',
        read,
        (s) => {
          expect(disruptingNodes(s).length).toBeLessThanOrEqual(1);
        },
        (s) => {
          const pods = readyPods(s, 'web');
          return s.nodes.length === 1 &&
            s.nodeClaims.length === 1 &&
            pods.length === 2 &&
            pods.every((p) => p.spec.nodeName === s.nodes[0].metadata.name)
            ? s
            : undefined;
        },
        120_000,
      );

      const remaining = after.nodes[0].metadata.name;
      expect(nodesBefore).toContain(remaining); // consolidated onto existing capacity: nothing launched
      const [removed] = nodesBefore.filter((n) => n !== remaining);
      const pods = readyPods(after, 'web');
      // The pod that ran on the removed node is gone; a new one (another name) replaced it.
      const moved = [...before].find(([, node]) => node === removed)![0];
      expect(pods.map((p) => p.metadata.name)).not.toContain(moved);
      const recreated = pods.find((p) => !before.has(p.metadata.name))!;
      expect(recreated.metadata.ownerReferences?.[0]?.kind).toBe('ReplicaSet');
      const scheduled = (await events(cp, 'Scheduled')).find(
        (e) => e.involvedObject.name === recreated.metadata.name && e.involvedObject.namespace === ns,
      );
      expect(scheduled?.reportingComponent ?? scheduled?.source?.component).toBe('default-scheduler');
      expect(scheduled?.message).toContain(remaining);

      const decisions = kpol.logs().filter((l) => l.msg === 'disruption decision');
      expect(decisions).toHaveLength(1);
      expect(decisions[0]).toMatchObject({ reason: 'Underutilized', decision: 'delete', nodes: [removed] });
      expect(await kpol.stop('SIGTERM')).toBe(0);
    },
    240_000,
  );
});
