// SPDX-License-Identifier: Apache-2.0
// KARPENTER.md#consolidated-cache: once consolidation found nothing to do, it is not recomputed until the
// cluster (or a node's verdict) changes, or 5 minutes pass — unless a reused evaluation proves
// nothing moved in those 5 minutes.
import { describe, expect, it } from 'vitest';
import { Scenario, policies, pool, replicaSet } from './scenario.js';

describe('consolidated state', () => {
  it('skips recomputing until something changes or 5 minutes pass', async () => {
    // One node of the cheapest allowed type, busy: consolidation can neither delete nor replace it.
    const s = new Scenario(
      [pool('default', ['m5.large']), replicaSet('web', 1, { cpu: '1' })],
      policies('policy p for nodepool default {\n  consolidate when empty or underutilized after 0s\n}\n'),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 1, 10 * 60_000)).toBe(true);
    await s.until(() => false, 3 * 60_000);
    const settled = s.rt.disruptionSimulations;
    await s.until(() => false, 2 * 60_000, 10_000); // 12 quiet ticks, well inside 5 minutes
    expect(s.rt.disruptionSimulations - settled).toBeLessThanOrEqual(1);
    const quiet = s.rt.disruptionSimulations;
    await s.rt.cluster.patch({ kind: 'ReplicaSet', name: 'web', namespace: 'default' }, { spec: { replicas: 2 } });
    await s.until(async () => (await s.runningPods()).length === 2, 5 * 60_000);
    await s.tick();
    expect(s.rt.disruptionSimulations).toBeGreaterThan(quiet); // a change: consolidation looks again
    const afterChange = s.rt.disruptionSimulations;
    // The evaluation is reused across these quiet minutes, which proves nothing the methods read
    // moved: Karpenter's 5-minute refresh would find nothing again and is skipped.
    await s.until(() => false, 6 * 60_000, 10_000);
    expect(s.rt.disruptionSimulations).toBe(afterChange);
    // Without that proof (evaluations not reused), the forced 5-minute refresh runs.
    s.rt.evaluator.reuse = false;
    await s.until(() => false, 6 * 60_000, 10_000);
    expect(s.rt.disruptionSimulations).toBeGreaterThan(afterChange);
  });
});
