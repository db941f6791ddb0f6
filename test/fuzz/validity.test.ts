// SPDX-License-Identifier: Apache-2.0
// The validity contract (issue 13): whatever `kpol check` accepts evaluates. Generated policies
// with extreme but valid values (the longest durations, int32 counts, 0 and 100%, every IANA
// zone, schedules at Feb 29 and a year's last minute, freezes at years 0000 and 9999) that check
// accepts are compiled and evaluated over a small generated cluster at instants across the
// supported range, 0000-01-01T00:00:00Z … 9999-12-31T23:59:59.999Z: nothing throws, no pool
// fails to evaluate, every node gets a decision. Fixed seed, a bounded number of runs.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadPolicies } from '../../src/core/policy/load.js';
import { simulationObjects } from '../../src/edge/simulate/cluster-objects.js';
import { simulate } from '../../src/edge/simulate/simulated-run.js';
import { instantArb, MAX_INSTANT, MIN_INSTANT, policyFileArb } from './policy-arbitraries.js';
import { buildCluster, clusterArb, runPolicy, type ClusterSpec } from './pipeline.js';

const SEED = Number(process.env.KPOL_FUZZ_SEED ?? 1313);
const RUNS = Number(process.env.KPOL_FUZZ_RUNS ?? 250);

// The probe's reproducers (issue 13), tried first on every run: each is either rejected by check
// or evaluates. Without the checker's bounds they are accepted and fail.
const REPRODUCERS = [
  'consolidate after 100000000d',
  'expire after 100000000d gracefully\n  budget 1 for Expired',
  'termination grace 9223372037s',
  'budget 0 during "0 0 29 2 *" for 2562048h in "Pacific/Kiritimati"',
  'budget 2147483648',
  'budget 5 per 106751d',
  'budget 1001 per 7d',
  'allow 9007199254740991 only during "@yearly" for 1m',
  'freeze from "9999-12-31T23:59:59-99:99" to "9999-12-31T23:59:59Z"',
];

describe('validity contract', () => {
  it('every policy check accepts evaluates at any supported instant', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(
        policyFileArb,
        clusterArb,
        fc.array(instantArb, { minLength: 1, maxLength: 4 }),
        async (text, cluster, instants) => {
          const outcome = await runPolicy(text, buildCluster(cluster), instants);
          if (outcome.accepted) accepted++;
          expect(outcome.problems).toEqual([]);
        },
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true, examples: reproducerExamples() },
    );
    // The generator is for valid policies: most of them must reach evaluation, or the property says little.
    expect(accepted).toBeGreaterThan(RUNS / 2);
  }, 120_000);
});

// Every value at its limit at once, run through the real reconciler's ticks (what `kpol run`
// and `kpol simulate` do) at both ends of the supported range and across a leap day.
const AT_THE_LIMITS = `policy p for nodepool default, gpu {
  consolidate when empty or underutilized after 106751d
  expire after 106751d gracefully
  termination grace 106751d
  budget 2147483647 for Expired
  budget 1000 per 7d for Drifted
  budget 100% per 1m for Empty
  budget 0 during "0 0 29 2 *" for 2562047h in "Pacific/Kiritimati"
  allow 100% Drifted only during "59 23 31 12 *" for 1m in "Etc/GMT+12"
  freeze from "9999-12-31 23:00" to "9999-12-31 23:59" in "Etc/GMT-14"
  pods where app exists disruptable never during "@yearly" for 7d in "Australia/Lord_Howe"
  window w blocks Drifted on nodes where constructor exists during "0 0 29 2 *" for 106751d
}
`;

describe('controller ticks', () => {
  const starts = ['0000-01-01T00:00:00Z', '2028-02-28T23:50:00Z', '9999-12-31T23:30:00Z'];
  it.each(starts)(
    'of a policy at every limit run from %s',
    async (from) => {
      const path = new URL('../../rules/examples/clusters/business-hours.yaml', import.meta.url).pathname;
      const { objects, errors } = simulationObjects(readFileSync(path, 'utf8'), path);
      expect(errors).toEqual([]);
      const loaded = loadPolicies([{ fileName: 'limits.kpol', text: AT_THE_LIMITS }]);
      expect(loaded.ok).toBe(true);
      const fromMs = Date.parse(from);
      const t = await simulate({ objects, policies: loaded.policies, fromMs, forMs: 20 * 60_000, stepMs: 60_000 });
      expect(t.samples.length).toBeGreaterThan(0);
      for (const s of t.samples) expect(Object.keys(s.allowed).sort()).toEqual(['default', 'gpu']);
    },
    60_000,
  );
});

function reproducerExamples(): [string, ClusterSpec, number[]][] {
  const [cluster] = fc.sample(
    clusterArb.filter((c) => c.nodes.length > 0),
    { seed: SEED, numRuns: 1 },
  );
  const instants = [MIN_INSTANT, Date.UTC(2026, 10, 25, 12), MAX_INSTANT];
  return REPRODUCERS.map((s) => [`policy p for nodepool default, gpu {\n  ${s}\n}\n`, cluster!, instants]);
}
