// SPDX-License-Identifier: Apache-2.0
// KARPENTER.md#multi-node, KARPENTER.md#single-node: single-node consolidation checks a 3-minute deadline before each
// candidate, counts the timeout, and puts the NodePools it did not reach first next time;
// multi-node consolidation stops its binary search after 1 minute with the best batch so far.
// Elapsed time comes from the pass's clock, advanced here per simulation.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { KubeObject } from '../../src/core/cluster/types.js';
import { EventLog } from '../../src/core/observe/event-log.js';
import type { Candidate } from '../../src/control/reconciler/methods/candidates.js';
import type { MethodContext, MoveSimulation } from '../../src/control/reconciler/methods/method.js';
import { multiNode } from '../../src/control/reconciler/methods/multi-node.js';
import { singleNode } from '../../src/control/reconciler/methods/single-node.js';
import { SimulationPass } from '../../src/control/reconciler/simulation-pass.js';
import { Runtime } from '../../src/control/runtime/runtime.js';
import { makeNodeClaimAndNode, makeNodePool, makePod } from '../support/cluster-builder.js';
import { T0 } from './scenario.js';

const PIN = 'example.com/pinned';

/** `pools` NodePools of `perPool` nodes, each node holding one pod pinned to it: no move can succeed. */
function pinnedCluster(pools: number, perPool: number): KubeObject[] {
  const objects: KubeObject[] = [];
  for (let p = 0; p < pools; p++) {
    const name = `pool-${p}`;
    objects.push(makeNodePool(name, { consolidateAfter: '0s', budgets: [{ nodes: '100%' }] }));
    for (let i = 0; i < perPool; i++) {
      const { nodeClaim, node } = makeNodeClaimAndNode(name, i, { createdAt: '2026-11-23T11:00:00Z' });
      const pod = makePod(`app-${p}-${i}`, node.metadata.name, { requests: { cpu: '1', memory: '1Gi' } });
      // A label only this node carries, and no NodePool offers.
      node.metadata.labels![PIN] = node.metadata.name;
      pod.spec.nodeSelector = { [PIN]: node.metadata.name };
      objects.push(nodeClaim, node, pod);
    }
  }
  return objects;
}

async function methodContext(
  pools: number,
  perPool: number,
  advanceMs: number,
  simulate?: (c: readonly Candidate[]) => MoveSimulation,
) {
  const clock = new FakeClock(T0);
  const rt = new Runtime({ clock, objects: pinnedCluster(pools, perPool), policies: [] });
  const index = await rt.view.current();
  const evaluation = await rt.evaluator.evaluate(index, rt.policies, clock.now(), rt.state);
  const pass = new SimulationPass(index, rt.simulationEnv());
  const simulated: Candidate[][] = [];
  const timeouts: string[] = [];
  const unreachedPools = new Set<string>();
  const ctx: MethodContext = {
    now: clock.now(),
    index,
    evaluation,
    instanceTypes: rt.instanceTypes,
    events: new EventLog(clock),
    newId: () => 'cmd',
    clock,
    unreachedPools,
    timedOut: (type, message) => {
      timeouts.push(`${type}: ${message}`);
    },
    simulate: (c, consolidation) => {
      simulated.push([...c]);
      clock.advance(advanceMs);
      return simulate ? simulate(c) : pass.simulate(c, consolidation);
    },
  };
  return { ctx, clock, simulated, timeouts, unreachedPools };
}

describe('single-node consolidation deadline', () => {
  it(
    'gives up after 3 minutes, before the next candidate, and puts the pools it did not reach ' + 'first next time',
    async () => {
      const { ctx, simulated, timeouts, unreachedPools } = await methodContext(6, 2, 60_000);
      expect(singleNode.compute(ctx)).toEqual([]);
      // Checked before each candidate: at +0, +60, +120, +180 s still in time (not after the deadline), at +240 s over.
      expect(simulated).toHaveLength(4);
      expect(timeouts).toEqual([
        'single: abandoning single-node consolidation due to timeout after evaluating 4 candidates',
      ]);
      expect(simulated.map((c) => c[0].ref.nodePool)).toEqual(['pool-0', 'pool-1', 'pool-2', 'pool-3']);
      expect([...unreachedPools].sort()).toEqual(['pool-4', 'pool-5']);

      // The next pass starts with the pools the last one did not reach.
      simulated.length = 0;
      singleNode.compute({ ...ctx, clock: new FakeClock(T0 + 3_600_000) });
      expect(simulated.slice(0, 2).map((c) => c[0].ref.nodePool)).toEqual(['pool-4', 'pool-5']);
    },
  );

  it(
    'with a clock that does not move during the pass, visits every candidate and forgets ' + 'unreached pools',
    async () => {
      const { ctx, simulated, timeouts, unreachedPools } = await methodContext(6, 2, 0);
      unreachedPools.add('pool-5');
      expect(singleNode.compute(ctx)).toEqual([]);
      expect(simulated).toHaveLength(12);
      expect(simulated[0][0].ref.nodePool).toBe('pool-5');
      expect(timeouts).toEqual([]);
      expect(unreachedPools.size).toBe(0);
    },
  );
});

describe('multi-node consolidation time limit', () => {
  // Batches of up to 4 candidates can be deleted; the binary search over 10 candidates tries 6 (no), 3 (yes), 4 (yes),
  // 5 (no).
  const deletable = (c: readonly Candidate[]): MoveSimulation => ({ ok: c.length <= 4, replacements: [] });

  it('stops after 1 minute with the best batch found so far', async () => {
    const { ctx, simulated, timeouts } = await methodContext(1, 10, 40_000, deletable);
    const [cmd] = multiNode.compute(ctx);
    expect(simulated.map((c) => c.length)).toEqual([6, 3]);
    expect(cmd.candidates).toHaveLength(3);
    expect(timeouts).toEqual([
      'multi: stopping multi-node consolidation after timeout, returning last valid command of 3 candidates',
    ]);
  });

  it('finishes the search when the clock does not move', async () => {
    const { ctx, simulated, timeouts } = await methodContext(1, 10, 0, deletable);
    const [cmd] = multiNode.compute(ctx);
    expect(simulated.map((c) => c.length)).toEqual([6, 3, 4, 5]);
    expect(cmd.candidates).toHaveLength(4);
    expect(timeouts).toEqual([]);
  });
});

describe('the controller', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it(
    'counts consolidation timeouts in ' +
      'karpenter_voluntary_disruption_consolidation_timeouts_total and remembers unreached pools',
    async () => {
      const clock = new FakeClock(T0);
      const rt = new Runtime({ clock, objects: pinnedCluster(6, 2), policies: [] });
      const simulate = SimulationPass.prototype.simulate;
      // Every simulation takes a simulated minute.
      vi.spyOn(SimulationPass.prototype, 'simulate').mockImplementation(function (
        this: SimulationPass,
        c,
        consolidation,
      ) {
        clock.advance(60_000);
        return simulate.call(this, c, consolidation);
      });
      const before = rt.metrics.value('karpenter_voluntary_disruption_consolidation_timeouts_total', {
        consolidation_type: 'single',
      });
      await rt.tick();
      expect(before).toBe(0);
      expect(
        rt.metrics.value('karpenter_voluntary_disruption_consolidation_timeouts_total', {
          consolidation_type: 'single',
        }),
      ).toBe(1);
      expect(
        rt.metrics.value('karpenter_voluntary_disruption_consolidation_timeouts_total', {
          consolidation_type: 'multi',
        }),
      ).toBe(1);
      expect(rt.state.unreachedPools.size).toBeGreaterThan(0);
      // Not marked consolidated: the next reconcile simulates again.
      const sims = rt.disruptionSimulations;
      await rt.tick();
      expect(rt.disruptionSimulations).toBeGreaterThan(sims);
    },
  );
});
