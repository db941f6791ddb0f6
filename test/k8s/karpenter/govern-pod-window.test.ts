// SPDX-License-Identifier: Apache-2.0
// Done-when 2 of the govern-mode issue: a pod window holds its node against the real Karpenter's
// consolidation through the node's karpenter.sh/do-not-disrupt annotation, set by kpol while the
// window is closed and removed when it opens; a user's own annotation is never removed.
//
// Two nodes: `keeper` (the user's node: the user's own do-not-disrupt annotation) and `held`.
// `held` runs one small pod that would fit on `keeper` once `keeper`'s taint is lifted — the
// taint only makes Karpenter launch `held` in the first place. Both pods are selected by the
// policy's pod window. Karpenter wants to consolidate `held` (its pod can move); kpol holds it
// until the window opens, then lets go, and Karpenter deletes it.
import { afterAll, expect, it } from 'vitest';
import { eventually } from '../control-plane/eventually.js';
import { killStrays } from '../e2e/kpol-process.js';
import { deploymentYaml, disruptionStarted, karpenterCluster, minuteAhead, poolYaml, sleep } from './govern-support.js';

const POOL = 'gov-podwin';
const NS = 'gov-podwin';
const CM = 'gov-podwin';
const DND = 'karpenter.sh/do-not-disrupt';
const MARK = 'kpol.dev/do-not-disrupt';

afterAll(async () => {
  killStrays();
  await karpenterCluster().cleanup([POOL], NS, [CM]);
});

it(
  'a node whose pod window is closed is not consolidated; when it opens, kpol lets go and ' +
    'Karpenter consolidates it',
  async () => {
    const c = karpenterCluster();
    await c.ensureNamespace(NS);
    await c.apply(poolYaml(POOL, { consolidationPolicy: 'WhenEmptyOrUnderutilized', budgets: [{ nodes: '100%' }] }));
    await c.apply(
      deploymentYaml({
        namespace: NS,
        name: 'big',
        pool: POOL,
        replicas: 1,
        cpu: '1500m',
        podLabels: { team: 'batch' },
        tolerate: 'only-big',
      }),
    );
    const [keeper] = await c.initializedNodes(POOL, 1);
    await c.kubectl(['annotate', 'node', keeper, `${DND}=true`]); // the user's own
    await c.kubectl(['taint', 'node', keeper, 'only-big=yes:NoSchedule']);
    await c.apply(
      deploymentYaml({ namespace: NS, name: 'small', pool: POOL, replicas: 1, podLabels: { team: 'batch' } }),
    );
    const held = (await c.initializedNodes(POOL, 2)).find((n) => n !== keeper)!;

    const opens = minuteAhead(80_000).getTime();
    const at = new Date(opens);
    await c.policyConfigMap(
      CM,
      `policy pod-window for nodepool ${POOL} {
  consolidate when empty or underutilized after 0s
  budget 100%
  pods where team = "batch" disruptable only during "${at.getUTCMinutes()} ${at.getUTCHours()} * * *" for 30m in "UTC"
}`,
    );
    const kpol = await c.govern();
    await eventually('kpol holding the node', async () => (await c.get('node', held))?.metadata.annotations?.[MARK]);
    // Now Karpenter may move `small` onto `keeper`: `held` becomes a consolidation candidate but for kpol's hold.
    await c.kubectl(['taint', 'node', keeper, 'only-big-']);

    while (Date.now() < opens - 2_000) {
      const node = await c.get('node', held);
      expect(node, 'held node still there before the window opens').toBeDefined();
      expect(disruptionStarted(node!)).toBe(false);
      expect(node!.metadata.annotations?.[DND]).toBe('true');
      await sleep(2000);
    }
    // Karpenter saw the node and declined it for the annotation (its own DisruptionBlocked event).
    const blocked = await c.karpenterEvents(['DisruptionBlocked']);
    expect(
      blocked.some((e) => e.name === held && /do-not-disrupt/.test(e.message)),
      JSON.stringify(blocked.filter((e) => e.name === held)),
    ).toBe(true);

    // The window opens: kpol removes its annotation (and only its), Karpenter consolidates the node.
    // kpol ticks every second; the bound is a minute, as for every wait here (30 s ran out once
    // while this machine's two cores ran a CI and 5,000-node simulations side by side).
    await eventually(
      'kpol releasing the node',
      async () => {
        const a = (await c.get('node', held))?.metadata.annotations ?? {};
        return a[MARK] === undefined && a[DND] === undefined ? true : undefined;
      },
      60_000,
    );
    await eventually(
      'Karpenter consolidating the released node',
      async () => {
        const node = await c.get('node', held);
        return !node || disruptionStarted(node) ? true : undefined;
      },
      180_000,
    );
    const keeperNode = await c.get('node', keeper);
    expect(keeperNode?.metadata.annotations?.[DND]).toBe('true'); // the user's annotation stays
    expect(keeperNode?.metadata.annotations?.[MARK]).toBeUndefined();
    expect(disruptionStarted(keeperNode!)).toBe(false);
    await kpol.stop('SIGTERM');
  },
  600_000,
);
