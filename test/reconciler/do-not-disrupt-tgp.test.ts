// SPDX-License-Identifier: Apache-2.0
// do-not-disrupt pods and pod disruption windows hold their node (KARPENTER.md#candidates rows 10–11,
// rules/README §3.9), unless a terminationGracePeriod is set: then drift (an eventual method)
// proceeds, and at drain time the pod is force-deleted at exactly T − terminationGracePeriodSeconds,
// where T = NodeClaim deletionTimestamp + TGP is stamped in
// `karpenter.sh/nodeclaim-termination-timestamp` (KARPENTER.md#termination-time).
import { describe, expect, it } from 'vitest';
import type { NodeClaim, Pod } from '../../src/core/cluster/types.js';
import { Scenario, policies, pool, replicaSet } from './scenario.js';

const DND = { 'karpenter.sh/do-not-disrupt': 'true' };
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const podOf = async (s: Scenario, app: string) => (await s.pods()).find((p: Pod) => p.metadata.labels?.app === app)!;
const driftTemplate = (s: Scenario) =>
  s.rt.cluster.patch(
    { kind: 'NodePool', name: 'default' },
    { spec: { template: { metadata: { labels: { rev: '2' } } } } },
  );

describe('do-not-disrupt and pod windows hold a node', () => {
  it(
    'without a termination grace period, drift skips held nodes; a pod window releases its ' + 'node when it opens',
    async () => {
      const s = new Scenario(
        [
          pool('default', ['m5.xlarge']),
          replicaSet('hold', 1, { cpu: '3', annotations: DND }),
          replicaSet('x', 1, { cpu: '3' }),
          replicaSet('free', 1, { cpu: '3' }),
        ],
        policies(
          'policy p for nodepool default {\n  consolidate never\n  budget 1 for Drifted\n  pods ' +
            'where app = "x" disruptable only during "0 2 * * sat" for 6h\n}\n',
        ),
      );
      expect(await s.until(async () => (await s.runningPods()).length === 3, 15 * 60_000)).toBe(true);
      const holdPod = await podOf(s, 'hold');
      const xPod = await podOf(s, 'x');
      const holdNode = holdPod.spec.nodeName!;
      const xNode = xPod.spec.nodeName!;
      const freeNode = (await podOf(s, 'free')).spec.nodeName!;
      await driftTemplate(s);

      // The free node is replaced; the two held nodes are not, for the rest of the week.
      expect(
        await s.until(
          async () =>
            !(await s.nodes()).some((n) => n.metadata.name === freeNode) && (await s.runningPods()).length === 3,
          30 * 60_000,
        ),
      ).toBe(true);
      const ev = s.history.at(-1)!.disruption.evaluation;
      expect(ev.nodes[holdNode].reasons).toEqual([]);
      expect(ev.nodes[holdNode].blocked.find((b) => b.code === 'DoNotDisruptPod')?.message).toBe(
        `pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/${holdPod.metadata.name})`,
      );
      expect(ev.nodes[xNode].reasons).toEqual([]);
      expect(ev.nodes[xNode].blocked.find((b) => b.code === 'PodDisruptionWindow')?.message).toBe(
        `pod may not be disrupted now (Pod=default/${xPod.metadata.name}, Window=scenario.kpol:4)`,
      );

      // Monday 12:00 → Saturday 01:50 in 5-minute steps: nothing else is disrupted.
      const saturday2am = Date.parse('2026-11-28T02:00:00Z');
      await s.until(() => s.clock.now() >= saturday2am - 10 * 60_000, 6 * 24 * 3600_000, 5 * 60_000);
      const before = s.history.map((h) => h.disruption.started).filter(Boolean);
      expect(before.map((c) => c!.candidates[0].node)).toEqual([freeNode]);
      expect((await s.nodes()).map((n) => n.metadata.name)).toEqual(expect.arrayContaining([holdNode, xNode]));

      // The window opens at 02:00 UTC: the x node drifts then (and not before); hold stays.
      const startedAt: number[] = [];
      expect(
        await s.until(
          async () => !(await s.nodes()).some((n) => n.metadata.name === xNode) && (await s.runningPods()).length === 3,
          60 * 60_000,
          10_000,
          () => {
            const c = s.history.at(-1)!.disruption.started;
            if (c) {
              expect(c.candidates[0].node).toBe(xNode);
              startedAt.push(s.clock.now() - 10_000);
            }
          },
        ),
      ).toBe(true);
      expect(startedAt).toEqual([saturday2am]);
      expect((await s.nodes()).some((n) => n.metadata.name === holdNode)).toBe(true);
      expect((await podOf(s, 'hold')).metadata.uid).toBe(holdPod.metadata.uid);
    },
  );
});

describe('termination grace lifts the hold for drift, and force-deletes at T − terminationGracePeriodSeconds', () => {
  it(
    'a do-not-disrupt pod is deleted at the first instant after T − 30 s, granted the seconds ' + 'left until T',
    async () => {
      const s = new Scenario(
        [pool('default', ['m5.xlarge']), replicaSet('hold', 1, { cpu: '3', annotations: DND })],
        policies(
          'policy p for nodepool default {\n  consolidate never\n  budget 1 for Drifted\n  termination grace 10m\n}\n',
        ),
      );
      expect(await s.until(async () => (await s.runningPods()).length === 1, 15 * 60_000)).toBe(true);
      const pod = await podOf(s, 'hold');
      const [nc0] = await s.nodeClaims();
      const ncName = nc0.metadata.name;
      const node = nc0.status!.nodeName!;
      await driftTemplate(s);

      // Drift acts on the held node (tgpSet): the do-not-disrupt pod is not re-placed, so it is a delete.
      expect(await s.until(() => s.history.at(-1)!.disruption.started !== undefined, 10 * 60_000)).toBe(true);
      const cmd = s.history.at(-1)!.disruption.started!;
      expect(cmd.method).toBe('Drift');
      expect(cmd.candidates.map((c) => c.node)).toEqual([node]);
      expect(cmd.replacements).toEqual([]);

      // The termination timestamp: deletionTimestamp + 600 s.
      expect(
        await s.until(
          async () =>
            (await s.rt.cluster.get<NodeClaim>({ kind: 'NodeClaim', name: ncName }))?.metadata.annotations?.[
              'karpenter.sh/nodeclaim-termination-timestamp'
            ] !== undefined,
          5 * 60_000,
        ),
      ).toBe(true);
      const nc = (await s.rt.cluster.get<NodeClaim>({ kind: 'NodeClaim', name: ncName }))!;
      const T = Date.parse(nc.metadata.annotations!['karpenter.sh/nodeclaim-termination-timestamp']);
      expect(T).toBe(Date.parse(nc.metadata.deletionTimestamp!) + 600_000);
      expect(
        s.rt.events
          .list({ reason: 'TerminationGracePeriodExpiring', kind: 'NodeClaim', name: ncName })
          .map((e) => e.message),
      ).toEqual([`All pods will be deleted by ${iso(T)}`]);

      // Until T − 30 s the pod is waited for (never evicted: do-not-disrupt), the node drains.
      await s.until(() => s.clock.now() >= T - 60_000, 15 * 60_000);
      const live = async () =>
        (await s.rt.cluster.get<Pod>({ kind: 'Pod', name: pod.metadata.name, namespace: 'default' }))!;
      expect((await live()).metadata.deletionTimestamp).toBeUndefined();
      expect(s.rt.events.list({ reason: 'Evicted', name: pod.metadata.name })).toEqual([]);
      expect(
        s.rt.events
          .list({ reason: 'FailedDraining', kind: 'Node', name: node })
          .some((e) => e.message === 'Failed to drain node, 1 pods are waiting to be evicted'),
      ).toBe(true);

      // 1-second steps around the deadline: still there at T − 30 s (strict), deleted at T − 29 s.
      while (s.clock.now() <= T - 30_000) {
        await s.tick(1_000);
        if (s.clock.now() - 1_000 <= T - 30_000)
          expect((await live()).metadata.deletionTimestamp, `at ${iso(s.clock.now() - 1_000)}`).toBeUndefined();
      }
      expect(s.clock.now()).toBe(T - 29_000);
      await s.tick(1_000); // the tick at T − 29 s
      const deleted = await live();
      expect(deleted.metadata.deletionTimestamp).toBe(iso(T)); // granted trunc(T − now) = 29 s
      const [disrupted] = s.rt.events.list({ reason: 'Disrupted', name: pod.metadata.name });
      expect(disrupted.at).toBe(T - 29_000);
      expect(disrupted.message).toBe(
        `Deleting the pod to accommodate the ` +
          `terminationTime ${new Date(T).toISOString().replace('T', ' ').replace('.000Z', '')} +0000 ` +
          `UTC of the node. ` +
          'The pod was granted 29 seconds of grace-period of its 30 terminationGracePeriodSeconds. ' +
          'This bypasses the PDB of the pod and the do-not-disrupt annotation.',
      );

      // The node then finishes terminating, its instance is gone, and the pod runs again elsewhere.
      expect(
        await s.until(
          async () =>
            (await s.nodeClaims()).every((x) => x.metadata.name !== ncName) && (await s.runningPods()).length === 1,
          30 * 60_000,
        ),
      ).toBe(true);
      expect(s.rt.cloud.orphans(await s.nodeClaims())).toEqual([]);
      expect((await s.runningPods())[0].spec.nodeName).not.toBe(node);
    },
  );

  it('a pod outside its window does not hold the node when a termination grace period is set', async () => {
    const s = new Scenario(
      [pool('default', ['m5.xlarge']), replicaSet('x', 1, { cpu: '3' })],
      policies(
        'policy p for nodepool default {\n  consolidate never\n  budget 1 for Drifted\n  ' +
          'termination grace 10m\n  pods where app = "x" disruptable only during "0 2 * * sat" ' +
          'for 6h\n}\n',
      ),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 1, 15 * 60_000)).toBe(true);
    const [nc0] = await s.nodeClaims();
    await driftTemplate(s);
    expect(
      await s.until(
        async () =>
          (await s.nodeClaims()).every((x) => x.metadata.name !== nc0.metadata.name) &&
          (await s.runningPods()).length === 1,
        30 * 60_000,
      ),
    ).toBe(true);
    const drifts = s.history.map((h) => h.disruption.started).filter(Boolean);
    expect(drifts.map((c) => [c!.method, c!.candidates[0].node])).toEqual([['Drift', nc0.status!.nodeName]]);
    // Monday, far outside the Saturday window.
    expect(new Date(s.clock.now()).getUTCDay()).toBe(1);
  });
});
