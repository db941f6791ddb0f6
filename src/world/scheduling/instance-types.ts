// SPDX-License-Identifier: Apache-2.0
// Instance types as requirement sets (the labels a node of that type would carry) and the
// compatibility test Karpenter applies before launching: requirements intersect, an available
// offering matches the zone and capacity type, and the capacity covers the requests.
import { availableOfferings, orderByPrice } from '../cloud/catalog.js';
import type { InstanceType, Offering } from '../cloud/provider.js';
import { instanceTypeLabels, isInstanceTypeKey, labelMismatch } from '../cloud/offering-fit.js';
import { WELL_KNOWN_LABELS as CLOUD_WELL_KNOWN } from '../cloud/well-known-labels.js';
import { LABEL_CAPACITY_TYPE, LABEL_HOSTNAME, LABEL_NODEPOOL, LABEL_ZONE } from '../../core/cluster/types.js';
import { formatResources, insufficientResource, type Resources } from '../../core/cluster/resources.js';
import {
  allows,
  allowsLabel,
  formatRequirement,
  isNegative,
  type Requirements,
} from '../../core/cluster/requirements.js';

export const LABEL_REGION = 'topology.kubernetes.io/region';

/**
 * Labels a launched node gets from its instance type, offering, provisioning or the cloud
 * rather than from its NodePool, so a pod may require them without the pool mentioning them
 * (Karpenter's `WellKnownLabels`). The instance-type ones are src/world/cloud/well-known-labels.ts.
 */
export const WELL_KNOWN_LABELS: ReadonlySet<string> = new Set([
  ...CLOUD_WELL_KNOWN,
  LABEL_REGION,
  LABEL_HOSTNAME,
  LABEL_NODEPOOL,
]);

/**
 * Why the type's own labels (src/world/cloud/offering-fit.ts `instanceTypeLabels`) conflict with the
 * requirements: a well-known key the type does not define counts as an absent label, so only
 * NotIn / DoesNotExist pass it; custom keys are the pool's business and pass.
 */
function labelConflict(it: InstanceType, reqs: Requirements): string | undefined {
  const labels = instanceTypeLabels(it);
  for (const [key, r] of reqs) {
    if (!isInstanceTypeKey(key)) continue;
    const v = labels[key];
    const ok = v === undefined ? isNegative(r) : allows(r, v);
    if (!ok) return labelMismatch(key, v, formatRequirement(r));
  }
  return undefined;
}

/**
 * The offerings whose zone and capacity type the requirements allow, as a catalog filter (availability is the
 * catalog's).
 */
export function offeringFilter(reqs: Requirements): (o: Offering) => boolean {
  return (o) => allowsLabel(reqs, LABEL_ZONE, o.zone) && allowsLabel(reqs, LABEL_CAPACITY_TYPE, o.capacityType);
}

/** Available offerings whose zone and capacity type the requirements allow. */
export function compatibleOfferings(it: InstanceType, reqs: Requirements): Offering[] {
  return availableOfferings(it, offeringFilter(reqs));
}

/** Types with a compatible available offering, cheapest first (input order on a tie). */
export function sortByPrice(types: readonly InstanceType[], reqs: Requirements): InstanceType[] {
  return orderByPrice(types, offeringFilter(reqs));
}

/**
 * Why a node of this type could not satisfy `reqs` and `requests`, or undefined when it can.
 * Order: requirements, then offerings, then resources (the cheapest check that fails names it).
 */
export function instanceTypeProblem(it: InstanceType, reqs: Requirements, requests?: Resources): string | undefined {
  const conflict = labelConflict(it, reqs);
  if (conflict) return conflict;
  if (compatibleOfferings(it, reqs).length === 0)
    return 'no available offering matches the zone and capacity-type requirements';
  if (requests) {
    const short = insufficientResource(requests, it.capacity);
    if (short) return `resources ${formatResources(requests)} exceed capacity ${formatResources(it.capacity)}`;
  }
  return undefined;
}

/** Instance types `reqs` and `requests` leave, in input order. */
export function compatibleInstanceTypes(
  types: readonly InstanceType[],
  reqs: Requirements,
  requests?: Resources,
): InstanceType[] {
  return types.filter((it) => instanceTypeProblem(it, reqs, requests) === undefined);
}

/**
 * Keys a pod requires (In / Exists / Gt / Lt) that neither the claim's requirements define nor
 * an instance type provides: a new node would never carry them (Karpenter's
 * `AllowUndefinedWellKnownLabels` check). The first such key, if any.
 */
export function undefinedLabelProblem(claim: Requirements, pod: Requirements): string | undefined {
  for (const [key, r] of pod) {
    if (claim.has(key) || WELL_KNOWN_LABELS.has(key)) continue;
    if (!isNegative(r)) return `label ${JSON.stringify(key)} does not have known values`;
  }
  return undefined;
}
