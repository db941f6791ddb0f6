// SPDX-License-Identifier: Apache-2.0
// A reason's candidates are followed from an earlier digest's and index's lists where the verdicts
// and machines that changed are few (methods/candidates.ts `followed`, `savingsOrder`): over a
// busy simulated run (drift replacing machines, consolidation removing them, pods moving), every
// tick's count, list and savings order equal what building them from scratch gives — the same
// names in the same order, each the candidate of the machine the index holds now.
import { describe, expect, it } from 'vitest';
import type { Reason } from '../../rules/model.js';
import type { ClusterIndex } from '../../src/core/cluster/state.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import type { EvalOutput } from '../../src/core/eval/output.js';
import {
  bySavingsRatio,
  candidatesBySavings,
  candidatesFor,
  countCandidates,
  toCandidate,
  type Candidate,
} from '../../src/control/reconciler/methods/candidates.js';
import { digestOf } from '../../src/control/reconciler/methods/verdict-digest.js';
import { simulate } from '../../src/edge/simulate/simulated-run.js';
import type { InstanceType } from '../../src/world/cloud/provider.js';
import { generateCluster } from '../bench/generate.js';

const T0 = Date.parse('2026-11-23T12:00:00Z');
const REASONS: readonly Reason[] = ['Underutilized', 'Drifted', 'Empty'];

/** The candidates as built from nothing: the digest's names whose machine has a NodeClaim and a providerID. */
function fromScratch(reason: Reason, ev: EvalOutput, index: ClusterIndex, types: ReadonlyMap<string, InstanceType>) {
  const out: Candidate[] = [];
  for (const name of digestOf(ev).byReason.get(reason) ?? []) {
    const sn = index.nodesByName.get(name);
    const actionable = sn?.nodeClaim !== undefined && sn.providerID !== undefined;
    if (actionable) out.push(toCandidate(sn, ev.nodes[name].nodePool, types));
  }
  return out;
}

/**
 * Asks for every reason's candidates (a different first question each tick; the savings order
 * unless told not to), each against a build from scratch.
 */
function check(
  ev: EvalOutput,
  index: ClusterIndex,
  types: ReadonlyMap<string, InstanceType>,
  tick: number,
  savings = true,
): number {
  let compared = 0;
  const order = [...REASONS.slice(tick % 3), ...REASONS.slice(0, tick % 3)];
  for (const [i, reason] of order.entries()) {
    const want = fromScratch(reason, ev, index, types);
    if ((tick + i) % 2 === 0) expect(countCandidates(reason, ev, index)).toBe(want.length);
    const bySavings = savings ? candidatesBySavings(reason, ev, index, types) : undefined;
    const listed = candidatesFor(reason, ev, index, types);
    expect(shown(listed)).toEqual(shown(want));
    listed.forEach((c, k) => expect(c.sn).toBe(want[k].sn));
    if (bySavings) expect(shown(bySavings)).toEqual(shown(want.slice().sort(bySavingsRatio)));
    expect(countCandidates(reason, ev, index)).toBe(want.length);
    compared += want.length;
  }
  return compared;
}

const shown = (cs: readonly Candidate[]) =>
  cs.map((c) => `${c.ref.node} ${c.ref.nodePool} ${c.ref.price} ${c.ref.pods} ${c.disruptionCost}`);

describe('candidates followed from the last tick', () => {
  it('equal candidates built from scratch at every tick of a busy run', async () => {
    const mine = new Evaluator();
    let last: EvalOutput | undefined;
    let ticks = 0;
    let compared = 0;
    await simulate({
      objects: generateCluster({ pools: 3, nodes: 90, pods: 900, replicaSets: true }),
      policies: [],
      fromMs: T0,
      forMs: 5 * 3_600_000,
      stepMs: 60_000,
      onTick: async (rt) => {
        const index = await rt.view.current();
        // The last tick's verdicts on this tick's index first (as validation reads a command made
        // a tick ago): only the machines changed. Every other tick without the savings order, as
        // validation asks: the next order is then followed from the one two memos back.
        if (last) check(last, index, rt.instanceTypes, ticks, ticks % 2 === 0);
        const ev = await mine.evaluate(index, [], rt.clock.now(), rt.state);
        digestOf(ev, last);
        last = ev;
        compared += check(ev, index, rt.instanceTypes, ticks);
        ticks++;
      },
    });
    expect(ticks).toBe(300);
    expect(compared).toBeGreaterThan(1000);
  }, 120_000);
});
