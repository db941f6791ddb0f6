// SPDX-License-Identifier: Apache-2.0
// Issue 15: `kpol pause` on the real control plane. While a drift replaces nodes one at a time,
// a pause of Drifted on the pool stops the next replacement from starting (the one draining
// finishes); the pause survives a SIGKILL and restart of `kpol run` because it is a ConfigMap;
// and it ends on time by the clock alone — the next node starts once `until` has passed, with
// the ConfigMap still there.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/run-cli.js';
import { sharedControlPlane } from '../control-plane/inject.js';
import { eventually } from '../control-plane/eventually.js';
import { kubectlOk } from '../control-plane/kubectl.js';
import {
  apply,
  cleanup,
  deployment,
  driftOneAtATime,
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
const ns = `kpol-e2e-pause-${id}`;
const pool = `e2e-pause-${id}`;
const REPLICAS = 4;
/** Long enough for a restart inside it, short enough for CI. */
const PAUSE_SECONDS = 75;

afterAll(async () => {
  killStrays();
  await cleanup(cp, ns, pool);
});

/** The real CLI in this process (the same code path as the binary, without tsx's start-up). */
const kpol = runCli;

/** Nodes of the original machines that are being disrupted (tainted, or their NodeClaim or Node deleting). */
const disruptedOriginals = (s: PoolState, original: readonly string[]): string[] => {
  const claimOf = new Map(s.nodeClaims.map((nc) => [nc.status?.nodeName, nc]));
  return original.filter((name) => {
    const n = s.nodes.find((x) => x.metadata.name === name);
    if (!n) return true; // gone: it was disrupted
    return (
      disruptingNodes(s).includes(name) ||
      Boolean(claimOf.get(name)?.metadata.deletionTimestamp) ||
      Boolean(n.metadata.deletionTimestamp)
    );
  });
};

describe('e2e: kpol pause and resume on the real control plane', () => {
  it('stops the next disruption within a tick, survives a restart, and ends on time', async () => {
    await driftOneAtATime(cp, ns, pool);
    // Pods take 8 s to leave once evicted, so the first drain is still going when the pause lands.
    await apply(cp, deployment(ns, 'web', pool, REPLICAS, '800m', { graceSeconds: 8 }));
    const first = await startKpol(cp.kubeconfigPath, ns);
    const read = () => poolState(cp, pool, ns);
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

    // Drift both nodes; with budget 1 the first one starts.
    await apply(cp, nodePool(pool, '2'));
    const [victim] = await sampleUntil(
      'the first drifted node disrupted',
      read,
      () => {},
      (s) => {
        const d = disruptedOriginals(s, original);
        return d.length ? d : undefined;
      },
      90_000,
    );
    const other = original.find((n) => n !== victim)!;

    const paused = await kpol(
      'pause',
      '--reason',
      'Drifted',
      '--nodepool',
      pool,
      '--for',
      `${PAUSE_SECONDS}s`,
      '--note',
      'e2e rollout',
      '--namespace',
      ns,
      '--kubeconfig',
      cp.kubeconfigPath,
    );
    const pausedAt = Date.now();
    expect(paused.stderr).toBe('');
    expect(paused.code).toBe(0);
    const untilText = /until (\S+) \(configmap\/(\S+)\/(\S+) created\)/.exec(paused.stdout);
    expect(untilText, paused.stdout).not.toBeNull();
    const untilMs = Date.parse(untilText![1]!);
    const configMap = untilText![3]!;
    // One tick (1 s) plus the informer's delivery: from then on nothing new may start.
    const inForceAt = Date.now() + 3_000;
    const noNewDisruption = (s: PoolState) => {
      if (Date.now() < inForceAt || Date.now() >= untilMs) return;
      expect(disruptedOriginals(s, original), 'a node disrupted while paused').not.toContain(other);
    };

    // The status page names the pause.
    const shown = async (url: string) => {
      const st = (await (await fetch(`${url}/api/status`)).json()) as {
        nodePools: Record<string, { paused?: string[]; allowed: Record<string, number | null> }>;
      };
      return st.nodePools[pool];
    };
    const firstView = await eventually('the pause on the status page', async () => {
      const v = await shown(first.url);
      return v?.paused?.length ? v : undefined;
    });
    // In force within a tick or so (1 s ticks; the informer's delivery and the status page's read on a busy machine).
    expect(Date.now() - pausedAt).toBeLessThan(5_000);
    expect(firstView?.paused?.[0]).toMatch(/^Drifted paused by kpol pause until .*: e2e rollout \[ConfigMap\//);
    expect(firstView?.allowed.Drifted).toBe(0);

    // The first drain finishes while paused (the budget no longer holds the other node: the pause does);
    // the restart comes then, or 35 s before the end at the latest.
    const drained = await sampleUntil(
      'the first node replaced',
      read,
      noNewDisruption,
      (s) => {
        if (!s.nodes.some((n) => n.metadata.name === victim) && Date.now() > inForceAt) return true;
        return Date.now() > untilMs - 35_000 ? false : undefined;
      },
      PAUSE_SECONDS * 1000,
    );
    expect(drained, 'the first drain should finish well inside the pause').toBe(true);
    // Watch the pool a while with the budget free: only the pause holds the other node now.
    await sampleUntil('a few ticks with the budget free', read, noNewDisruption, () => undefined, 5_000).catch(
      (e: Error) => {
        if (!/timed out/.test(e.message)) throw e;
      },
    );

    // Kill the controller mid-pause and start another: the pause is in the cluster.
    expect(await first.stop('SIGKILL')).toBeNull();
    const second = await startKpol(cp.kubeconfigPath, ns);
    const secondView = await eventually('the restarted controller to show the pause', async () => {
      const v = await shown(second.url);
      return v?.paused?.length ? v : undefined;
    });
    expect(secondView.paused![0]).toMatch(/e2e rollout/);
    expect(Date.now(), 'the restart must land inside the pause for this test to mean anything').toBeLessThan(untilMs);

    // Nothing starts before the end; the other node starts soon after it, by the clock alone.
    const startedAt = await sampleUntil(
      'the other drifted node disrupted after the pause ends',
      read,
      noNewDisruption,
      (s) => (disruptedOriginals(s, original).includes(other) ? Date.now() : undefined),
      untilMs - Date.now() + 60_000,
    );
    expect(startedAt).toBeGreaterThanOrEqual(untilMs);
    // "On time": within a few ticks of the end (1 s ticks; a replacement launch is 2 s).
    expect(startedAt - untilMs).toBeLessThan(15_000);
    const cm = await kubectlOk(cp.kubeconfigPath, ['-n', ns, 'get', 'configmap', configMap, '-o', 'name']);
    expect(cm.trim()).toBe(`configmap/${configMap}`);
    // The status page shows the last tick that completed (a restarted standalone process may lose
    // one tick to a replacement name its predecessor used): the next one no longer lists the pause.
    const afterView = await eventually('the status page without the pause', async () => {
      const v = await shown(second.url);
      return v?.paused === undefined ? v : undefined;
    });
    expect(afterView).toBeDefined();

    // `kpol resume` removes the (expired) pause.
    const resumed = await kpol(
      'resume',
      '--reason',
      'Drifted',
      '--nodepool',
      pool,
      '--namespace',
      ns,
      '--kubeconfig',
      cp.kubeconfigPath,
    );
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(`resumed Drifted on NodePool ${pool}`);
    expect(await second.stop('SIGTERM')).toBe(0);
  }, 300_000);
});
