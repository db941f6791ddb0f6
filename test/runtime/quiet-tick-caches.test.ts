// SPDX-License-Identifier: Apache-2.0
// The runtime's caches (the cluster view, reused node verdicts, controllers that skip quiet
// passes) never hide a change: an object written between ticks is seen on the next tick, and a
// window opening with no object change is seen on the first tick inside it.
import { describe, expect, it } from 'vitest';
import type { NodeResult } from '../../src/core/eval/output.js';
import { Scenario, policies, pool, replicaSet } from '../reconciler/scenario.js';

const POLICY = `policy p for nodepool default {
  consolidate when empty or underutilized after 0s
  budget 0 for Empty, Underutilized, Drifted
  pods where app = "batch" disruptable only during "0 2 * * *" for 1h
}
`;

const codes = (n: NodeResult | undefined) => (n?.blocked ?? []).map((b) => b.code);

describe('quiet ticks', () => {
  it('see a pod annotation written between ticks and a pod window opening with nothing written', async () => {
    const s = new Scenario(
      [pool('default', ['m5.large']), replicaSet('batch', 1, { cpu: '1', labels: { app: 'batch' } })],
      policies(POLICY),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 1, 10 * 60_000)).toBe(true);
    const only = () => Object.values(s.history.at(-1)!.disruption.evaluation.nodes)[0];
    // Outside 02:00–03:00 UTC the pod holds its node.
    expect(
      await s.until(
        () => new Date(s.clock.now()).getUTCHours() !== 2 && codes(only()).includes('PodDisruptionWindow'),
        10 * 60_000,
      ),
    ).toBe(true);
    const derived = s.rt.evaluator.nodeStats.derived;
    await s.until(() => false, 5 * 60_000); // quiet: the verdict is reused, not derived again
    expect(s.rt.evaluator.nodeStats.derived).toBe(derived);
    expect(codes(only())).toEqual(['PodDisruptionWindow']);

    // An annotation written between two ticks is seen on the next one.
    const [pod] = await s.runningPods();
    await s.rt.cluster.patch(
      { kind: 'Pod', name: pod.metadata.name, namespace: pod.metadata.namespace },
      { metadata: { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } },
    );
    await s.tick();
    expect(codes(only())).toContain('DoNotDisruptPod');
    await s.rt.cluster.patch(
      { kind: 'Pod', name: pod.metadata.name, namespace: pod.metadata.namespace },
      { metadata: { annotations: { 'karpenter.sh/do-not-disrupt': null } } },
    );
    await s.tick();
    expect(codes(only())).toEqual(['PodDisruptionWindow']);

    // The window opens with no object change: the first tick at or after 02:00 sees it, 1-minute steps.
    const opened = await s.until(() => !codes(only()).includes('PodDisruptionWindow'), 26 * 3600_000, 60_000);
    expect(opened).toBe(true);
    const at = new Date(s.history.at(-1)!.disruption.evaluation.at);
    expect(at.getUTCHours()).toBe(2);
    expect(at.getUTCMinutes()).toBe(0);
    expect(only().reasons).toContain('Underutilized');
  });
});
