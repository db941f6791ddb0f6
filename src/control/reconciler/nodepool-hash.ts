// SPDX-License-Identifier: Apache-2.0
// NodePool template hashing for static drift (KARPENTER.md#drift-detection): the pool carries a hash of its
// template (labels, annotations, taints, startup taints, nodeClassRef, expireAfter,
// terminationGracePeriod — not requirements, which drift through labels), NodeClaims carry the
// hash they were created from, and a difference at the same hash version is drift. kpol's hash
// is FNV-1a over canonical JSON: it detects the same changes as Karpenter's hashstructure but
// is not numerically equal to it, so it uses its own version tag.
import type { ClusterClient } from '../../core/cluster/client.js';
import { ANNOTATION_NODEPOOL_HASH, ANNOTATION_NODEPOOL_HASH_VERSION, type NodePool } from '../../core/cluster/types.js';

export const KPOL_HASH_VERSION = 'kpol-v1';

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).sort().join(',')}]`; // slices as sets, as Karpenter hashes them
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

// The cluster stores freeze what they hand out (a write makes a new object), so a frozen
// NodePool's hash holds for as long as the object lives; the reconciler asks every tick.
const hashes = new WeakMap<NodePool, string>();

export function templateHash(np: NodePool): string {
  if (!Object.isFrozen(np)) return hashOf(np);
  let hash = hashes.get(np);
  if (hash === undefined) hashes.set(np, (hash = hashOf(np)));
  return hash;
}

function hashOf(np: NodePool): string {
  const t = np.spec.template ?? {};
  const s = t.spec ?? {};
  const text = canonical({
    labels: t.metadata?.labels,
    annotations: t.metadata?.annotations,
    taints: s.taints,
    startupTaints: s.startupTaints,
    nodeClassRef: s.nodeClassRef,
    expireAfter: s.expireAfter,
    terminationGracePeriod: s.terminationGracePeriod,
  });
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return String(h);
}

/** Writes the current hash onto every NodePool whose annotation is missing or stale. */
export async function reconcileNodePoolHashes(client: ClusterClient, pools: readonly NodePool[]): Promise<boolean> {
  let changed = false;
  for (const np of pools) {
    const hash = templateHash(np);
    const a = np.metadata.annotations ?? {};
    if (a[ANNOTATION_NODEPOOL_HASH] === hash && a[ANNOTATION_NODEPOOL_HASH_VERSION] === KPOL_HASH_VERSION) continue;
    await client.patch(
      { kind: 'NodePool', name: np.metadata.name },
      {
        metadata: {
          annotations: { [ANNOTATION_NODEPOOL_HASH]: hash, [ANNOTATION_NODEPOOL_HASH_VERSION]: KPOL_HASH_VERSION },
        },
      },
    );
    changed = true;
  }
  return changed;
}
