// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { makeNodePool } from '../support/cluster-builder.js';
import { Scenario, replicaSet } from './scenario.js';

describe('the embedded cluster comes up', () => {
  it('pending pods get NodeClaims, the agent launches and registers nodes, pods run', async () => {
    const s = new Scenario([makeNodePool('default', { consolidateAfter: '5m' }), replicaSet('web', 6)]);
    const ok = await s.until(async () => (await s.runningPods()).length === 6, 10 * 60_000);
    expect(ok).toBe(true);
    const nodes = await s.nodes();
    expect(nodes.length).toBeGreaterThan(0);
    for (const n of nodes) expect(n.metadata.labels?.['karpenter.sh/initialized']).toBe('true');
    expect((await s.nodeClaims()).length).toBe(nodes.length);
  });
});
