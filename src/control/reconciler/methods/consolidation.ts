// SPDX-License-Identifier: Apache-2.0
// computeConsolidation (KARPENTER.md#consolidation-decision): can these candidates go — deleted outright, or
// replaced by one cheaper NodeClaim? Shared by multi- and single-node consolidation.
import { cheapestOffering } from '../../../world/cloud/catalog.js';
import type { InstanceType } from '../../../world/cloud/provider.js';
import type { NodeSelectorRequirement } from '../../../core/cluster/types.js';
import {
  allSpot,
  allowsCapacityType,
  filterByPrice,
  spotToSpot,
  withCapacityType,
} from '../../../world/scheduling/pricing.js';
import { toNodeSelectorRequirements } from '../../../core/cluster/requirements.js';
import type { Candidate } from './candidates.js';
import { commandForNode, estimatedSavings, nodeAndClaim, type Replacement } from './command.js';
import { consolidationCandidate } from '../../../core/observe/event-reasons.js';
import type { Enough, MethodContext } from './method.js';

/** A move, with the existing nodes its simulation placed pods on (nominated when it starts). */
export type Consolidation =
  | { kind: 'delete'; destinations?: string[] }
  | { kind: 'replace'; replacement: Replacement; destinations?: string[] }
  /** `stopped`: the simulation stopped once it knew (Enough), so `why` may not be the whole run's. */
  | { kind: 'none'; why: string; stopped?: true };

/** Karpenter's SpotToSpotConsolidation feature gate (default off). */
export const SPOT_TO_SPOT_CONSOLIDATION = false;

/**
 * `enough`: a caller that reads only whether the outcome is a move lets the simulation stop once
 * that is decided — at the first pod left without a place, or past `enough.replacements` new
 * claims — and the outcome is then `stopped`, its `why` naming only the pods met so far. Without
 * it the simulation runs to its end and `why` is Karpenter's whole sentence. A move is announced
 * as Karpenter announces it: `ConsolidationCandidate` on each candidate's Node and NodeClaim.
 */
export function computeConsolidation(
  ctx: MethodContext,
  candidates: readonly Candidate[],
  enough?: Enough,
): Consolidation {
  const result = decideConsolidation(ctx, candidates, enough);
  if (result.kind !== 'none') {
    const refs = candidates.map((c) => c.ref);
    const replacements = result.kind === 'replace' ? [result.replacement] : [];
    const savings = estimatedSavings(refs, replacements);
    for (const c of refs) {
      const command = commandForNode(refs, replacements.length, c.node);
      for (const object of nodeAndClaim(c)) ctx.events.publish(consolidationCandidate(object, command, savings));
    }
  }
  return result;
}

/** computeConsolidation without its events: validation simulates again, announcing nothing. */
export function decideConsolidation(
  ctx: MethodContext,
  candidates: readonly Candidate[],
  enough?: Enough,
): Consolidation {
  const sim = ctx.simulate(candidates, true, enough);
  const none = (why: string): Consolidation =>
    sim.stopped ? { kind: 'none', why, stopped: true } : { kind: 'none', why };
  if (!sim.ok) return none(sim.error ?? 'not all pods would schedule');
  const destinations = sim.destinations ?? [];
  if (sim.replacements.length === 0) return { kind: 'delete', destinations };
  if (sim.replacements.length > 1) return none(`Can't remove without creating ${sim.replacements.length} candidates`);
  const r = sim.replacements[0];
  const candidatePrice = candidates.reduce((s, c) => s + c.ref.price, 0);
  const types = r.instanceTypes.map((t) => ctx.instanceTypes.get(t)).filter((t): t is InstanceType => t !== undefined);
  const replace = (its: readonly InstanceType[], requirements: NodeSelectorRequirement[]): Consolidation => ({
    kind: 'replace',
    destinations,
    replacement: {
      ...r,
      requirements,
      instanceTypes: its.map((t) => t.name),
      price: Math.min(...its.map((t) => cheapestOffering(t, requirements)?.price ?? Infinity)),
    },
  });
  if (allSpot(candidates.map((c) => c.ref.capacityType)) && allowsCapacityType(r.requirements, 'spot')) {
    const s = spotToSpot(types, r.requirements, candidatePrice, {
      enabled: SPOT_TO_SPOT_CONSOLIDATION,
      singleNode: candidates.length === 1,
    });
    return s.ok ? replace(s.instanceTypes, toNodeSelectorRequirements(s.requirements)) : none(s.reason);
  }
  // Only offerings the replacement could launch on (its capacity types and zones) count.
  const cheaper = filterByPrice(types, candidatePrice, r.requirements);
  if (cheaper.length === 0) return none("Can't replace with a cheaper node");
  // A replacement that may be spot or on-demand is made spot, so a spot shortage cannot launch a dearer on-demand node.
  const both = allowsCapacityType(r.requirements, 'spot') && allowsCapacityType(r.requirements, 'on-demand');
  return replace(cheaper, both ? toNodeSelectorRequirements(withCapacityType(r.requirements, 'spot')) : r.requirements);
}
