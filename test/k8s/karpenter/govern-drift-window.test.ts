// SPDX-License-Identifier: Apache-2.0
// Done-when 1 of the govern-mode issue: a policy `allow 1 Drifted only during <window> in <zone>`
// over a NodePool of eight Karpenter nodes, every node drifted by a template change. Judged only
// from Karpenter's side (its Nodes' disrupted taint and deletion, its NodeClaims): none replaced
// before the window opens, at most one at a time inside it, none started after it closes.
import { afterAll, expect, it } from 'vitest';
import { killStrays } from '../e2e/kpol-process.js';
import {
  cronAt,
  deploymentYaml,
  disruptionStarted,
  karpenterCluster,
  minuteAhead,
  poolYaml,
  sleep,
} from './govern-support.js';

const POOL = 'gov-drift';
const NS = 'gov-drift';
const CM = 'gov-drift';
const ZONE = 'Asia/Kolkata'; // UTC+05:30: a half-hour offset, so a UTC reading of the cron would be off
const WINDOW_MIN = 1;
// Karpenter on KWOK replaces a drifted node about every 11 s here: eight nodes outlast a one-minute window.
const NODES = 8;

afterAll(async () => {
  killStrays();
  await karpenterCluster().cleanup([POOL], NS, [CM]);
});

it('Karpenter replaces drifted nodes only inside the policy window, one at a time', async () => {
  const c = karpenterCluster();
  await c.ensureNamespace(NS);
  await c.apply(poolYaml(POOL, { budgets: [{ nodes: '100%' }] }));
  await c.apply(deploymentYaml({ namespace: NS, name: 'web', pool: POOL, replicas: NODES, spread: 'web' }));
  const original = await c.initializedNodes(POOL, NODES);

  const opens = minuteAhead(80_000).getTime();
  const closes = opens + WINDOW_MIN * 60_000;
  await c.policyConfigMap(
    CM,
    `policy drift-window for nodepool ${POOL} {
  allow 1 Drifted only during "${cronAt(new Date(opens), ZONE)}" for ${WINDOW_MIN}m in "${ZONE}"
}`,
  );
  const kpol = await c.govern();
  await c.governed(POOL);
  await c.driftAll(POOL, NODES);

  const started = new Map<string, number>();
  let most = 0;
  while (Date.now() < closes + 60_000) {
    const now = Date.now();
    const nodes = new Map((await c.nodes(POOL)).map((n) => [n.metadata.name, n]));
    const claims = await c.nodeClaims(POOL);
    const terminating = new Set(
      claims
        .filter((nc) => nc.status?.conditions?.some((x) => x.type === 'InstanceTerminating' && x.status === 'True'))
        .map((nc) => (nc.status as { nodeName?: string }).nodeName),
    );
    let inFlight = 0;
    for (const name of original) {
      const node = nodes.get(name);
      if ((!node || disruptionStarted(node)) && !started.has(name)) started.set(name, now);
      // Karpenter stops counting a node against the budget once its instance is terminating.
      if (node && disruptionStarted(node) && !terminating.has(name)) inFlight++;
    }
    most = Math.max(most, inFlight);
    await sleep(1000);
  }
  await kpol.stop('SIGTERM');

  const starts = [...started.values()].sort((a, b) => a - b);
  const at = (ms: number) => new Date(ms).toISOString();
  const context = `window [${at(opens)}, ${at(closes)}), starts ${starts.map(at).join(', ')}`;
  expect(starts.length, context).toBeGreaterThan(0); // the window did open for Karpenter
  for (const s of starts) {
    expect(s, context).toBeGreaterThanOrEqual(opens);
    // Sampled once a second; a start in the last second of the window is seen just after it.
    expect(s, context).toBeLessThan(closes + 2_000);
  }
  expect(most, context).toBeLessThanOrEqual(1);
  // The nodes not replaced in time stay, still drifted, after the window closed.
  expect(starts.length, context).toBeLessThan(NODES);
}, 900_000);
