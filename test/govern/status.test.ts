// SPDX-License-Identifier: Apache-2.0
// The status page in govern mode: allowed disruptions per governed pool, kpol's writes as
// decisions, its events, and — where a node hold (Karpenter's node annotation) blocks more than
// the policy says — a row that says so.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { KubeObject } from '../../src/core/cluster/types.js';
import { Governor } from '../../src/control/govern/governor.js';
import { GovernStatus } from '../../src/control/govern/govern-status.js';
import { createLogger } from '../../src/core/observe/logger.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { RecordingClient } from '../deploy/api-inventory.js';
import { makeNodeClaimAndNode, makeNodePool } from '../support/cluster-builder.js';

const T0 = Date.parse('2026-08-21T10:00:00Z'); // a Friday, inside 09:00–17:00 UTC

describe('govern status', () => {
  it('shows the allowance, the writes, the events and what a hold over-blocks', async () => {
    const clock = new FakeClock(T0);
    const objects: KubeObject[] = [makeNodePool('default', { budgets: [{ nodes: '10%' }] })];
    for (let i = 0; i < 2; i++) {
      const { nodeClaim, node } = makeNodeClaimAndNode('default', i, { zone: i === 0 ? 'us-west-2a' : 'us-west-2b' });
      objects.push(nodeClaim, node);
    }
    const client = new RecordingClient(new MemoryCluster(clock, objects));
    const governor = new Governor({
      client,
      clock,
      logger: createLogger({ clock, sink: () => {} }),
      failClosedAfterMs: 120_000,
      dryRun: false,
    });
    governor.policies = loadPolicies([
      {
        fileName: 'p.kpol',
        text: `policy p for nodepool default {
  budget 1 for Drifted
  window zone-a blocks Underutilized on nodes where topology.kubernetes.io/zone in (us-west-2a) during "0 9 * \
* 1-5" for 8h
}
`,
      },
    ]).policies;
    const status = new GovernStatus(governor, clock);
    expect(status.ready()).toBe(false);
    status.record(await governor.tick());
    expect(status.ready()).toBe(true);
    const view = await status.status();
    expect(view.nodePools.default).toMatchObject({ policy: 'p', nodes: 2, allowed: { Drifted: 1 } });
    expect(view.decisions.map((d) => d.method)).toEqual(['govern: govern', 'govern: hold']);
    expect(view.events.map((e) => e.reason).sort()).toEqual(['KpolGoverning', 'KpolHeld']);
    const held = view.nodes.find((n) => n.blocked.some((b) => b.code === 'GovernHoldOverblocks'))!;
    expect(held.blocked.at(-1)!.message).toBe(
      'kpol holds this node with karpenter.sh/do-not-disrupt, which also blocks Empty, Drifted ' +
        '(the policy allows them)',
    );
    expect(view.nodes.filter((n) => n.blocked.some((b) => b.code === 'GovernHoldOverblocks'))).toHaveLength(1);
  });
});
