// SPDX-License-Identifier: Apache-2.0
// The Balanced consolidation policy (KARPENTER.md#single-node, Karpenter v1.14): a move must save at
// least half as much (as a share of the pool's cost) as it disrupts (as a share of the pool's
// disruption cost): score = (savings / poolCost) / (moveDisruption / poolDisruption) ≥ 1/k, k = 2.
import type { ClusterIndex } from '../../../core/cluster/state.js';
import { nodePoolOf } from '../../../core/cluster/state.js';
import { toCandidate, type Candidate } from './candidates.js';
import type { Consolidation } from './consolidation.js';
import type { MethodContext } from './method.js';
import { byObject } from '../../../core/observe/recorder.js';

export const BALANCED_K = 2;

export interface BalancedScore {
  nodePool: string;
  score: number;
  savingsShare: number;
  disruptionShare: number;
}

/** Price and disruption cost of every node of a pool (candidates use their own figures). */
function poolTotals(index: ClusterIndex, pool: string, ctx: MethodContext): { cost: number; disruption: number } {
  let cost = 0;
  let disruption = 0;
  for (const sn of index.stateNodes) {
    if (!sn.node || nodePoolOf(sn) !== pool) continue;
    const c = toCandidate(sn, pool, ctx.instanceTypes);
    cost += c.ref.price;
    disruption += c.disruptionCost;
  }
  return { cost, disruption };
}

/** Scores for every Balanced pool the move touches (savings split by each pool's share of the source cost). */
export function balancedScores(
  ctx: MethodContext,
  candidates: readonly Candidate[],
  result: Consolidation,
): BalancedScore[] {
  if (result.kind === 'none') return [];
  const sourceCost = candidates.reduce((s, c) => s + c.ref.price, 0);
  const savings = sourceCost - (result.kind === 'replace' ? result.replacement.price : 0);
  const scores: BalancedScore[] = [];
  for (const pool of new Set(candidates.map((c) => c.ref.nodePool))) {
    const policy = ctx.policyFor?.(pool);
    if (policy?.consolidationPolicy !== 'Balanced') continue;
    const mine = candidates.filter((c) => c.ref.nodePool === pool);
    const poolSavings = sourceCost > 0 ? savings * (mine.reduce((s, c) => s + c.ref.price, 0) / sourceCost) : 0;
    const totals = poolTotals(ctx.index, pool, ctx);
    const moveDisruption = mine.reduce((s, c) => s + c.disruptionCost, 0);
    const savingsShare = totals.cost > 0 ? poolSavings / totals.cost : 0;
    const disruptionShare = totals.disruption > 0 ? moveDisruption / totals.disruption : 0;
    let score: number;
    if (poolSavings <= 0 || totals.cost === 0 || totals.disruption === 0) score = 0;
    else if (disruptionShare === 0) score = Infinity;
    else score = savingsShare / disruptionShare;
    scores.push({ nodePool: pool, score, savingsShare, disruptionShare });
  }
  return scores;
}

/** Every Balanced pool must approve; publishes Karpenter's ConsolidationApproved/Rejected wording. */
export function balancedApproves(ctx: MethodContext, candidates: readonly Candidate[], result: Consolidation): boolean {
  const threshold = 1 / BALANCED_K;
  for (const s of balancedScores(ctx, candidates, result)) {
    const approved = s.score >= threshold;
    for (const c of candidates.filter((x) => x.ref.nodePool === s.nodePool)) {
      const object = { kind: 'Node', name: c.ref.node };
      ctx.events.publish({
        type: 'Normal',
        reason: approved ? 'ConsolidationApproved' : 'ConsolidationRejected',
        message:
          `score ${s.score.toFixed(2)} ${approved ? '>=' : '<'} threshold ${threshold.toFixed(2)} ` +
          `(k: ${BALANCED_K}, savings ${(100 * s.savingsShare).toFixed(1)}%, ` +
          `disruption ${(100 * s.disruptionShare).toFixed(1)}%)`,
        object,
        // Karpenter dedupes an approval on the object alone (its score may change), a rejection on its message.
        ...(approved && { dedupe: byObject(object) }),
      });
    }
    if (!approved) return false;
  }
  return true;
}
