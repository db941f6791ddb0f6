// SPDX-License-Identifier: Apache-2.0
// The policy fuzz suite (issue 13): 3,000 generated inputs, grammar-built policies with extreme
// values, mutations of them (token deletions, insertions, swaps, random characters, truncation,
// huge lines) and raw bytes, through parse → check → compile → eval. Whatever the input: no
// throw, no "internal error", every diagnostic located inside the text. Fixed seeds; the long
// run is test/fuzz/long-policies.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_INSTANT, MIN_INSTANT, policyFileArb } from './policy-arbitraries.js';
import { mutatedPolicyArb, randomBytesArb } from './policy-mutations.js';
import { buildCluster, runPolicy } from './pipeline.js';

const SEED = Number(process.env.KPOL_FUZZ_SEED ?? 2026);
const cluster = buildCluster({
  nodes: [
    {
      pool: 'default',
      drifted: true,
      ready: 'True',
      deleting: false,
      pods: 2,
      oddLabel: 'constructor',
      createdAt: '2026-08-01T00:00:00Z',
    },
    {
      pool: 'gpu',
      drifted: false,
      ready: 'False',
      deleting: false,
      pods: 1,
      oddLabel: null,
      createdAt: '1970-01-01T00:00:00Z',
    },
  ],
  poolLabel: 'toString',
});
const INSTANTS = [MIN_INSTANT, Date.UTC(2026, 2, 29, 1, 30), MAX_INSTANT];

async function fuzz(name: string, arb: fc.Arbitrary<string>, runs: number, seed: number) {
  const seen = { runs: 0, accepted: 0 };
  await fc.assert(
    fc.asyncProperty(arb, async (text) => {
      const outcome = await runPolicy(text, cluster, INSTANTS);
      seen.runs++;
      if (outcome.accepted) seen.accepted++;
      expect(outcome.problems, name).toEqual([]);
    }),
    { seed, numRuns: runs, endOnFailure: true },
  );
  return seen;
}

describe('policy fuzz suite', () => {
  it('1,000 generated policies', async () => {
    const seen = await fuzz('generated', policyFileArb, 1000, SEED);
    expect(seen.runs).toBe(1000);
    expect(seen.accepted).toBeGreaterThan(500);
  }, 120_000);

  it('1,600 mutated policies', async () => {
    const seen = await fuzz('mutated', mutatedPolicyArb, 1600, SEED + 1);
    expect(seen.runs).toBe(1600);
  }, 120_000);

  it('400 inputs of random bytes', async () => {
    const seen = await fuzz('bytes', randomBytesArb, 400, SEED + 2);
    expect(seen.runs).toBe(400);
  }, 60_000);
});
