// SPDX-License-Identifier: Apache-2.0
// Issue 15: `kpol pause` in govern mode, judged from the real Karpenter's side. Four drifted nodes
// under `budget 100%`; a pause of Drifted on the pool, made with the CLI, makes kpol write a
// budget of 0 for Drifted and Karpenter replaces nothing until the pause ends by itself; then
// the replacements start. Nobody edits the NodePool by hand or deletes the pause.
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../cli/run-cli.js';
import { eventually } from '../control-plane/eventually.js';
import { killStrays } from '../e2e/kpol-process.js';
import {
  deploymentYaml,
  disruptionStarted,
  driftPatch,
  karpenterCluster,
  KPOL_NAMESPACE,
  poolYaml,
  sleep,
} from './govern-support.js';

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

/** Samples every second until `until` that none of `original` has started to be disrupted. */
async function noneDisruptedUntil(
  c: ReturnType<typeof karpenterCluster>,
  pool: string,
  original: string[],
  until: number,
) {
  while (Date.now() < until - 1_000) {
    const nodes = await c.nodes(pool);
    const started = nodes
      .filter((n) => original.includes(n.metadata.name) && disruptionStarted(n))
      .map((n) => n.metadata.name);
    expect(started, `disrupted during the pause (ends ${new Date(until).toISOString()})`).toEqual([]);
    await sleep(1000);
  }
}

/** When the first of `original` started to be disrupted (or went). */
const firstDisrupted = (c: ReturnType<typeof karpenterCluster>, pool: string, original: string[]) =>
  eventually(
    'a drift replacement after the pause',
    async () => {
      const nodes = await c.nodes(pool);
      const gone = original.filter((name) => {
        const n = nodes.find((x) => x.metadata.name === name);
        return !n || disruptionStarted(n);
      });
      return gone.length > 0 ? Date.now() : undefined;
    },
    120_000,
  );

it('Karpenter replaces no drifted node while Drifted is paused, and resumes when the pause ends', async () => {
  const c = karpenterCluster();
  await c.ensureNamespace(NS);
  await c.apply(poolYaml(POOL, { budgets: [{ nodes: '100%' }] }));
  await c.apply(deploymentYaml({ namespace: NS, name: 'web', pool: POOL, replicas: 4, spread: 'web' }));
  const original = await c.initializedNodes(POOL, 4);
  await c.policyConfigMap(CM, `policy open for nodepool ${POOL} {\n  budget 100%\n}`);
  const kpol = await c.govern();
  await eventually(
    'kpol governing the pool',
    async () => (await c.get('nodepool', POOL))?.metadata.annotations?.['kpol.dev/governed-by'],
  );

  const until = await pauseDrifted(c.kubeconfigPath, POOL);

  // kpol writes Karpenter's own control: a budget of 0 for Drifted.
  await eventually('a Drifted budget of 0 on the NodePool', async () => {
    const budgets = await budgetsOf(c, POOL);
    return budgets?.some((b) => b.nodes === '0' && !b.schedule && b.reasons?.includes('Drifted')) ? true : undefined;
  });
  await c.kubectl(['patch', 'nodepool', POOL, '--type', 'merge', '-p', driftPatch()]);
  await eventually('every node drifted', async () =>
    (await c.nodeClaims(POOL)).filter((nc) =>
      nc.status?.conditions?.some((x) => x.type === 'Drifted' && x.status === 'True'),
    ).length >= 4
      ? true
      : undefined,
  );

  await noneDisruptedUntil(c, POOL, original, until);
  const resumed = await firstDisrupted(c, POOL, original);
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
  await c.kubectl(['patch', 'nodepool', PLAIN, '--type', 'merge', '-p', driftPatch()]);
  await noneDisruptedUntil(c, PLAIN, original, until);
  expect(await firstDisrupted(c, PLAIN, original)).toBeGreaterThanOrEqual(until);
  await eventually('the NodePool handed back', async () => {
    const np = await c.get('nodepool', PLAIN);
    return np?.metadata.annotations?.['kpol.dev/governed-by'] === undefined ? true : undefined;
  });
  expect(await budgetsOf(c, PLAIN)).toEqual([{ nodes: '100%' }]);
  await kpol.stop('SIGTERM');
}, 600_000);
