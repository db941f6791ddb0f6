// SPDX-License-Identifier: Apache-2.0
// The fact catalog: every fact a rule graph may test, with its meaning. Facts are plain
// values derived from the cluster at one instant (src/core/facts/ derives them); rules decide.
// Node facts that identify objects (pod names, PDB names) are "details": they fill message
// templates but never take part in a decision, so nodes that differ only in details share
// one rule-engine run.

/** Facts about one node, tested by the node rules (candidate filters and eligibility). */
export interface NodeFacts {
  inQueue: boolean; // its providerID is in the disruption queue
  managed: boolean; // it has a NodeClaim (joined by providerID)
  initialized: boolean; // label karpenter.sh/initialized == "true"
  deleting: boolean; // marked for deletion, deleting, or InstanceTerminating
  nominated: boolean; // a pending pod was nominated to it recently
  nodeDoNotDisrupt: boolean; // node annotation karpenter.sh/do-not-disrupt == "true"
  hasNodePoolLabel: boolean;
  nodePoolFound: boolean;
  doNotDisruptPod: boolean; // an active bound pod has an active do-not-disrupt
  // a bound pod is outside its disruption window (KARPENTER.md#pod-disruption-schedule-proposal)
  podWindowBlocked: boolean;
  pdbBlocked: boolean; // an evictable pod's only PDB allows no disruption
  pdbMultiple: boolean; // an evictable pod is selected by more than one PDB
  tgpSet: boolean; // the NodeClaim has spec.terminationGracePeriod
  drifted: boolean;
  expired: boolean; // past expireAfter (decides only with graceful expiration)
  expirationGraceful: boolean;
  empty: boolean; // no reschedulable pod with positive eviction cost (Karpenter v1.14)
  consolidatable: boolean; // initialized and past consolidateAfter since the last pod event
  consolidateNever: boolean;
  consolidationPolicy: 'WhenEmpty' | 'WhenEmptyOrUnderutilized' | 'Balanced';
  instanceTypeKnown: boolean;
  hasCapacityType: boolean;
  hasZone: boolean;
  /** Only the label keys the graph's selectors mention (see RuleGraph.labelKeys). */
  nodeLabels: Record<string, string>;
  /** `window:<id>` → active now, for every window the graph's node rules test. */
  [windowFact: `window:${string}`]: boolean;
  /** `pods:<id>` → an active bound pod is selected by pod protection `<id>` (`pods … never REASONS`). */
  [protectionFact: `pods:${string}`]: boolean;
}

/** Identifying values used to fill message templates (`{pod}`, `{pdb}`, …). */
export interface NodeDetails {
  nodePool: string;
  instanceType: string;
  pod?: string; // ns/name of the do-not-disrupt pod
  windowPod?: string; // ns/name of the pod outside its window
  window?: string; // which window (id or annotation)
  pdb?: string; // ns/name of the blocking PDB
  pdbs?: string; // the PDBs, comma separated
  consolidatableAt?: string; // RFC3339
  /** `protectPod_<id>`: ns/name of the first pod that pod protection `<id>` selects. */
  [protectPod: `protectPod_${string}`]: string;
}

/** Facts about a policy's pool at one instant, tested by its pool rules (budgets, freezes, pauses). */
export interface PoolFacts {
  now: number; // epoch ms
  budgetErrors: number; // budgets or windows that are invalid at runtime (fail closed)
  [windowFact: `window:${string}`]: boolean;
  /** `pause:<reason>` → when the latest pause of the reason on this pool ends, epoch ms (0: none). */
  [pauseFact: `pause:${string}`]: number;
}

/** Node facts that take part in decisions, in a fixed order (the memo key for engine runs). */
export const NODE_DECISION_FACTS = [
  'inQueue',
  'managed',
  'initialized',
  'deleting',
  'nominated',
  'nodeDoNotDisrupt',
  'hasNodePoolLabel',
  'nodePoolFound',
  'doNotDisruptPod',
  'podWindowBlocked',
  'pdbBlocked',
  'pdbMultiple',
  'tgpSet',
  'drifted',
  'expired',
  'expirationGraceful',
  'empty',
  'consolidatable',
  'consolidateNever',
  'consolidationPolicy',
  'instanceTypeKnown',
  'hasCapacityType',
  'hasZone',
] as const satisfies readonly (keyof NodeFacts)[];
