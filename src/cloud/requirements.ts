// SPDX-License-Identifier: Apache-2.0
// Whether node-selector requirements (a NodePool's template, a NodeClaim's spec, a pod's node
// affinity) admit an instance type and offering. Karpenter's Intersects: requirements on the same
// key are ANDed; a well-known key the type does not define counts as an absent label (so
// `In` fails and `NotIn`/`DoesNotExist` pass); a custom key constrains nothing here, because
// the node will carry it as a label.
import type { NodeClaim, NodePool, NodeSelectorRequirement } from '../cluster/types.js';
import type { InstanceType, Offering } from './provider.js';
import {
  LABEL_ARCH, LABEL_CAPACITY_TYPE, LABEL_INSTANCE_CPU, LABEL_INSTANCE_FAMILY, LABEL_INSTANCE_GPU_COUNT,
  LABEL_INSTANCE_MEMORY, LABEL_INSTANCE_TYPE, LABEL_OS, LABEL_ZONE, RESOURCE_GPU, WELL_KNOWN_LABELS,
} from './well-known-labels.js';

export type Requirements = readonly NodeSelectorRequirement[];

const INTEGER = /^[+-]?\d+$/;

/** Whether one requirement admits a label value (undefined = label absent). */
export function requirementAllows(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In': return value !== undefined && values.includes(value);
    case 'NotIn': return value === undefined || !values.includes(value);
    case 'Exists': return value !== undefined;
    case 'DoesNotExist': return value === undefined;
    case 'Gt':
    case 'Lt': {
      // Kubernetes: exactly one integer value; a non-integer label never matches.
      if (value === undefined || values.length !== 1 || !INTEGER.test(value) || !INTEGER.test(values[0])) return false;
      const [a, b] = [Number(value), Number(values[0])];
      return req.operator === 'Gt' ? a > b : a < b;
    }
    default: {
      const never: never = req.operator;
      throw new Error(`unknown node selector operator ${String(never)}`);
    }
  }
}

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
  if (it.capacity.cpu !== undefined) labels[LABEL_INSTANCE_CPU] = String(Math.ceil(it.nodeCapacity?.cpu ?? it.capacity.cpu));
  if (it.nodeCapacity?.memory !== undefined) labels[LABEL_INSTANCE_MEMORY] = String(Math.round(it.nodeCapacity.memory / 2 ** 20));
  if ((it.capacity[RESOURCE_GPU] ?? 0) > 0) labels[LABEL_INSTANCE_GPU_COUNT] = String(it.capacity[RESOURCE_GPU]);
  Object.assign(labels, it.labels);
  typeLabelCache.set(it, labels);
  return labels;
}

/** Labels of an instance type launched from one offering: the type's plus zone and capacity type. */
export function offeringLabels(it: InstanceType, o: Offering): Record<string, string> {
  return { ...instanceTypeLabels(it), [LABEL_ZONE]: o.zone, [LABEL_CAPACITY_TYPE]: o.capacityType };
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
    } else if (WELL_KNOWN_LABELS.has(req.key)) {
      value = typeLabels[req.key];
    } else {
      continue;
    }
    if (!requirementAllows(req, value)) {
      const got = value === undefined ? 'undefined' : `\`${value}\``;
      const vals = req.values && req.values.length > 0 ? ` [${req.values.join(', ')}]` : '';
      return `${req.key} is ${got}, requirement ${req.operator}${vals}`;
    }
  }
  return undefined;
}

/** Whether `reqs` admit the instance type in at least one respect other than zone and capacity type. */
export function instanceTypeCompatible(reqs: Requirements, it: InstanceType): boolean {
  return incompatibility(reqs, it) === undefined;
}

/** Whether `reqs` admit launching `it` from offering `o` (availability is not judged here). */
export function offeringCompatible(reqs: Requirements, it: InstanceType, o: Offering): boolean {
  return incompatibility(reqs, it, o) === undefined;
}

/** Offerings of `it` that `reqs` admit, available ones only unless told otherwise. */
export function compatibleOfferings(reqs: Requirements, it: InstanceType, opts: { availableOnly?: boolean } = {}): Offering[] {
  const availableOnly = opts.availableOnly ?? true;
  if (!instanceTypeCompatible(reqs, it)) return [];
  return it.offerings.filter((o) => (!availableOnly || o.available) && offeringCompatible(reqs, it, o));
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
