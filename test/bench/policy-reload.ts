// SPDX-License-Identifier: Apache-2.0
// `npx tsx test/bench/policy-reload.ts`: what per-ConfigMap last-good costs. A reload where
// every ConfigMap is valid is one check of the whole set; a reload where one of N ConfigMaps is
// broken checks the whole set three times (all, last good, last good + the changed one). Printed
// as ratios to one plain check of the same files, measured in the same run.
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { ConfigMap } from '../../src/core/cluster/types.js';
import { FakeClock } from '../../src/core/clock.js';
import { ConfigMapPolicies } from '../../src/core/policy/configmap-policies.js';
import { loadPolicies, policySourcesFromConfigMaps } from '../../src/core/policy/load.js';

const N = 200;
const NS = 'kpol-system';
const policy = (i: number, extra = '') =>
  `policy p${i} for nodepool pool-${i} {\n  consolidate when empty after 5m\n  budget ` +
  `10%${extra}\n  budget 0 for Underutilized during "0 9 * * mon-fri" for 8h in ` +
  `"Europe/Berlin"\n}\n`;
const cm = (i: number, text: string): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: `team-${i}`, namespace: NS, labels: { 'kpol.dev/policy': 'true' } },
  data: { [`p${i}.kpol`]: text },
});

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

async function main(): Promise<void> {
  const clock = new FakeClock(Date.parse('2026-11-22T10:00:00Z'));
  const cms = Array.from({ length: N }, (_, i) => cm(i, policy(i)));
  const cluster = new MemoryCluster(clock, cms);
  const store = new ConfigMapPolicies({ client: cluster, clock, namespace: NS });
  await store.reload(); // no watch: each reload below is the only one running

  const plain: number[] = [];
  const valid: number[] = [];
  const broken: number[] = [];
  for (let round = 0; round < 7; round++) {
    let t = performance.now();
    loadPolicies(policySourcesFromConfigMaps(await cluster.list<ConfigMap>('ConfigMap', NS)));
    plain.push(performance.now() - t);

    const a = (await cluster.get<ConfigMap>({ kind: 'ConfigMap', name: 'team-0', namespace: NS }))!;
    await cluster.update({ ...a, data: { 'p0.kpol': policy(0).replace('10%', `${10 + (round % 5)}%`) } });
    t = performance.now();
    await store.reload();
    valid.push(performance.now() - t);

    const b = (await cluster.get<ConfigMap>({ kind: 'ConfigMap', name: 'team-1', namespace: NS }))!;
    await cluster.update({ ...b, data: { 'p1.kpol': policy(1, ` for Drifed${round}`) } });
    t = performance.now();
    await store.reload();
    broken.push(performance.now() - t);
    await cluster.update({
      ...(await cluster.get<ConfigMap>({ kind: 'ConfigMap', name: 'team-1', namespace: NS }))!,
      data: { 'p1.kpol': policy(1) },
    });
    await store.reload();
  }
  const p = median(plain);
  console.log(`${N} policy ConfigMaps: one check of all files ${p.toFixed(1)} ms (baseline)`);
  console.log(
    `reload, one valid change:      ${median(valid).toFixed(1)} ms  = ${(median(valid) / p).toFixed(2)}× baseline`,
  );
  console.log(
    `reload, one broken ConfigMap:  ${median(broken).toFixed(1)} ms  ` +
      `= ${(median(broken) / p).toFixed(2)}× baseline (Warning Event and annotation included)`,
  );
  store.stop();
}

await main();
