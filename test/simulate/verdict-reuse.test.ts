// SPDX-License-Identifier: Apache-2.0
// Everything the reconciler reuses across ticks — node verdicts, whole evaluations, the skipped
// consolidation refresh, deduplicated event batches — and everything the scheduling simulations
// keep across indexes and ticks (Runtime.incrementalScheduling: each machine's simulated node
// and sums, prepared pools, one pass shared by the provisioner and the disruption methods, a
// machine's reschedulable pods), and what the simulated world's controllers skip
// (Runtime.incrementalControllers: the kubelet pass reads only changed pods, those on changed
// Nodes and terminating ones; the heartbeat runs only when a Node or the cloud changed; a drain
// reads its pods from the agent's index), and the reconciler's scans that read only what changed
// (Runtime.incrementalScans) must change no decision: a simulated day with reuse gives the
// same timeline (disruptions, samples, blocked counts, events) as the same day deriving
// everything at every tick.
import { describe, expect, it } from 'vitest';
import { loadPolicies } from '../../src/core/policy/load.js';
import { simulate } from '../../src/edge/simulate/simulated-run.js';
import type { WorkloadEvent } from '../../src/edge/simulate/workload.js';
import { generateCluster } from '../bench/generate.js';
import { seededRandom } from '../support/seeded-random.js';

const T0 = Date.parse('2026-11-23T22:00:00Z'); // a Monday evening in UTC

const POLICY = `policy teams for nodepool pool-0, pool-1 {
  timezone "Europe/Berlin"
  consolidate when empty or underutilized after 10m
  budget 20%
  budget 0 for Underutilized during "0 1 * * *" for 2h
  allow 2 Drifted only during "30 2 * * *" for 3h
  freeze Drifted from "2026-11-24 03:10" to "2026-11-24 03:40"
  pods where app = "app-3" disruptable only during "0 4 * * *" for 1h
  window zone-a blocks Underutilized on nodes where topology.kubernetes.io/zone in (us-west-2a) during "0 6 * \
* *" for 90m
}
`;

/** Other policies the seeded days run under: Balanced scoring, emptiness only, and none (Karpenter's defaults). */
const POLICIES = [
  `policy balanced for nodepool pool-0, pool-1, pool-2 {
  consolidate when balanced after 5m
  budget 30%
}
`,
  `policy empty-only for nodepool pool-1 {
  consolidate when empty after 2m
  budget 2
}
`,
  '',
];

/** Scale-ups and -downs of random ReplicaSets, a drifted pool and interruptions, at random minutes. */
function seededWorkload(seed: number, pools: number, podsPerNode: number, hours: number): WorkloadEvent[] {
  const r = seededRandom(seed);
  const pick = (n: number) => Math.floor(r() * n);
  const at = () => (1 + pick(hours * 60 - 60)) * 60_000;
  const events: WorkloadEvent[] = [];
  for (let i = 0; i < 6; i++) {
    const p = pick(pools);
    const k = pick(podsPerNode);
    events.push({
      atMs: at(),
      action: { scale: { name: `app-${p}-k${k}`, namespace: `team-${p % 10}`, replicas: pick(12) } },
    });
  }
  events.push({ atMs: at(), action: { drift: { nodePool: `pool-${pick(pools)}` } } });
  events.push({ atMs: at(), action: { interrupt: { count: 1 + pick(2) } } });
  return events.sort((a, b) => a.atMs - b.atMs);
}

interface Case {
  policy: string;
  pools: number;
  nodes: number;
  hours: number;
  workload: WorkloadEvent[];
}

async function compare(c: Case) {
  const loaded = loadPolicies(c.policy ? [{ fileName: 'p.kpol', text: c.policy }] : []);
  expect(loaded.ok).toBe(true);
  const run = (reuse: boolean) =>
    simulate({
      objects: generateCluster({ pools: c.pools, nodes: c.nodes, pods: c.nodes * 10, replicaSets: true }),
      policies: loaded.policies,
      fromMs: T0,
      forMs: c.hours * 3_600_000,
      stepMs: 60_000,
      reuseVerdicts: reuse,
      incrementalScheduling: reuse,
      incrementalControllers: reuse,
      // The reconciler's scans too (Runtime.incrementalScans: the clean-up's taint scan, expiration's
      // due instants, the verdict digest followed from the last one, DisruptionBlocked and
      // Unconsolidatable events per changed node, termination's kept names).
      incrementalScans: reuse,
      workload: c.workload,
    });
  const withReuse = await run(true);
  const without = await run(false);
  const comparable = (t: typeof withReuse) => ({ ...t, summary: { ...t.summary, wallSeconds: 0 } });
  expect(comparable(withReuse)).toEqual(comparable(without));
  return withReuse;
}

describe('reusing verdicts and scheduling state across ticks', () => {
  it('gives the same simulated day as deriving everything at every tick', async () => {
    const timeline = await compare({
      policy: POLICY,
      pools: 3,
      nodes: 45,
      hours: 14,
      workload: [
        { atMs: 2 * 3_600_000, action: { drift: { nodePool: 'pool-1' } } },
        { atMs: 5 * 3_600_000, action: { scale: { name: 'app-2-k1', namespace: 'team-2', replicas: 3 } } },
        { atMs: 7 * 3_600_000, action: { interrupt: { count: 2 } } },
      ],
    });
    // A day with something in it: drift, consolidation and interruptions all acted.
    const reasons = new Set(timeline.disruptions.map((d) => d.reason));
    expect([...reasons].sort()).toEqual(expect.arrayContaining(['Drifted', 'Underutilized', 'Interrupted']));
  }, 300_000);

  // Seeded days: other policies, cluster shapes and random workloads (scaling up and down, drift, interruptions).
  it.each([
    [1, 0],
    [2, 1],
    [3, 2],
  ])(
    'gives the same seeded day (seed %i, policy %i) as deriving everything at every tick',
    async (seed, policy) => {
      const pools = 3;
      const nodes = 24 + 6 * seed;
      const timeline = await compare({
        policy: POLICIES[policy],
        pools,
        nodes,
        hours: 8,
        workload: seededWorkload(seed, pools, 10, 8),
      });
      // Each day provisions and disrupts: the shared and kept scheduling state is exercised.
      const decisions = new Set(timeline.disruptions.map((d) => `${d.reason} ${d.decision}`));
      expect([...decisions]).toEqual(expect.arrayContaining(['Underutilized delete', 'Underutilized replace']));
    },
    300_000,
  );
});
