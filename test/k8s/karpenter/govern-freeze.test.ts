// SPDX-License-Identifier: Apache-2.0
// Done-when 3 of the govern-mode issue: during a freeze the real Karpenter disrupts nothing for the
// frozen reason; after it, it resumes. Four drifted nodes under `budget 100%` and a freeze of
// Drifted that ends a minute or two after the test starts.
import { afterAll, expect, it } from 'vitest';
import { killStrays } from '../e2e/kpol-process.js';
import { deploymentYaml, karpenterCluster, minuteAhead, poolYaml } from './govern-support.js';

const POOL = 'gov-freeze';
const NS = 'gov-freeze';
const CM = 'gov-freeze';

afterAll(async () => {
  killStrays();
  await karpenterCluster().cleanup([POOL], NS, [CM]);
});

/** `YYYY-MM-DD HH:MM` in UTC, as a freeze statement takes it. */
const freezeTime = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

it('no drift replacement during a freeze of Drifted; replacements resume when it ends', async () => {
  const c = karpenterCluster();
  await c.ensureNamespace(NS);
  await c.apply(poolYaml(POOL, { budgets: [{ nodes: '100%' }] }));
  await c.apply(deploymentYaml({ namespace: NS, name: 'web', pool: POOL, replicas: 4, spread: 'web' }));
  const original = await c.initializedNodes(POOL, 4);

  const from = Math.floor(Date.now() / 60_000) * 60_000;
  const to = minuteAhead(75_000).getTime();
  await c.policyConfigMap(
    CM,
    `policy frozen for nodepool ${POOL} {
  budget 100%
  freeze Drifted from "${freezeTime(from)}" to "${freezeTime(to)}" in "UTC"
}`,
  );
  const kpol = await c.govern();
  await c.governed(POOL);
  await c.driftAll(POOL, 4);

  await c.noneDisruptedUntil(POOL, original, to, 'freeze');
  // Karpenter said why, in its own words: its NodePool event for a blocking budget.
  const blocked = await c.karpenterEvents(['DisruptionBlocked']);
  expect(
    blocked.some((e) => e.kind === 'NodePool' && e.name === POOL && /drifted/i.test(e.message)),
    JSON.stringify(blocked.filter((e) => e.name === POOL)),
  ).toBe(true);

  const resumed = await c.firstDisrupted(POOL, original, 'a drift replacement after the freeze');
  expect(resumed).toBeGreaterThanOrEqual(to);
  await kpol.stop('SIGTERM');
}, 600_000);
