// SPDX-License-Identifier: Apache-2.0
// The long policy fuzz run (issue 13): `npx tsx test/fuzz/long-policies.ts [SEED] [COUNT]`
// (default 1 and 100000). The same pipeline and generators as policies.test.ts, over every IANA
// zone, in chunks of 1,000 with seeds SEED, SEED+1, …: a third generated policies, half
// mutated ones, a sixth raw bytes, each evaluated at two generated instants over a generated
// cluster. Prints figures every chunk and a summary; exits 1 when any input had a problem.
import fc from 'fast-check';

process.env.KPOL_FUZZ_ALL_ZONES = '1'; // before the generators load: they read it once
const { instantArb, policyFileArb } = await import('./policy-arbitraries.js');
const { mutatedPolicyArb, randomBytesArb } = await import('./policy-mutations.js');
const { buildCluster, clusterArb, runPolicy } = await import('./pipeline.js');
const { zoneOffsetRange } = await import('../../rules/window-zone.js');

const seed = Number(process.argv[2] ?? 1);
const count = Number(process.argv[3] ?? 100_000);
if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(count) || count <= 0) {
  console.error('usage: tsx test/fuzz/long-policies.ts [SEED] [COUNT]');
  process.exit(2);
}

const CHUNK = 1000;
const inputArb = fc.tuple(
  fc.oneof(
    { arbitrary: policyFileArb, weight: 2 },
    { arbitrary: mutatedPolicyArb, weight: 3 },
    { arbitrary: randomBytesArb, weight: 1 },
  ),
  clusterArb,
  fc.array(instantArb, { minLength: 2, maxLength: 2 }),
);

// The checker samples a zone's offsets over 20 years the first time a policy names it (cached
// per process); doing it for every zone up front keeps that one-off cost out of the rates.
const warmStart = performance.now();
for (const zone of Intl.supportedValuesOf('timeZone')) zoneOffsetRange(zone);
const warmSeconds = ((performance.now() - warmStart) / 1000).toFixed(0);
console.log(`zone offsets of ${Intl.supportedValuesOf('timeZone').length} zones sampled in ${warmSeconds} s`);

const started = performance.now();
let done = 0;
let accepted = 0;
let instants = 0;
let peakRss = 0;
let bytes = 0;
const problems = new Map<string, { count: number; example: string }>();

for (let chunk = 0; done < count; chunk++) {
  const n = Math.min(CHUNK, count - done);
  for (const [text, cluster, at] of fc.sample(inputArb, { seed: seed + chunk, numRuns: n })) {
    const outcome = await runPolicy(text, buildCluster(cluster), at);
    done++;
    bytes += text.length;
    instants += outcome.evaluated;
    if (outcome.accepted) accepted++;
    for (const p of outcome.problems) {
      // Group by the problem's words, not its offsets or instants, so a summary stays short.
      const key = p.replace(/\d+/g, 'N').slice(0, 160);
      const seen = problems.get(key);
      if (seen) seen.count++;
      else {
        const example = `${p}\n--- input (chunk seed ${seed + chunk}) ---\n${text.slice(0, 2000)}`;
        problems.set(key, { count: 1, example });
      }
    }
  }
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const secs = (performance.now() - started) / 1000;
  console.log(
    `${done}/${count} inputs, ${accepted} accepted, ${instants} evaluations, ` +
      `${problems.size} distinct problems, ` +
      `${secs.toFixed(0)} s, ${(done / secs).toFixed(0)} inputs/s, peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`,
  );
}

const secs = (performance.now() - started) / 1000;
const total = [...problems.values()].reduce((a, p) => a + p.count, 0);
const mib = (bytes / 2 ** 20).toFixed(1);
console.log(
  `\nseed ${seed}, ${done} inputs (${mib} MiB of text): ${accepted} accepted by check and ` +
    `evaluated at ${instants} instants, ${done - accepted} rejected; ${total} problems (${problems.size} distinct); ` +
    `${secs.toFixed(0)} s, peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB`,
);
for (const [key, p] of problems) console.log(`\n${p.count}× ${key}\n${p.example}`);
process.exit(problems.size ? 1 : 0);
