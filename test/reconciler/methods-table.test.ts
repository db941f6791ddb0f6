// SPDX-License-Identifier: Apache-2.0
// The disruption methods as a table (src/control/reconciler/methods/): Karpenter's order, each
// method's hooks, and a reason for each. The loop reads these hooks instead of asking which method
// it runs, so a wrong hook changes behaviour: these tests pin them.
import { describe, expect, it } from 'vitest';
import { METHODS } from '../../src/control/reconciler/disruption-controller.js';

describe('the methods table', () => {
  it("runs in Karpenter's order, kpol's graceful expiration after drift", () => {
    expect(METHODS.map((m) => m.name)).toEqual([
      'Emptiness',
      'Drift',
      'Expiration',
      'MultiNodeConsolidation',
      'SingleNodeConsolidation',
    ]);
  });

  it('validates emptiness by shrinking, consolidation exactly, drift and expiration not at all', () => {
    expect(Object.fromEntries(METHODS.map((m) => [m.name, m.validation]))).toEqual({
      Emptiness: 'shrink',
      Drift: 'none',
      Expiration: 'none',
      MultiNodeConsolidation: 'exact',
      SingleNodeConsolidation: 'exact',
    });
  });

  it("publishes each consolidation reason's filter events from exactly one method", () => {
    const publishers = METHODS.filter((m) => m.publishesFilterEvents).map((m) => m.reason);
    expect(publishers.sort()).toEqual(['Empty', 'Underutilized']);
  });

  it('says why for every method', () => {
    for (const m of METHODS) expect(m.why.length, m.name).toBeGreaterThan(40);
  });
});
