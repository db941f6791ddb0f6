// SPDX-License-Identifier: Apache-2.0
// A rate budget against the real Karpenter (issue 15): `budget 1 per 2m for Drifted` over a
// NodePool of six Karpenter nodes, every node drifted by a template change. Karpenter's own
// budgets hold only a concurrency cap; kpol lowers the one it writes as Karpenter starts
// disruptions, from the starts it records on the NodePool. Judged from Karpenter's side (its
// Nodes' disrupted taint and deletion): drifts keep starting, never two within two minutes — also
// across a kpol crash and restart in the middle (the record lives in the cluster, not in kpol).
import { afterAll, expect, it } from 'vitest';
import { killStrays } from '../e2e/kpol-process.js';
import { deploymentYaml, disruptionStarted, driftPatch, karpenterCluster, poolYaml, sleep } from './govern-support.js';

const POOL = 'gov-rate';
const NS = 'gov-rate';
const CM = 'gov-rate';
const NODES = 6;
const PER_MS = 2 * 60_000;
const WATCH_MS = 5 * 60_000;

afterAll(async () => {
  killStrays();
  await karpenterCluster().cleanup([POOL], NS, [CM]);
});

it('Karpenter starts at most one drift per two minutes, across a kpol restart', async () => {
  const c = karpenterCluster();
  await c.ensureNamespace(NS);
  await c.apply(poolYaml(POOL, { budgets: [{ nodes: '100%' }] }));
  await c.apply(deploymentYaml({ namespace: NS, name: 'web', pool: POOL, replicas: NODES, spread: 'web' }));
  const original = await c.initializedNodes(POOL, NODES);
  await c.policyConfigMap(
    CM,
    `policy steady for nodepool ${POOL} {
  consolidate never
  budget 100%
  budget 1 per 2m for Drifted
}`,
  );
  let kpol = await c.govern();
  await c.governed(POOL);
  await c.kubectl(['patch', 'nodepool', POOL, '--type', 'merge', '-p', driftPatch()]);

  const started = new Map<string, number>();
  const from = Date.now();
  let restarted = false;
  while (Date.now() < from + WATCH_MS) {
    const now = Date.now();
    const nodes = new Map((await c.nodes(POOL)).map((n) => [n.metadata.name, n]));
    for (const name of original) {
      const node = nodes.get(name);
      if ((!node || disruptionStarted(node)) && !started.has(name)) started.set(name, now);
    }
    if (!restarted && now > from + WATCH_MS / 2) {
      // A crash: nothing is flushed. The new process knows the starts only from the cluster.
      await kpol.stop('SIGKILL');
      kpol = await c.govern();
      restarted = true;
    }
    await sleep(1000);
  }
  await kpol.stop('SIGTERM');

  const starts = [...started.values()].sort((a, b) => a - b);
  const at = (ms: number) => new Date(ms).toISOString();
  const record = (await c.get('nodepool', POOL))?.metadata.annotations?.['kpol.dev/disruption-starts'];
  const context = `starts ${starts.map(at).join(', ')}; record ${record}`;
  // Steady, not stuck: five minutes at one per two minutes is two or three starts.
  expect(starts.length, context).toBeGreaterThanOrEqual(2);
  // Sampled once a second: a start can be seen up to a second late, the one before it up to a second early.
  for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!, context).toBeGreaterThan(PER_MS - 2_000);
  // The record on the NodePool holds Karpenter's starts (a JSON list kpol wrote).
  expect((JSON.parse(record ?? '[]') as unknown[]).length, context).toBeGreaterThanOrEqual(2);
}, 900_000);
