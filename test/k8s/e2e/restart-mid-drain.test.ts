// SPDX-License-Identifier: Apache-2.0
// Issue 4, end to end 4: kpol run is SIGKILLed while a drifted node is draining and started
// again. Everything it needs is in the cluster (the disrupted taint, the NodeClaim's deletion
// and finalizer, NodeClaims' providerIDs, from which the new process's simulated cloud adopts
// the running machines): the new process finishes the drain and the remaining drift, never
// more than the budget at once, and at the end every machine belongs to a NodeClaim.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { sharedControlPlane } from '../control-plane/inject.js';
import {
  apply,
  cleanup,
  deployment,
  driftOneAtATime,
  describeDisrupting,
  disruptingNodes,
  nodePool,
  poolState,
  readyPods,
  sampleUntil,
  type PoolState,
} from './e2e-cluster.js';
import { killStrays, startKpol } from './kpol-process.js';

const cp = sharedControlPlane();
const id = randomBytes(3).toString('hex');
const ns = `kpol-e2e-restart-${id}`;
const pool = `e2e-restart-${id}`;
const REPLICAS = 4;

afterAll(async () => {
  killStrays();
  await cleanup(cp, ns, pool);
});

/** A node being drained: its NodeClaim is deleting and pods are still bound to it. */
const drainingNode = (s: PoolState): string | undefined =>
  s.nodeClaims
    .filter((nc) => nc.metadata.deletionTimestamp && nc.status?.nodeName)
    .map((nc) => nc.status!.nodeName!)
    .find((node) => s.pods.some((p) => p.spec.nodeName === node));

describe('e2e 4: the controller killed mid-drain and restarted', () => {
  it('resumes from cluster state and finishes within the budget, with no orphaned machine', async () => {
    await driftOneAtATime(cp, ns, pool);
    // Pods take 8 s to leave once evicted, so a drain lasts long enough to be interrupted.
    await apply(cp, deployment(ns, 'web', pool, REPLICAS, '800m', { graceSeconds: 8 }));
    await apply(
      cp,
      `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: { name: web, namespace: ${ns} }
spec: { maxUnavailable: 1, selector: { matchLabels: { app: web } } }
`,
    );
    const first = await startKpol(cp.kubeconfigPath, ns);
    const read = () => poolState(cp, pool, ns);
    const budget = (s: PoolState) => {
      const d = disruptingNodes(s);
      expect(d.length, `disrupting at once: ${describeDisrupting(s, d)}`).toBeLessThanOrEqual(1);
    };
    const original = await sampleUntil(
      'every pod Ready on two nodes',
      read,
      () => {},
      (s) =>
        readyPods(s, 'web').length === REPLICAS && s.nodes.length === 2
          ? s.nodes.map((n) => n.metadata.name)
          : undefined,
      90_000,
    );

    await apply(cp, nodePool(pool, '2'));
    const victim = await sampleUntil('a drifted node draining', read, budget, drainingNode, 90_000);
    expect(await first.stop('SIGKILL')).toBeNull();

    // With no controller the cluster keeps what kpol wrote: the node stays tainted and deleting
    // (its NodeClaim's finalizer holds it), and nothing else starts.
    const held = await read();
    budget(held);
    expect(held.nodeClaims.find((nc) => nc.status?.nodeName === victim)?.metadata.deletionTimestamp).toBeDefined();
    expect(
      held.nodes.find((n) => n.metadata.name === victim)?.spec.taints?.some((t) => t.key === 'karpenter.sh/disrupted'),
    ).toBe(true);
    const claimsAtKill = held.nodeClaims.map((nc) => nc.metadata.name);

    const second = await startKpol(cp.kubeconfigPath, ns);
    const final = await sampleUntil(
      'every original node replaced and every pod Ready',
      read,
      budget,
      (s) => {
        const onOld =
          s.nodes.some((n) => original.includes(n.metadata.name)) ||
          s.nodeClaims.some((nc) => original.includes(nc.status?.nodeName ?? ''));
        return !onOld &&
          readyPods(s, 'web').length === REPLICAS &&
          s.nodeClaims.every((nc) => !nc.metadata.deletionTimestamp && nc.status?.nodeName)
          ? s
          : undefined;
      },
      150_000,
    );
    // The new process adopted every machine the old one left (none unknown to its cloud).
    // (Only this pool's NodeClaims count: other test files on the shared control plane leave
    // cluster-scoped fixture NodeClaims behind, which the controller lists too.)
    const refused = second
      .logs()
      .filter((l) => l.msg === 'NodeClaims the simulated cloud cannot take over')
      .flatMap((l) => (l as { nodeClaims?: string[] }).nodeClaims ?? []);
    expect(refused.filter((n) => claimsAtKill.includes(n))).toEqual([]);
    // The victim's NodeClaim finished terminating under the new process.
    expect(final.nodeClaims.map((nc) => nc.metadata.name)).not.toContain(
      claimsAtKill.find((n) => held.nodeClaims.find((nc) => nc.metadata.name === n)?.status?.nodeName === victim),
    );

    // Nodes and NodeClaims pair up one to one, and the cloud runs exactly their machines.
    const claimIDs = final.nodeClaims.map((nc) => nc.status?.providerID).sort();
    expect(final.nodes.map((n) => n.spec.providerID).sort()).toEqual(claimIDs);
    for (const p of readyPods(final, 'web')) expect(final.nodes.map((n) => n.metadata.name)).toContain(p.spec.nodeName);
    expect(await second.stop('SIGTERM')).toBe(0);
    const cloud = second.logs().find((l) => l.msg === 'cloud at stop') as
      { instances: string[]; orphans: string[] } | undefined;
    expect(cloud).toBeDefined();
    // No machine runs without a NodeClaim, and each of this pool's NodeClaims has its machine.
    // (Not "exactly these machines": the restarted process adopts every NodeClaim on the shared
    // control plane, other test files' pools included — one such extra instance failed a CI run.)
    expect(cloud!.orphans).toEqual([]);
    expect(claimIDs.filter((id) => !cloud!.instances.includes(id!))).toEqual([]);
  }, 300_000);
});
