// SPDX-License-Identifier: Apache-2.0
// NodeClaims as Karpenter's provisioner creates them: the NodePool's template (labels,
// taints, requirements, nodeClassRef, expireAfter, terminationGracePeriod) plus the instance
// types the scheduling simulation chose, the termination finalizer, the pool hash, and an owner
// reference to the pool.
import {
  ANNOTATION_NODEPOOL_HASH,
  ANNOTATION_NODEPOOL_HASH_VERSION,
  FINALIZER_TERMINATION,
  LABEL_INSTANCE_TYPE,
  LABEL_NODEPOOL,
  type NodeClaim,
  type NodePool,
  type NodeSelectorRequirement,
} from '../../core/cluster/types.js';
import { ANNOTATION_CREATION_REASON } from '../../world/cloud/ownership.js';

/** Names are deterministic (a counter) so simulations and tests are reproducible. */
export class NodeClaimFactory {
  private counter = 0;

  constructor(private readonly prefix = '') {}

  /**
   * Counts on past the names already taken: a restarted controller meets its predecessor's
   * NodeClaims, and creating one of their names again would fail the tick ("already exists").
   */
  skipPast(names: Iterable<string>): this {
    const suffix = new RegExp(`-${this.prefix}([0-9a-z]{5})$`);
    for (const name of names) {
      const m = suffix.exec(name);
      if (m) this.counter = Math.max(this.counter, parseInt(m[1]!, 36));
    }
    return this;
  }

  build(
    pool: NodePool,
    instanceTypes: readonly string[],
    extra: NodeSelectorRequirement[] = [],
    reason = 'provisioning',
  ): NodeClaim {
    const tmpl = pool.spec.template ?? {};
    const tspec = tmpl.spec ?? {};
    const name = `${pool.metadata.name}-${this.prefix}${(++this.counter).toString(36).padStart(5, '0')}`;
    const requirements: NodeSelectorRequirement[] = [
      ...(tspec.requirements ?? []).filter((r) => r.key !== LABEL_INSTANCE_TYPE),
      ...extra,
      { key: LABEL_INSTANCE_TYPE, operator: 'In', values: [...instanceTypes] },
    ];
    const annotations: Record<string, string> = {
      ...(tmpl.metadata?.annotations ?? {}),
      [ANNOTATION_CREATION_REASON]: reason,
    };
    const hash = pool.metadata.annotations?.[ANNOTATION_NODEPOOL_HASH];
    const version = pool.metadata.annotations?.[ANNOTATION_NODEPOOL_HASH_VERSION];
    if (hash !== undefined && version !== undefined) {
      annotations[ANNOTATION_NODEPOOL_HASH] = hash;
      annotations[ANNOTATION_NODEPOOL_HASH_VERSION] = version;
    }
    const spec: NodeClaim['spec'] = { requirements };
    if (tspec.taints) spec.taints = tspec.taints;
    if (tspec.startupTaints) spec.startupTaints = tspec.startupTaints;
    if (tspec.nodeClassRef) spec.nodeClassRef = tspec.nodeClassRef;
    if (tspec.expireAfter) spec.expireAfter = tspec.expireAfter;
    if (tspec.terminationGracePeriod) spec.terminationGracePeriod = tspec.terminationGracePeriod;
    return {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: {
        name,
        labels: { ...(tmpl.metadata?.labels ?? {}), [LABEL_NODEPOOL]: pool.metadata.name },
        annotations,
        finalizers: [FINALIZER_TERMINATION],
        // Owned by the pool (Karpenter's NodeClaimTemplate.ToNodeClaim): deleting the NodePool cascades to its
        // NodeClaims.
        ownerReferences: [
          {
            apiVersion: 'karpenter.sh/v1',
            kind: 'NodePool',
            name: pool.metadata.name,
            ...(pool.metadata.uid !== undefined && { uid: pool.metadata.uid }),
          },
        ],
      },
      spec,
    };
  }
}
