// SPDX-License-Identifier: Apache-2.0
// Multi-node consolidation (KARPENTER.md#multi-node): the longest prefix of candidates (in savings
// order, within budgets, at most 100) that can all go at once, found by binary search.
import type { Candidate } from './candidates.js';
import { announceMultiNode, balancedApproves } from './balanced.js';
import { computeConsolidation, type Consolidation } from './consolidation.js';
import type { InstanceType } from '../../../world/cloud/provider.js';
import { LABEL_INSTANCE_TYPE } from '../../../core/cluster/types.js';
import { filterOutSameInstanceType } from '../../../world/scheduling/pricing.js';
import { command, withinBudgetBySavings, type Method, type MethodContext } from './method.js';
import { deadline, MULTI_NODE_TIMEOUT_MS } from './timeouts.js';

const MAX_CANDIDATES = 100;

export const multiNode: Method = {
  name: 'MultiNodeConsolidation',
  reason: 'Underutilized',
  consolidationType: 'multi',
  validation: 'exact',
  publishesFilterEvents: true,
  why:
    'Several underutilized nodes replaced at once save more than one at a time; the batch must ' +
    'hold exactly after validation.',
  compute(ctx) {
    const kept = withinBudgetBySavings(ctx, 'Underutilized');
    if (kept.length < 2) return [];
    const max = Math.min(kept.length, MAX_CANDIDATES);
    let lo = 1;
    let hi = kept.length <= max ? kept.length - 1 : max;
    let best: { batch: Candidate[]; result: Consolidation } | undefined;
    const expired = deadline(ctx, MULTI_NODE_TIMEOUT_MS);
    while (lo <= hi) {
      if (expired()) {
        ctx.timedOut?.(
          'multi',
          best
            ? `stopping multi-node consolidation after timeout, returning last valid command ` +
                `of ${best.batch.length} candidates`
            : `failed to find a multi-node consolidation after timeout, last considered batch ` +
                `had ${Math.floor((lo + hi) / 2) + 1}`,
        );
        break;
      }
      const mid = Math.floor((lo + hi) / 2);
      const batch = kept.slice(0, mid + 1);
      // More than one replacement, or a pod left without a place, is no move: the simulation stops there.
      const result = computeConsolidation(ctx, batch, { replacements: 1 });
      if (result.kind !== 'none' && !replacesWithSameType(ctx, batch, result) && balancedApproves(ctx, batch, result)) {
        best = { batch, result };
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (!best) return [];
    const { batch, result } = best;
    announceMultiNode(ctx, batch, result);
    return [
      command(
        ctx,
        this,
        batch,
        result.kind === 'replace' ? [result.replacement] : [],
        result.kind === 'none' ? [] : result.destinations,
      ),
    ];
  },
};

/**
 * KARPENTER.md#multi-node step 3 (filterOutSameInstanceType); true when no replacement type is left, i.e. deleting is
 * the better move.
 */
function replacesWithSameType(ctx: MethodContext, batch: Candidate[], result: Consolidation): boolean {
  if (result.kind !== 'replace') return false;
  const types = result.replacement.instanceTypes
    .map((t) => ctx.instanceTypes.get(t))
    .filter((t): t is InstanceType => t !== undefined);
  const priced = batch.map((c) => ({
    instanceType: c.sn.node?.metadata.labels?.[LABEL_INSTANCE_TYPE],
    price: c.ref.price,
  }));
  result.replacement.instanceTypes = filterOutSameInstanceType(types, priced, result.replacement.requirements).map(
    (t) => t.name,
  );
  return result.replacement.instanceTypes.length === 0;
}
