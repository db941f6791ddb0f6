// SPDX-License-Identifier: Apache-2.0
// Whether node-selector requirements (a NodePool's template, a NodeClaim's spec, a pod's node
// affinity) admit an instance type and offering. Karpenter's Intersects: requirements on the same
// key are ANDed; a well-known key the type does not define counts as an absent label (so
// `In` fails and `NotIn`/`DoesNotExist` pass); a custom key constrains nothing here, because
// the node will carry it as a label. Whether a value satisfies one requirement is
// src/core/cluster/requirements.ts `requirementAllows`; this file says which value each key takes.
import type { NodeClaim, NodePool, NodeSelectorRequirement } from '../../core/cluster/types.js';
import { requirementAllows } from '../../core/cluster/requirements.js';
import type { InstanceType, Offering } from './provider.js';
import {
  LABEL_ARCH,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_CPU,
  LABEL_INSTANCE_FAMILY,
  LABEL_INSTANCE_GPU_COUNT,
  LABEL_INSTANCE_MEMORY,
  LABEL_INSTANCE_TYPE,
  LABEL_OS,
  LABEL_ZONE,
  RESOURCE_GPU,
  WELL_KNOWN_LABELS,
} from './well-known-labels.js';

export type Requirements = readonly NodeSelectorRequirement[];

const typeLabelCache = new WeakMap<InstanceType, Record<string, string>>();

/** The well-known labels an instance type defines (not zone or capacity type: those belong to offerings). */
export function instanceTypeLabels(it: InstanceType): Readonly<Record<string, string>> {
  const hit = typeLabelCache.get(it);
  if (hit !== undefined) return hit;
  const labels: Record<string, string> = {
    [LABEL_INSTANCE_TYPE]: it.name,
    [LABEL_INSTANCE_FAMILY]: it.family,
    [LABEL_ARCH]: it.architecture,
    [LABEL_OS]: 'linux',
  };
  // Derived for types built without catalog labels (tests, other providers).
  if (it.capacity.cpu !== undefined)
    labels[LABEL_INSTANCE_CPU] = String(Math.ceil(it.nodeCapacity?.cpu ?? it.capacity.cpu));
  if (it.nodeCapacity?.memory !== undefined)
    labels[LABEL_INSTANCE_MEMORY] = String(Math.round(it.nodeCapacity.memory / 2 ** 20));
  if ((it.capacity[RESOURCE_GPU] ?? 0) > 0) labels[LABEL_INSTANCE_GPU_COUNT] = String(it.capacity[RESOURCE_GPU]);
  Object.assign(labels, it.labels);
  typeLabelCache.set(it, labels);
  return labels;
}

/** Labels of an instance type launched from one offering: the type's plus zone and capacity type. */
export function offeringLabels(it: InstanceType, o: Offering): Record<string, string> {
  return { ...instanceTypeLabels(it), [LABEL_ZONE]: o.zone, [LABEL_CAPACITY_TYPE]: o.capacityType };
}

/** Whether a requirement on `key` is judged by the instance type's own labels (well-known, not per offering). */
export function isInstanceTypeKey(key: string): boolean {
  return WELL_KNOWN_LABELS.has(key) && key !== LABEL_ZONE && key !== LABEL_CAPACITY_TYPE;
}

/** The reason text when a type's or offering's label `value` fails a requirement (written `requirement`). */
export function labelMismatch(key: string, value: string | undefined, requirement: string): string {
  return `${key} is ${value === undefined ? 'undefined' : `\`${value}\``}, requirement ${requirement}`;
}

/**
 * Why `reqs` rule out this instance type (and offering, when given), or undefined if they
 * admit it. Without an offering, zone and capacity-type requirements are not judged.
 */
export function incompatibility(reqs: Requirements, it: InstanceType, o?: Offering): string | undefined {
  const typeLabels = instanceTypeLabels(it);
  for (const req of reqs) {
    let value: string | undefined;
    if (req.key === LABEL_ZONE || req.key === LABEL_CAPACITY_TYPE) {
      if (o === undefined) continue;
      value = req.key === LABEL_ZONE ? o.zone : o.capacityType;
    } else if (isInstanceTypeKey(req.key)) {
      value = typeLabels[req.key];
    } else {
      continue;
    }
    if (!requirementAllows(req, value)) {
      const vals = req.values && req.values.length > 0 ? ` [${req.values.join(', ')}]` : '';
      return labelMismatch(req.key, value, `${req.operator}${vals}`);
    }
  }
  return undefined;
}

/** Whether `reqs` admit the instance type in every respect other than zone and capacity type. */
export function instanceTypeCompatible(reqs: Requirements, it: InstanceType): boolean {
  return incompatibility(reqs, it) === undefined;
}

/** Whether `reqs` admit launching `it` from offering `o` (availability is not judged here). */
export function offeringCompatible(reqs: Requirements, it: InstanceType, o: Offering): boolean {
  return incompatibility(reqs, it, o) === undefined;
}

/** A NodeClaim's requirements (its spec; the provisioner has already merged in the pool's). */
export function nodeClaimRequirements(nc: NodeClaim): Requirements {
  return nc.spec.requirements ?? [];
}

/** A NodePool's template requirements. */
export function nodePoolRequirements(pool: NodePool): Requirements {
  return pool.spec.template?.spec?.requirements ?? [];
}

/**
 * The labels single-valued `In` requirements pin (Karpenter's `Requirements.Labels()`), which a
 * launched NodeClaim and its Node carry even when the key is custom.
 */
export function pinnedLabels(reqs: Requirements): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of reqs) if (r.operator === 'In' && r.values?.length === 1) out[r.key] = r.values[0];
  return out;
}
