// SPDX-License-Identifier: Apache-2.0
// What a launched NodeClaim and its Node look like: labels the cloud resolved, resources from the
// instance type, and the Node a kubelet would register (KWOK's part in Karpenter's tests).
import { formatQuantity } from '../../core/cluster/resources.js';
import type { Instance, InstanceType } from '../cloud/provider.js';
import { instanceTypeLabels, pinnedLabels } from '../cloud/offering-fit.js';
import { parseProviderID } from '../cloud/simulated-cloud.js';
import {
  FINALIZER_TERMINATION,
  LABEL_CAPACITY_TYPE,
  LABEL_HOSTNAME,
  LABEL_ZONE,
  type Node,
  type NodeClaim,
  type Taint,
} from '../../core/cluster/types.js';
import { rfc3339 } from '../../core/cluster/memory/timestamps.js';

export const LABEL_REGISTERED = 'karpenter.sh/registered';

/**
 * The Node's name: the instance id for simulated instances (as KWOK names nodes after its provider id), else the last
 * path segment.
 */
export function nodeNameFor(providerID: string): string {
  return parseProviderID(providerID)?.instanceID ?? providerID.slice(providerID.lastIndexOf('/') + 1);
}

export function formatResourceList(resources: Readonly<Record<string, number>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(resources)) out[k] = formatQuantity(k, v);
  return out;
}

/**
 * Labels a launched NodeClaim carries, in Karpenter's priority (PopulateNodeClaimDetails): the
 * cloud-resolved ones, overridden by single-valued requirements, overridden by the NodeClaim's own.
 */
export function launchedLabels(nc: NodeClaim, it: InstanceType | undefined, inst: Instance): Record<string, string> {
  return {
    ...(it ? instanceTypeLabels(it) : {}),
    [LABEL_ZONE]: inst.zone,
    [LABEL_CAPACITY_TYPE]: inst.capacityType,
    [LABEL_HOSTNAME]: nodeNameFor(inst.providerID),
    ...pinnedLabels(nc.spec.requirements ?? []),
    ...nc.metadata.labels,
  };
}

/** NodeClaim taints then startup taints, without duplicates (key + effect). */
export function registrationTaints(nc: NodeClaim): Taint[] {
  const out: Taint[] = [];
  for (const t of [...(nc.spec.taints ?? []), ...(nc.spec.startupTaints ?? [])]) {
    if (!out.some((o) => o.key === t.key && o.effect === t.effect)) out.push({ ...t });
  }
  return out;
}

/**
 * The Node a kubelet registers for a running instance, with Karpenter's registration applied (labels, taints, owner,
 * finalizer).
 */
export function buildNode(nc: NodeClaim, providerID: string, now: number): Node {
  const name = nodeNameFor(providerID);
  const node: Node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { ...nc.metadata.labels, [LABEL_HOSTNAME]: name, [LABEL_REGISTERED]: 'true' },
      finalizers: [FINALIZER_TERMINATION],
      ownerReferences: [
        {
          apiVersion: 'karpenter.sh/v1',
          kind: 'NodeClaim',
          name: nc.metadata.name,
          ...(nc.metadata.uid ? { uid: nc.metadata.uid } : {}),
        },
      ],
    },
    spec: { providerID, taints: registrationTaints(nc) },
    status: {
      capacity: { ...nc.status?.capacity },
      allocatable: { ...nc.status?.allocatable },
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
          lastTransitionTime: rfc3339(now),
        },
      ],
    },
  };
  return node;
}
