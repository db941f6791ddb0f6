// SPDX-License-Identifier: Apache-2.0
// Done-when 4 and 6 of the govern-mode issue, read from Karpenter's own
// karpenter_nodepools_allowed_disruptions metric:
// - fail closed: kpol is SIGKILLed while its window is open; within the documented bound
//   (--fail-closed-after, here 1m, plus at most a minute, plus Karpenter's 10 s loop) Karpenter's
//   allowance for the pool falls to 0; a restarted kpol restores the policy's value;
// - restore: removing the policy ConfigMap gives the NodePool back its user's own budgets,
//   exactly, and removes every annotation kpol set.
// Karpenter computes the metric only while some node is a candidate for the reason, so a
// second, ungoverned pool keeps one drifted node that its own budget never lets go.
import { afterAll, expect, it } from 'vitest';
import { eventually } from '../control-plane/eventually.js';
import { killStrays } from '../e2e/kpol-process.js';
import { deploymentYaml, driftPatch, karpenterCluster, KPOL_NAMESPACE, poolYaml, sleep } from './govern-support.js';

const POOL = 'gov-fc';
const SENTINEL = 'gov-sentinel';
const NS = 'gov-fc';
const CM = 'gov-fc';
const USER_BUDGETS = [{ nodes: '3' }, { nodes: '0', reasons: ['Underutilized'], schedule: '@daily', duration: '10m' }];
/** The documented bound for --fail-closed-after 1m, plus Karpenter's 10 s polling and metric lag. */
const BOUND_MS = 2 * 60_000 + 20_000;

afterAll(async () => {
  killStrays();
  await karpenterCluster().cleanup([POOL, SENTINEL], NS, [CM]);
});

it(
  'Karpenter falls back to blocking after kpol is killed, kpol restores its value on restart,' +
    ' and the user budgets return when the policy goes',
  async () => {
    const c = karpenterCluster();
    await c.ensureNamespace(NS);
    await c.apply(poolYaml(SENTINEL, { budgets: [{ nodes: '0', reasons: ['Drifted'] }] }));
    await c.apply(poolYaml(POOL, { budgets: USER_BUDGETS }));
    await c.apply(deploymentYaml({ namespace: NS, name: 'sentinel', pool: SENTINEL, replicas: 1 }));
    await c.apply(deploymentYaml({ namespace: NS, name: 'web', pool: POOL, replicas: 2, spread: 'web' }));
    await c.initializedNodes(SENTINEL, 1);
    await c.initializedNodes(POOL, 2);
    const userPool = await c.get('nodepool', POOL);
    await c.kubectl(['patch', 'nodepool', SENTINEL, '--type', 'merge', '-p', driftPatch()]);
    await eventually(
      'Karpenter reading the user budget of the pool',
      async () => ((await c.karpenterAllowed(POOL, 'Drifted')) === 3 ? true : undefined),
      90_000,
    );

    await c.policyConfigMap(
      CM,
      `policy open-window for nodepool ${POOL} {
  allow 2 Drifted only during "0 * * * *" for 1h
}`,
    );
    let kpol = await c.govern();
    await eventually(
      'Karpenter allowing the policy value',
      async () => ((await c.karpenterAllowed(POOL, 'Drifted')) === 2 ? true : undefined),
      60_000,
    );

    await kpol.stop('SIGKILL');
    const killed = Date.now();
    const failClosedAt = Date.parse(
      JSON.parse((await c.get('nodepool', POOL))!.metadata.annotations!['kpol.dev/decision']).failClosedAt,
    );
    // Until the renewal instant Karpenter keeps the policy's value, not the user's nor unlimited.
    while (Date.now() < failClosedAt - 5_000) {
      expect(await c.karpenterAllowed(POOL, 'Drifted')).toBe(2);
      await sleep(5000);
    }
    await eventually(
      'Karpenter blocking the pool after kpol stopped',
      async () => ((await c.karpenterAllowed(POOL, 'Drifted')) === 0 ? true : undefined),
      BOUND_MS,
    );
    expect(Date.now() - killed).toBeLessThan(BOUND_MS);
    // Karpenter sets a reason's gauge only in a loop where that reason has candidates somewhere.
    for (const reason of ['Empty', 'Underutilized']) {
      const v = await c.karpenterAllowed(POOL, reason);
      if (v !== undefined) expect(v, reason).toBe(0);
    }

    kpol = await c.govern();
    await eventually(
      'a restarted kpol restoring the policy value',
      async () => ((await c.karpenterAllowed(POOL, 'Drifted')) === 2 ? true : undefined),
      60_000,
    );

    // Restore: the policy goes, the user's own budgets and settings come back exactly.
    await c.kubectl(['delete', 'configmap', CM, '-n', KPOL_NAMESPACE]);
    const restored = await eventually(
      'the NodePool handed back',
      async () => {
        const np = await c.get('nodepool', POOL);
        return np && !Object.keys(np.metadata.annotations ?? {}).some((k) => k.startsWith('kpol.dev/'))
          ? np
          : undefined;
      },
      60_000,
    );
    expect(restored.spec!.disruption).toEqual(userPool!.spec!.disruption);
    expect((restored.spec!.template as { spec: unknown }).spec).toEqual(
      (userPool!.spec!.template as { spec: unknown }).spec,
    );
    for (const n of await c.nodes(POOL))
      expect(Object.keys(n.metadata.annotations ?? {}).filter((k) => k.startsWith('kpol.dev/'))).toEqual([]);
    await eventually(
      'Karpenter reading the user budget again',
      async () => ((await c.karpenterAllowed(POOL, 'Drifted')) === 3 ? true : undefined),
      60_000,
    );
    await kpol.stop('SIGTERM');
  },
  900_000,
);
