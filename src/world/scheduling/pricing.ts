// SPDX-License-Identifier: Apache-2.0
// Price filters for consolidation (KARPENTER.md#consolidation-decision, KARPENTER.md#multi-node): the strict price
// filter, spot-to-spot
// and "same instance type" filtering. Pure; the consolidation methods compose them. Offering
// prices themselves (cheapest, worst launch price, order by price) are src/world/cloud/catalog.ts.
import { worstLaunchPrice } from '../cloud/catalog.js';
import type { CapacityType, InstanceType } from '../cloud/provider.js';
import { LABEL_CAPACITY_TYPE, type NodeSelectorRequirement } from '../../core/cluster/types.js';
import { offeringFilter, sortByPrice } from './instance-types.js';
import {
  allowsLabel,
  intersect,
  requirementsFromLabels,
  requirementsOf,
  type Requirements,
} from '../../core/cluster/requirements.js';

export type RequirementsLike = Requirements | readonly NodeSelectorRequirement[];

const asRequirements = (r: RequirementsLike): Requirements =>
  Array.isArray(r) ? requirementsOf(r as NodeSelectorRequirement[]) : (r as Requirements);

/** Types whose worst launch price is strictly below `candidatePrice` (order kept). */
export function filterByPrice(
  types: readonly InstanceType[],
  candidatePrice: number,
  requirements: RequirementsLike = [],
): InstanceType[] {
  const allowed = offeringFilter(asRequirements(requirements));
  return types.filter((it) => worstLaunchPrice(it, allowed) < candidatePrice);
}

/** Whether the requirements leave the capacity type open to `ct`. */
export function allowsCapacityType(requirements: RequirementsLike, ct: CapacityType): boolean {
  return allowsLabel(asRequirements(requirements), LABEL_CAPACITY_TYPE, ct);
}

/** The requirements narrowed to one capacity type ("force spot", "restrict to spot"). */
export function withCapacityType(requirements: RequirementsLike, ct: CapacityType): Requirements {
  return intersect(asRequirements(requirements), requirementsFromLabels({ [LABEL_CAPACITY_TYPE]: ct }));
}

/** Every candidate runs on spot (by its `karpenter.sh/capacity-type`). */
export const allSpot = (capacityTypes: readonly (string | undefined)[]): boolean =>
  capacityTypes.length > 0 && capacityTypes.every((c) => c === 'spot');

export const SPOT_TO_SPOT_MIN_CHEAPER_TYPES = 15;

export type SpotToSpotResult =
  { ok: true; requirements: Requirements; instanceTypes: InstanceType[] } | { ok: false; reason: string };

/**
 * The spot-to-spot path of `computeConsolidation`: force spot, keep types cheaper than the
 * candidates; single-node moves need 15 cheaper types and launch from the 15 cheapest.
 */
export function spotToSpot(
  types: readonly InstanceType[],
  requirements: RequirementsLike,
  candidatePrice: number,
  opts: { enabled: boolean; singleNode: boolean },
): SpotToSpotResult {
  if (!opts.enabled)
    return { ok: false, reason: "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node" };
  const spot = withCapacityType(requirements, 'spot');
  const cheaper = filterByPrice(sortByPrice(types, spot), candidatePrice, spot);
  if (cheaper.length === 0) return { ok: false, reason: "Can't replace with a cheaper node" };
  if (!opts.singleNode) return { ok: true, requirements: spot, instanceTypes: cheaper };
  if (cheaper.length < SPOT_TO_SPOT_MIN_CHEAPER_TYPES) {
    return {
      ok: false,
      reason:
        `SpotToSpotConsolidation requires ${SPOT_TO_SPOT_MIN_CHEAPER_TYPES} cheaper instance type ` +
        `options than the current candidate to consolidate, got ${cheaper.length}`,
    };
  }
  return { ok: true, requirements: spot, instanceTypes: cheaper.slice(0, SPOT_TO_SPOT_MIN_CHEAPER_TYPES) };
}

/** What `filterOutSameInstanceType` needs of a candidate. */
export interface PricedCandidate {
  instanceType?: string;
  price: number;
}

/**
 * KARPENTER.md#multi-node step 3: replacing several nodes by one of a type some of them already run only makes
 * sense if it is cheaper than the cheapest such candidate; otherwise deleting is the better
 * move. Keeps the types whose worst launch price is below that price (all, if no candidate
 * runs one of the replacement's types).
 */
export function filterOutSameInstanceType(
  types: readonly InstanceType[],
  candidates: readonly PricedCandidate[],
  requirements: RequirementsLike = [],
): InstanceType[] {
  const names = new Set(types.map((t) => t.name));
  let maxPrice = Number.MAX_VALUE;
  for (const c of candidates)
    if (c.instanceType !== undefined && names.has(c.instanceType) && c.price < maxPrice) maxPrice = c.price;
  return filterByPrice(types, maxPrice, requirements);
}
