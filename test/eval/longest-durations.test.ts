// SPDX-License-Identifier: Apache-2.0
// Issue 13, defect 1: what `kpol check` accepts evaluates. The longest durations the checker
// takes (Go's time.Duration, as Karpenter holds them) evaluate at any instant without an
// invalid date; one day more is a located error instead of a controller that fails every tick.
import { describe, expect, it } from 'vitest';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { readCluster } from '../../src/edge/cli/shared/cluster-input.js';
import { loadPolicies } from '../../src/core/policy/load.js';

const DEMO = new URL('../../rules/examples/demo/cluster.yaml', import.meta.url).pathname;

describe('the longest durations check accepts', () => {
  it('evaluate at any instant', async () => {
    const text = `policy p for nodepool default, gpu {
  consolidate when empty or underutilized after 106751d
  expire after 106751d gracefully
  budget 1 for Expired
  budget 0 during "@daily" for 2562047h
  pods where app = "x" disruptable never during "@weekly" for 7d
}
`;
    const loaded = loadPolicies([{ fileName: 'p.kpol', text }]);
    expect(loaded.files[0].diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const index = readCluster(DEMO);
    for (const at of ['1970-01-01T00:00:00Z', '2026-11-25T12:00:00Z', '2262-01-01T00:00:00Z']) {
      const out = await new Evaluator().evaluate(index, loaded.policies, Date.parse(at));
      expect(Object.keys(out.nodePools).sort()).toEqual(['default', 'gpu']);
    }
    expect(loadPolicies([{ fileName: 'p.kpol', text: text.replace('after 106751d', 'after 106752d') }]).ok).toBe(false);
  });
});
