// SPDX-License-Identifier: Apache-2.0
// Issue 4, end to end 1: a NodePool, a Deployment and its PDB applied with kubectl, a policy
// ConfigMap allowing one drifted node at a time; changing the NodePool's template drifts every
// node. kpol (a child process) replaces them one at a time; the API server's Eviction API
// refuses the eviction that would break the PDB (429), kpol retries, and the Deployment's pods
// end up bound by kube-scheduler on the replacement nodes.
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
  events,
  nodePool,
  poolState,
  readyPods,
  sampleUntil,
} from './e2e-cluster.js';
import { killStrays, startKpol } from './kpol-process.js';

const cp = sharedControlPlane();
const id = randomBytes(3).toString('hex');
const ns = `kpol-e2e-drift-${id}`;
const pool = `e2e-drift-${id}`;
const REPLICAS = 4;

const pdb = `
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: { name: web, namespace: ${ns} }
spec:
  maxUnavailable: 1
  selector: { matchLabels: { app: web } }
`;

afterAll(async () => {
  killStrays();
  await cleanup(cp, ns, pool);
});

describe('e2e 1: drift replaced one node at a time within the budget, PDB enforced by the Eviction API', () => {
  it('replaces every drifted node, never more than one at a time, and the pods land on the replacements', async () => {
    await driftOneAtATime(cp, ns, pool);
    // 800m CPU each: two pods per m5.large, so two nodes; the PDB lets one pod be away at a time.
    await apply(cp, deployment(ns, 'web', pool, REPLICAS, '800m'));
    await apply(cp, pdb);
    const kpol = await startKpol(cp.kubeconfigPath, ns);
    const read = () => poolState(cp, pool, ns);

    const original = await sampleUntil(
      'every pod Running and Ready on kpol-launched nodes',
      read,
      () => {},
      (s) =>
        readyPods(s, 'web').length === REPLICAS && s.nodes.length >= 2
          ? s.nodes.map((n) => n.metadata.name)
          : undefined,
      90_000,
    );
    const loaded = kpol.logs().find((l) => l.msg === 'started');
    expect(loaded).toBeDefined();

    await apply(cp, nodePool(pool, '2'));
    let maxDisrupting = 0;
    let minReady = REPLICAS;
    const seenDisrupting = new Set<string>();
    const final = await sampleUntil(
      'every original node replaced and every pod Ready on a replacement',
      read,
      (s) => {
        const disrupting = disruptingNodes(s);
        disrupting.forEach((n) => seenDisrupting.add(n));
        const draining = s.nodes.filter(
          (n) =>
            (n.spec.taints ?? []).some((t) => t.key === 'karpenter.sh/disrupted') &&
            s.pods.some((p) => p.spec.nodeName === n.metadata.name && !p.metadata.deletionTimestamp),
        );
        // Never two nodes with pods still to move at once, whatever the budget accounting says.
        expect(draining.length).toBeLessThanOrEqual(1);
        maxDisrupting = Math.max(maxDisrupting, disrupting.length);
        minReady = Math.min(minReady, readyPods(s, 'web').length);
        // The budget is 1 for Drifted: at every observation at most one node is being disrupted.
        expect(
          disrupting.length,
          `disrupting at once: ${describeDisrupting(s, disrupting)} (kpol log ${kpol.logFile})`,
        ).toBeLessThanOrEqual(1);
      },
      (s) => {
        const onOld =
          s.nodes.some((n) => original.includes(n.metadata.name)) ||
          s.nodeClaims.some((nc) => original.includes(nc.status?.nodeName ?? ''));
        const ready = readyPods(s, 'web');
        return !onOld && ready.length === REPLICAS ? s : undefined;
      },
      150_000,
    );

    // Every original node went through disruption, one after the other.
    expect([...seenDisrupting].sort()).toEqual([...original].sort());
    expect(maxDisrupting).toBe(1);
    // The PDB (maxUnavailable 1) held throughout: evictions are the only way pods left.
    expect(minReady).toBeGreaterThanOrEqual(REPLICAS - 1);

    // The replacements carry the new template; the pods run there, bound by kube-scheduler.
    const replacements = new Set(final.nodes.map((n) => n.metadata.name));
    for (const n of final.nodes) expect(n.metadata.labels?.['kpol.dev/rev']).toBe('2');
    const pods = readyPods(final, 'web');
    for (const p of pods) expect(replacements.has(p.spec.nodeName!)).toBe(true);
    const scheduled = await events(cp, 'Scheduled');
    for (const p of pods) {
      const e = scheduled.find((x) => x.involvedObject.name === p.metadata.name && x.involvedObject.namespace === ns);
      expect(e?.reportingComponent ?? e?.source?.component, `Scheduled event of ${p.metadata.name}`).toBe(
        'default-scheduler',
      );
    }

    // The Eviction API refused at least one eviction with 429 (the PDB had no disruption left),
    // kpol retried until it went through, and the draining nodes recorded FailedDraining: the
    // drain's own or the refusal, whichever came first (Karpenter keys it on the node's name).
    const codes = await kpol.metric('karpenter_pods_eviction_requests_total');
    const count = (code: string) => codes.find((c) => c.labels.includes(`code="${code}"`))?.value ?? 0;
    expect(count('429')).toBeGreaterThan(0);
    expect(count('200')).toBeGreaterThanOrEqual(REPLICAS);
    const failed = (await events(cp, 'FailedDraining')).filter((e) => original.includes(e.involvedObject.name));
    expect(failed.length).toBeGreaterThan(0);
    for (const e of failed)
      expect(e.message).toMatch(
        /^Failed to drain node, (\d+ pods are waiting to be evicted|evicting pod violates a PDB)/,
      );

    // Decisions were logged as Drift with a replacement each.
    const drift = kpol.logs().filter((l) => l.msg === 'disruption decision' && l.reason === 'Drifted');
    expect(drift.length).toBe(original.length);
    for (const d of drift) expect(d.decision).toBe('replace');
    expect(await kpol.stop('SIGTERM')).toBe(0);
  }, 300_000);
});
