// SPDX-License-Identifier: Apache-2.0
// Issue 4, end to end 3: two drifted nodes, one running a pod of a workload that may only be
// disrupted in a window (`pods where app = "batch" disruptable only during …`, opening about a
// minute into the test), one running a `karpenter.sh/do-not-disrupt` pod. kpol holds the first
// until the window opens and then replaces it; the second stays held inside the window too,
// until the policy gains a termination grace: then it is drained and its do-not-disrupt pod is
// deleted at the grace deadline, bypassing the annotation.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../control-plane/eventually.js';
import { sharedControlPlane } from '../control-plane/inject.js';
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
const ns = `kpol-e2e-hold-${id}`;
const pool = `e2e-hold-${id}`;
const GRACE_S = 15;
const HASH = 'karpenter.sh/nodepool-hash';

afterAll(async () => {
  killStrays();
  await cleanup(cp, ns, pool);
});

const policy = (windowStart: Date | undefined, grace: boolean) =>
  policyConfigMap(
    ns,
    'hold-policy',
    `
  policy hold for nodepool ${pool} {
    consolidate when empty after 10m
    budget 100% for Drifted${grace ? `\n    termination grace ${GRACE_S}s` : ''}${
      windowStart
        ? `
    pods where app = "batch" disruptable only during \
"${windowStart.getUTCMinutes()} ${windowStart.getUTCHours()} * * *" for 10m`
        : ''
    }
  }`,
  );

describe('e2e 3: a pod window and do-not-disrupt hold drifted nodes; termination grace forces past', () => {
  it(
    'replaces the window-held node only once its window opens, and the do-not-disrupt one only ' +
      'under a termination grace',
    async () => {
      await prepare(cp, ns);
      await apply(cp, nodePool(pool, '1'));
      await apply(cp, policy(undefined, false));
      // 1500m each: one pod per m5.large.
      await apply(cp, deployment(ns, 'batch', pool, 1, '1500m'));
      await apply(
        cp,
        deployment(ns, 'pinned', pool, 1, '1500m', { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
      );
      const kpol = await startKpol(cp.kubeconfigPath, ns);
      const read = () => poolState(cp, pool, ns);
      const start = await sampleUntil(
        'both pods Ready on their own nodes',
        read,
        () => {},
        (s) => {
          const pods = [...readyPods(s, 'batch'), ...readyPods(s, 'pinned')];
          return pods.length === 2 && s.nodes.length === 2 && new Set(pods.map((p) => p.spec.nodeName)).size === 2
            ? s
            : undefined;
        },
        90_000,
      );
      const batchNode = readyPods(start, 'batch')[0].spec.nodeName!;
      const pinnedNode = readyPods(start, 'pinned')[0].spec.nodeName!;

      // The window opens at the first whole minute at least 40 s away (cron has minute resolution);
      // the drift starts once kpol enforces it (the ConfigMap is hot-reloaded).
      const windowStart = new Date(Math.ceil((Date.now() + 40_000) / 60_000) * 60_000);
      await apply(cp, policy(windowStart, false));
      await eventually('kpol to hold the batch pod by its window', async () => {
        const st = (await (await fetch(`${kpol.url}/api/status`)).json()) as {
          nodes: { name: string; blocked: { code: string }[] }[];
        };
        return st.nodes.find((n) => n.name === batchNode)?.blocked.some((b) => b.code === 'PodDisruptionWindow')
          ? true
          : undefined;
      });
      await apply(cp, nodePool(pool, '2'));
      // Before the window: kpol has seen the drift (it rehashes the NodePool; the NodeClaims keep
      // the old hash) and holds both nodes, saying why on its status page.
      const why = await (async () => {
        for (;;) {
          const np = (await cp.api.get(`/apis/karpenter.sh/v1/nodepools/${pool}`)).body;
          const claims = (await read()).nodeClaims;
          const hash = np.metadata.annotations?.[HASH];
          const drifted =
            claims.length === 2 &&
            claims.every((nc) => nc.metadata.annotations?.[HASH] && nc.metadata.annotations[HASH] !== hash);
          const st = (await (await fetch(`${kpol.url}/api/status`)).json()) as {
            nodes: { name: string; blocked: { code: string; message: string }[] }[];
          };
          const blockedOf = (node: string) => st.nodes.find((n) => n.name === node)?.blocked ?? [];
          if (drifted && blockedOf(batchNode).length && blockedOf(pinnedNode).length)
            return { batch: blockedOf(batchNode), pinned: blockedOf(pinnedNode) };
          if (Date.now() > windowStart.getTime() - 2000)
            throw new Error(`kpol did not see the drift before the window opened: ${JSON.stringify(st.nodes)}`);
          await new Promise((r) => setTimeout(r, 500));
        }
      })();
      expect(Date.now()).toBeLessThan(windowStart.getTime());
      expect(why.batch.map((b) => b.code)).toContain('PodDisruptionWindow');
      expect(why.pinned.map((b) => b.code)).toContain('DoNotDisruptPod');

      let pinnedDisrupted = false;
      const firstSeen = await sampleUntil(
        'the window-held node to be disrupted',
        read,
        (s) => {
          if (disruptingNodes(s).includes(pinnedNode)) pinnedDisrupted = true;
        },
        (s) =>
          disruptingNodes(s).includes(batchNode) || !s.nodes.some((n) => n.metadata.name === batchNode)
            ? Date.now()
            : undefined,
        150_000,
      );
      // Not before the window opened (the API server's and this machine's clocks are the same).
      expect(firstSeen).toBeGreaterThanOrEqual(windowStart.getTime());
      // kpol logs the command as it starts it (taint first, so the line may trail the taint a little).
      const started = await eventually('kpol to log the command', async () =>
        kpol.logs().find((l) => l.msg === 'disrupting node(s)' && (l.nodes as string[]).includes(batchNode)),
      );
      expect(started).toMatchObject({ method: 'Drift', reason: 'Drifted', decision: 'replace' });
      expect(Date.parse(started.time as string)).toBeGreaterThanOrEqual(windowStart.getTime());

      await sampleUntil(
        'the batch pod Ready on a replacement',
        read,
        (s) => {
          if (disruptingNodes(s).includes(pinnedNode)) pinnedDisrupted = true;
        },
        (s) => {
          const pods = readyPods(s, 'batch');
          return pods.length === 1 &&
            pods[0].spec.nodeName !== batchNode &&
            !s.nodes.some((n) => n.metadata.name === batchNode)
            ? s
            : undefined;
        },
        90_000,
      );
      // The window is open, but do-not-disrupt still holds the other node: watch it a few seconds more.
      const replacedAt = Date.now();
      await sampleUntil(
        'a few seconds with the do-not-disrupt node held',
        read,
        (s) => {
          if (disruptingNodes(s).includes(pinnedNode)) pinnedDisrupted = true;
        },
        () => (Date.now() - replacedAt > 5000 ? true : undefined),
        30_000,
      );
      expect(pinnedDisrupted).toBe(false);
      expect(readyPods(await read(), 'pinned')[0]?.spec.nodeName).toBe(pinnedNode);

      // A termination grace makes drift (an eventual method) skip do-not-disrupt; the pod is
      // deleted at the grace deadline: T = NodeClaim deletion + grace, minus the pod's own 1 s.
      await apply(cp, policy(windowStart, true));
      let podDeletedAt: number | undefined;
      let claimDeletedAt: number | undefined;
      const done = await sampleUntil(
        'the do-not-disrupt pod forced off and Ready again on a new node',
        read,
        (s) => {
          const claim = s.nodeClaims.find((nc) => nc.status?.nodeName === pinnedNode);
          if (claim?.metadata.deletionTimestamp) claimDeletedAt ??= Date.parse(claim.metadata.deletionTimestamp);
          const pod = s.pods.find(
            (p) =>
              p.metadata.labels?.app === 'pinned' && p.spec.nodeName === pinnedNode && p.metadata.deletionTimestamp,
          );
          if (pod) podDeletedAt ??= Date.parse(pod.metadata.deletionTimestamp!);
        },
        (s) => {
          const pods = readyPods(s, 'pinned');
          return pods.length === 1 &&
            pods[0].spec.nodeName !== pinnedNode &&
            !s.nodes.some((n) => n.metadata.name === pinnedNode)
            ? s
            : undefined;
        },
        120_000,
      );
      expect(claimDeletedAt).toBeDefined();
      expect(podDeletedAt).toBeDefined();
      // deletionTimestamp = force-delete time + its 1 s grace; timestamps are whole seconds.
      const deleteAfterClaimS = (podDeletedAt! - claimDeletedAt!) / 1000;
      expect(deleteAfterClaimS).toBeGreaterThanOrEqual(GRACE_S - 2);
      expect(deleteAfterClaimS).toBeLessThanOrEqual(GRACE_S + 5);
      const disrupted = (await events(cp, 'Disrupted')).filter(
        (e) => e.involvedObject.namespace === ns && e.involvedObject.name.startsWith('pinned-'),
      );
      expect(
        disrupted.some((e) => e.message.includes('This bypasses the PDB of the pod and the do-not-disrupt annotation')),
      ).toBe(true);
      for (const n of done.nodes) expect(n.metadata.labels?.['kpol.dev/rev']).toBe('2');
      expect(await kpol.stop('SIGTERM')).toBe(0);
    },
    300_000,
  );
});
