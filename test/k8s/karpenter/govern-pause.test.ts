// SPDX-License-Identifier: Apache-2.0
// Issue 15: `kpol pause` in govern mode, judged from the real Karpenter's side. Four drifted nodes
// under `budget 100%`; a pause of Drifted on the pool, made with the CLI, makes kpol write a
// budget of 0 for Drifted and Karpenter replaces nothing until the pause ends by itself; then
// the replacements start. Nobody edits the NodePool by hand or deletes the pause.
import { afterAll, expect, it } from 'vitest';
import { main } from '../../../src/edge/cli/main.js';
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
const NS = 'gov-pause';
const CM = 'gov-pause';
const PAUSE_SECONDS = 90;

afterAll(async () => {
  killStrays();
  const c = karpenterCluster();
  await c.kubectl(['delete', 'configmap', '-n', KPOL_NAMESPACE, '-l', 'kpol.dev/pause', '--ignore-not-found']);
  await c.cleanup([POOL], NS, [CM]);
});

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

  let out = '';
  let err = '';
  const code = await main(
    [
      'pause',
      '--reason',
      'Drifted',
      '--nodepool',
      POOL,
      '--for',
      `${PAUSE_SECONDS}s`,
      '--note',
      'govern e2e',
      '--namespace',
      KPOL_NAMESPACE,
      '--kubeconfig',
      c.kubeconfigPath,
    ],
    { out: (t) => (out += t), err: (t) => (err += t), isTTY: false },
  );
  expect(err).toBe('');
  expect(code).toBe(0);
  const until = Date.parse(/until (\S+) /.exec(out)![1]!);

  // kpol writes Karpenter's own control: a budget of 0 for Drifted.
  await eventually('a Drifted budget of 0 on the NodePool', async () => {
    const budgets = ((await c.get('nodepool', POOL))?.spec as { disruption?: { budgets?: object[] } }).disruption
      ?.budgets as { nodes: string; reasons?: string[]; schedule?: string }[] | undefined;
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

  while (Date.now() < until - 1_000) {
    const nodes = await c.nodes(POOL);
    const started = nodes
      .filter((n) => original.includes(n.metadata.name) && disruptionStarted(n))
      .map((n) => n.metadata.name);
    expect(started, `disrupted during the pause (ends ${new Date(until).toISOString()})`).toEqual([]);
    await sleep(1000);
  }

  const resumed = await eventually(
    'a drift replacement after the pause',
    async () => {
      const nodes = await c.nodes(POOL);
      const gone = original.filter((name) => {
        const n = nodes.find((x) => x.metadata.name === name);
        return !n || disruptionStarted(n);
      });
      return gone.length > 0 ? Date.now() : undefined;
    },
    120_000,
  );
  expect(resumed).toBeGreaterThanOrEqual(until);
  await kpol.stop('SIGTERM');
}, 600_000);
