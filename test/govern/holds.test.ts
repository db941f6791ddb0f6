// SPDX-License-Identifier: Apache-2.0
// kpol-only holds in the evaluation (what govern mode turns into Karpenter's node annotation),
// present whether or not the node is a candidate now, and the reasons that annotation would block
// beyond what the policy says — shown by `kpol eval` as text and JSON.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { KubeObject } from '../../src/core/cluster/types.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { renderText } from '../../src/core/eval/output.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { ClusterView } from '../../src/control/reconciler/cluster-view.js';
import { makeNodeClaimAndNode, makeNodePool, makePod } from '../support/cluster-builder.js';

const T0 = Date.parse('2026-08-21T10:00:00Z'); // a Friday, inside 09:00–17:00 UTC

async function evaluate(policy: string) {
  const loaded = loadPolicies([{ fileName: 'p.kpol', text: policy }]);
  expect(loaded.ok).toBe(true);
  const objects: KubeObject[] = [makeNodePool('default')];
  for (let i = 0; i < 3; i++) {
    const { nodeClaim, node } = makeNodeClaimAndNode('default', i, { zone: i === 0 ? 'us-west-2a' : 'us-west-2b' });
    objects.push(nodeClaim, node);
    objects.push(
      makePod(`pod-${i}`, node.metadata.name, {
        labels: { app: i === 2 ? 'batch' : 'web' },
        startTime: '2026-08-21T00:00:00Z',
      }),
    );
  }
  const clock = new FakeClock(T0);
  const index = await new ClusterView(new MemoryCluster(clock, objects)).current();
  return new Evaluator().evaluate(index, loaded.policies, T0);
}

describe('holds', () => {
  it(
    'a maintenance window of Underutilized holds its nodes, and the node annotation would also ' +
      'block Empty and Drifted',
    async () => {
      const out = await evaluate(`policy p for nodepool default {
  window zone-a blocks Underutilized on nodes where topology.kubernetes.io/zone in (us-west-2a) during "0 9 * \
* 1-5" for 8h
}`);
      const [n0, n1] = Object.keys(out.nodes).sort();
      expect(out.nodes[n0].holds).toEqual([
        {
          code: 'MaintenanceWindow',
          message: 'maintenance window zone-a blocks Underutilized on this node',
          reasons: ['Underutilized'],
        },
      ]);
      expect(out.nodes[n0].overblocks).toEqual(['Empty', 'Drifted']);
      expect(out.nodes[n1].holds).toBeUndefined();
      expect(renderText(out)).toContain('the annotation also blocks Empty, Drifted, which the policy allows');
    },
  );

  it('a pod window holds every reason (no over-block) and is present though the node is no candidate', async () => {
    const out = await evaluate(`policy p for nodepool default {
  pods where app = "batch" disruptable only during "0 2 * * *" for 1h
}`);
    const held = Object.values(out.nodes).filter((n) => n.holds);
    expect(held).toHaveLength(1);
    expect(held[0].candidate).toBe(false);
    expect(held[0].holds![0].code).toBe('PodDisruptionWindow');
    expect(held[0].holds![0].reasons).toEqual(['Empty', 'Drifted', 'Underutilized']);
    expect(held[0].overblocks).toBeUndefined();
  });
});

describe('label keys named like Object members (issue 13, defect 3)', () => {
  it.each(['constructor', 'toString', 'valueOf', 'hasOwnProperty'])(
    'a maintenance window on nodes where %s exists holds none of the nodes without that label',
    async (key) => {
      const out = await evaluate(`policy p for nodepool default {
  window w blocks Underutilized on nodes where ${key} exists
}`);
      expect(Object.values(out.nodes).filter((n) => n.holds)).toEqual([]);
    },
  );
});
