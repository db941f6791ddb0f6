// SPDX-License-Identifier: Apache-2.0
// Everything the reconciler reuses across ticks — node verdicts, whole evaluations, the skipped
// consolidation refresh, deduplicated event batches — must change no decision: a simulated day
// with reuse gives the same timeline (disruptions, samples, blocked counts, events) as the same
// day deriving every verdict at every tick.
import { describe, expect, it } from 'vitest';
import { loadPolicies } from '../../src/core/policy/load.js';
import { simulate } from '../../src/edge/simulate/simulated-run.js';
import { generateCluster } from '../bench/generate.js';

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

describe('reusing verdicts across ticks', () => {
  it('gives the same simulated day as deriving everything at every tick', async () => {
    const loaded = loadPolicies([{ fileName: 'teams.kpol', text: POLICY }]);
    expect(loaded.ok).toBe(true);
    const run = (reuseVerdicts: boolean) =>
      simulate({
        objects: generateCluster({ pools: 3, nodes: 45, pods: 450, replicaSets: true }),
        policies: loaded.policies,
        fromMs: T0,
        forMs: 14 * 3_600_000,
        stepMs: 60_000,
        reuseVerdicts,
        workload: [
          { atMs: 2 * 3_600_000, action: { drift: { nodePool: 'pool-1' } } },
          { atMs: 5 * 3_600_000, action: { scale: { name: 'app-2-k1', namespace: 'team-2', replicas: 3 } } },
          { atMs: 7 * 3_600_000, action: { interrupt: { count: 2 } } },
        ],
      });
    const withReuse = await run(true);
    const without = await run(false);
    const comparable = (t: typeof withReuse) => ({ ...t, summary: { ...t.summary, wallSeconds: 0 } });
    expect(comparable(withReuse)).toEqual(comparable(without));
    // A day with something in it: drift, consolidation and interruptions all acted.
    const reasons = new Set(withReuse.disruptions.map((d) => d.reason));
    expect([...reasons].sort()).toEqual(expect.arrayContaining(['Drifted', 'Underutilized', 'Interrupted']));
  }, 300_000);
});
