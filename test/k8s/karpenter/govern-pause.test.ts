// SPDX-License-Identifier: Apache-2.0
// Issue 15: `kpol pause` in govern mode, judged from the real Karpenter's side. Four drifted nodes
// under `budget 100%`; a pause of Drifted on the pool, made with the CLI, makes kpol write a
// budget of 0 for Drifted and Karpenter replaces nothing until the pause ends by itself; then
// the replacements start. Nobody edits the NodePool by hand or deletes the pause.
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../cli/run-cli.js';
import { eventually } from '../control-plane/eventually.js';
import { killStrays } from '../e2e/kpol-process.js';
import { deploymentYaml, karpenterCluster, KPOL_NAMESPACE, poolYaml } from './govern-support.js';

const POOL = 'gov-pause';
const PLAIN = 'gov-pause-plain';
const NS = 'gov-pause';
const CM = 'gov-pause';
const PAUSE_SECONDS = 90;

afterAll(async () => {
  killStrays();
  const c = karpenterCluster();
  await c.kubectl(['delete', 'configmap', '-n', KPOL_NAMESPACE, '-l', 'kpol.dev/pause', '--ignore-not-found']);
  await c.cleanup([POOL, PLAIN], NS, [CM]);
});

/** `kpol pause --reason Drifted --nodepool POOL --for …` through the CLI's entry point; returns the end. */
async function pauseDrifted(kubeconfig: string, pool: string): Promise<number> {
  const { code, stdout, stderr } = await runCli(
    'pause',
    '--reason',
    'Drifted',
    '--nodepool',
    pool,
    '--for',
    `${PAUSE_SECONDS}s`,
    '--note',
    'govern e2e',
    '--namespace',
    KPOL_NAMESPACE,
    '--kubeconfig',
    kubeconfig,
  );
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return Date.parse(/until (\S+) /.exec(stdout)![1]!);
}

type Budget = { nodes: string; reasons?: string[]; schedule?: string };
const budgetsOf = async (c: ReturnType<typeof karpenterCluster>, pool: string): Promise<Budget[] | undefined> =>
  ((await c.get('nodepool', pool))?.spec as { disruption?: { budgets?: Budget[] } }).disruption?.budgets;

it('Karpenter replaces no drifted node while Drifted is paused, and resumes when the pause ends', async () => {
  const c = karpenterCluster();
  await c.ensureNamespace(NS);
  await c.apply(poolYaml(POOL, { budgets: [{ nodes: '100%' }] }));
  await c.apply(deploymentYaml({ namespace: NS, name: 'web', pool: POOL, replicas: 4, spread: 'web' }));
  const original = await c.initializedNodes(POOL, 4);
  await c.policyConfigMap(CM, `policy open for nodepool ${POOL} {\n  budget 100%\n}`);
  const kpol = await c.govern();
  await c.governed(POOL);

  const until = await pauseDrifted(c.kubeconfigPath, POOL);

  // kpol writes Karpenter's own control: a budget of 0 for Drifted.
  await eventually('a Drifted budget of 0 on the NodePool', async () => {
    const budgets = await budgetsOf(c, POOL);
    return budgets?.some((b) => b.nodes === '0' && !b.schedule && b.reasons?.includes('Drifted')) ? true : undefined;
  });
  await c.driftAll(POOL, 4);

  await c.noneDisruptedUntil(POOL, original, until, 'pause');
  const resumed = await c.firstDisrupted(POOL, original, 'a drift replacement after the pause');
  expect(resumed).toBeGreaterThanOrEqual(until);
  await kpol.stop('SIGTERM');
}, 600_000);

it('a pool no policy governs is governed for the pause and handed back after it', async () => {
  const c = karpenterCluster();
  await c.ensureNamespace(NS);
  await c.apply(poolYaml(PLAIN, { budgets: [{ nodes: '100%' }] }));
  await c.apply(deploymentYaml({ namespace: NS, name: 'plain', pool: PLAIN, replicas: 2, spread: 'plain' }));
  const original = await c.initializedNodes(PLAIN, 2);
  const kpol = await c.govern();
  const until = await pauseDrifted(c.kubeconfigPath, PLAIN);
  await eventually('the pause written into the plain NodePool', async () => {
    const np = await c.get('nodepool', PLAIN);
    const budgets = await budgetsOf(c, PLAIN);
    return np?.metadata.annotations?.['kpol.dev/governed-by'] === 'kpol-pause' &&
      budgets?.some((b) => b.nodes === '0' && b.reasons?.join() === 'Drifted')
      ? true
      : undefined;
  });
  expect((await budgetsOf(c, PLAIN))?.[0]).toEqual({ nodes: '100%' }); // the user's own budget kept
  await c.driftAll(PLAIN, 2);
  await c.noneDisruptedUntil(PLAIN, original, until, 'pause');
  expect(await c.firstDisrupted(PLAIN, original, 'a drift replacement after the pause')).toBeGreaterThanOrEqual(until);
  await eventually('the NodePool handed back', async () => {
    const np = await c.get('nodepool', PLAIN);
    return np?.metadata.annotations?.['kpol.dev/governed-by'] === undefined ? true : undefined;
  });
  expect(await budgetsOf(c, PLAIN)).toEqual([{ nodes: '100%' }]);
  await kpol.stop('SIGTERM');
}, 600_000);
