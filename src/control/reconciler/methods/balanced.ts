// SPDX-License-Identifier: Apache-2.0
// The Balanced consolidation policy (KARPENTER.md#single-node, Karpenter v1.14): a move must save at
// least half as much (as a share of the pool's cost) as it disrupts (as a share of the pool's
// disruption cost): score = (savings / poolCost) / (moveDisruption / poolDisruption) ≥ 1/k, k = 2.
import type { ClusterIndex } from '../../../core/cluster/state.js';
import { nodePoolOf } from '../../../core/cluster/state.js';
import { toCandidate, type Candidate } from './candidates.js';
import type { Consolidation } from './consolidation.js';
import type { MethodContext } from './method.js';
import { involved } from '../../../core/observe/recorder.js';
import { consolidationApproved } from '../../../core/observe/event-reasons.js';
import { nodeAndClaim } from './command.js';

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

/** Karpenter's words for an approved score. */
const approval = (s: BalancedScore): string =>
  `score ${s.score.toFixed(2)} >= threshold ${(1 / BALANCED_K).toFixed(2)} (k: ${BALANCED_K}, ` +
  `savings ${(100 * s.savingsShare).toFixed(1)}%, disruption ${(100 * s.disruptionShare).toFixed(1)}%)`;

/**
 * Every Balanced pool must approve. An approved single-node move is recorded as
 * `ConsolidationApproved` on the candidate's Node and NodeClaim; a rejection is not recorded
 * (Karpenter counts it in metrics only: rejections are many and would bury the approvals).
 */
export function balancedApproves(ctx: MethodContext, candidates: readonly Candidate[], result: Consolidation): boolean {
  const scores = balancedScores(ctx, candidates, result);
  if (!scores.every((s) => s.score >= 1 / BALANCED_K)) return false;
  if (candidates.length === 1)
    for (const s of scores)
      for (const object of nodeAndClaim(candidates[0].ref))
        ctx.events.publish(consolidationApproved(object, approval(s)));
  return true;
}

/** The multi-node command found: `ConsolidationApproved` on each Balanced pool it touches. */
export function announceMultiNode(ctx: MethodContext, candidates: readonly Candidate[], result: Consolidation): void {
  for (const s of balancedScores(ctx, candidates, result)) {
    const pool = ctx.index.nodePoolsByName.get(s.nodePool);
    ctx.events.publish(
      consolidationApproved(pool ? involved(pool) : { kind: 'NodePool', name: s.nodePool }, approval(s)),
    );
  }
}
