// SPDX-License-Identifier: Apache-2.0
// Govern mode on a tick whose evaluation fails: the pools of the policy that cannot be evaluated
// get a budget of 0 for every reason at once (not only at the renewal instant), other policies'
// pools are left as they were, the write is not repeated every tick, and the next good tick
// writes the policy's own budgets back. Evaluation fails through the Governor's evaluator seam.
import { describe, expect, it } from 'vitest';
import type { PolicySpec } from '../../rules/model.js';
import { FakeClock } from '../../src/core/clock.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { ClusterIndex } from '../../src/core/cluster/state.js';
import type { KubeObject, NodePool } from '../../src/core/cluster/types.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import type { EvalOutput } from '../../src/core/eval/output.js';
import type { DisruptionState } from '../../src/core/facts/node-facts.js';
import { Governor } from '../../src/control/govern/governor.js';
import { createLogger } from '../../src/core/observe/logger.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { TickHealth } from '../../src/control/runtime/tick-health.js';
import { RecordingClient } from '../deploy/api-inventory.js';
import { makeNodeClaimAndNode, makeNodePool } from '../support/cluster-builder.js';

const T0 = Date.parse('2026-08-21T10:00:00Z');
const POLICIES = 'policy p for nodepool default {\n  budget 2\n}\npolicy q for nodepool other {\n  budget 3\n}\n';

class SwitchableEvaluator extends Evaluator {
  static failing = new Set<string>();
  override async evaluate(
    index: ClusterIndex,
    policies: readonly PolicySpec[],
    nowMs: number,
    state?: DisruptionState,
  ): Promise<EvalOutput> {
    if (policies.some((p) => SwitchableEvaluator.failing.has(p.name))) throw new RangeError('Invalid time value');
    return super.evaluate(index, policies, nowMs, state);
  }
}

describe('govern mode on a failed tick', () => {
  it("blocks the failing policy's pools at once, leaves the others, writes once, and recovers", async () => {
    SwitchableEvaluator.failing = new Set();
    const clock = new FakeClock(T0);
    const objects: KubeObject[] = [makeNodePool('default'), makeNodePool('other')];
    for (const [pool, i] of [
      ['default', 0],
      ['other', 1],
    ] as const) {
      const { nodeClaim, node } = makeNodeClaimAndNode(pool, i);
      objects.push(nodeClaim, node);
    }
    const raw = new MemoryCluster(clock, objects);
    const governor = new Governor({
      client: new RecordingClient(raw),
      clock,
      logger: createLogger({ clock, sink: () => {} }),
      failClosedAfterMs: 120_000,
      dryRun: false,
      newEvaluator: () => new SwitchableEvaluator(),
    });
    governor.policies = loadPolicies([{ fileName: 'p.kpol', text: POLICIES }]).policies;
    const budgets = async (name: string) =>
      (await raw.get<NodePool>({ kind: 'NodePool', name }))!.spec.disruption?.budgets;
    const decision = async (name: string) =>
      JSON.parse((await raw.get<NodePool>({ kind: 'NodePool', name }))!.metadata.annotations!['kpol.dev/decision']) as {
        allowed: Record<string, number>;
      };

    await governor.tick();
    const good = { default: await budgets('default'), other: await budgets('other') };
    expect(good.default?.[0]).toMatchObject({ nodes: '2' });
    expect(good.other?.[0]).toMatchObject({ nodes: '3' });

    SwitchableEvaluator.failing = new Set(['p']);
    clock.advance(1000);
    await expect(governor.tick()).rejects.toThrow('Invalid time value');
    expect(await budgets('default')).toEqual([{ nodes: '0' }]);
    expect(Object.values((await decision('default')).allowed)).toEqual([0, 0, 0]);
    expect(await budgets('other')).toEqual(good.other); // q still evaluates: its pool is not touched
    expect(governor.events.list({ reason: 'KpolFailedClosed' }).map((e) => e.object.name)).toEqual(['default']);
    const version = (await raw.get<NodePool>({ kind: 'NodePool', name: 'default' }))!.metadata.resourceVersion;
    clock.advance(1000);
    await expect(governor.tick()).rejects.toThrow('Invalid time value');
    // Written once: the second failed tick finds the pool already blocked.
    expect((await raw.get<NodePool>({ kind: 'NodePool', name: 'default' }))!.metadata.resourceVersion).toBe(version);

    // The failed ticks are counted on govern mode's own registry (as ClusterServices does it).
    const health = new TickHealth(governor.metrics);
    health.failed('Invalid time value');
    expect(governor.metrics.value('kpol_tick_failures_total')).toBe(1);

    SwitchableEvaluator.failing = new Set();
    clock.advance(1000);
    await governor.tick();
    expect((await budgets('default'))?.[0]).toMatchObject({ nodes: '2' });
  });
});
