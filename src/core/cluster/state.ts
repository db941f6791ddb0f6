// SPDX-License-Identifier: Apache-2.0
// The joined cluster model (Karpenter's cluster state): NodeClaim ↔ Node by providerID, pods
// by node, PDBs by namespace, plus the node and pod predicates the evaluator reads, each
// mirroring one Karpenter helper (KARPENTER.md#budget-counting, KARPENTER.md#candidates, KARPENTER.md#pod-predicates).
// Time is always passed in.
import { goParseDuration, goQuote } from '../../../rules/karpenter-go.js';
import { labelSignature, matchesLabelSelector } from './labels.js';
import type { Snapshot } from './snapshot.js';
import {
  ANNOTATION_DO_NOT_DISRUPT,
  LABEL_INITIALIZED,
  LABEL_NODEPOOL,
  TAINT_DISRUPTED,
  type Condition,
  type Node,
  type NodeClaim,
  type NodePool,
  type Pod,
  type PodDisruptionBudget,
  type Taint,
  type Toleration,
} from './types.js';

/** One machine as Karpenter's state sees it: a NodeClaim, a Node, or both joined by providerID. */
export interface StateNode {
  /** The Node's name, or the NodeClaim's when no Node has registered yet. */
  name: string;
  providerID?: string;
  node?: Node;
  nodeClaim?: NodeClaim;
  /** Pods bound to the Node (empty without a Node). */
  pods: Pod[];
}

export interface ClusterIndex {
  snapshot: Snapshot;
  /** Nodes first (by name), then NodeClaims without a Node (by name). */
  stateNodes: StateNode[];
  /** How many of stateNodes have a Node: where the unjoined NodeClaims start. */
  joined: number;
  nodePoolsByName: Map<string, NodePool>;
  nodesByName: Map<string, StateNode>;
  nodeClaimsByName: Map<string, StateNode>;
  podsByNodeName: Map<string, Pod[]>;
  /** Pods with no `spec.nodeName` (pending ones among them), so a quiet tick need not scan every pod. */
  unboundPods: Pod[];
  pdbsByNamespace: Map<string, PodDisruptionBudget[]>;
  /** PDBs matching a (namespace, label set), keyed by namespace + label signature. */
  pdbMatchCache: Map<string, PodDisruptionBudget[]>;
}

/**
 * The order of ClusterIndex.stateNodes when its lists are in name order (as the live index keeps
 * them): machines with a Node before NodeClaims no Node joined, each part by name.
 */
export function byMachinePlace(a: StateNode, b: StateNode): number {
  if (!a.node !== !b.node) return a.node ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Joins and indexes a snapshot; pure and linear in the number of objects. */
export function indexCluster(snapshot: Snapshot): ClusterIndex {
  const podsByNodeName = new Map<string, Pod[]>();
  const unboundPods: Pod[] = [];
  for (const pod of snapshot.pods) {
    const n = pod.spec.nodeName;
    if (!n) {
      unboundPods.push(pod);
      continue;
    }
    const list = podsByNodeName.get(n);
    if (list) list.push(pod);
    else podsByNodeName.set(n, [pod]);
  }
  const claimsByProvider = new Map<string, NodeClaim>();
  for (const nc of snapshot.nodeClaims) {
    const id = nc.status?.providerID;
    if (id) claimsByProvider.set(id, nc);
  }
  const stateNodes: StateNode[] = [];
  const joined = new Set<NodeClaim>();
  for (const node of snapshot.nodes) {
    const providerID = node.spec.providerID || undefined;
    const nodeClaim = providerID ? claimsByProvider.get(providerID) : undefined;
    if (nodeClaim) joined.add(nodeClaim);
    stateNodes.push({
      name: node.metadata.name,
      providerID,
      node,
      nodeClaim,
      pods: podsByNodeName.get(node.metadata.name) ?? [],
    });
  }
  for (const nc of snapshot.nodeClaims) {
    if (!joined.has(nc))
      stateNodes.push({
        name: nc.metadata.name,
        providerID: nc.status?.providerID || undefined,
        nodeClaim: nc,
        pods: [],
      });
  }
  const nodesByName = new Map<string, StateNode>();
  const nodeClaimsByName = new Map<string, StateNode>();
  for (const sn of stateNodes) {
    if (sn.node) nodesByName.set(sn.node.metadata.name, sn);
    if (sn.nodeClaim) nodeClaimsByName.set(sn.nodeClaim.metadata.name, sn);
  }
  const pdbsByNamespace = new Map<string, PodDisruptionBudget[]>();
  for (const pdb of snapshot.pdbs) {
    const ns = pdb.metadata.namespace ?? 'default';
    const list = pdbsByNamespace.get(ns);
    if (list) list.push(pdb);
    else pdbsByNamespace.set(ns, [pdb]);
  }
  return {
    snapshot,
    stateNodes,
    joined: snapshot.nodes.length,
    nodePoolsByName: new Map(snapshot.nodePools.map((np) => [np.metadata.name, np])),
    nodesByName,
    nodeClaimsByName,
    podsByNodeName,
    unboundPods,
    pdbsByNamespace,
    pdbMatchCache: new Map(),
  };
}

/**
 * The first condition of `type`. A loop, not `find`: asked for every pod of a ReplicaSet or PDB
 * on each of their syncs and for every machine of a busy tick (a closure per call).
 */
export function findCondition(
  conditions: readonly Condition[] | null | undefined,
  type: string,
): Condition | undefined {
  if (conditions == null) return undefined; // null too, as conditions?.find had it
  for (let i = 0; i < conditions.length; i++) if (conditions[i].type === type) return conditions[i];
  return undefined;
}
const timeMs = (t: string | undefined): number | undefined => (t ? Date.parse(t) : undefined);

// ── node predicates ────────────────────────────────────────────────────────

/** Managed = has a NodeClaim (Karpenter's `StateNode.Managed`). */
export const isManaged = (sn: StateNode): boolean => sn.nodeClaim !== undefined;
/** Node label `karpenter.sh/initialized` is exactly `true`. */
export const isInitialized = (sn: StateNode): boolean => sn.node?.metadata.labels?.[LABEL_INITIALIZED] === 'true';
/** NodeClaim condition `InstanceTerminating=True`. */
export const isInstanceTerminating = (sn: StateNode): boolean =>
  findCondition(sn.nodeClaim?.status?.conditions, 'InstanceTerminating')?.status === 'True';
/** Node `Ready` condition is `True`; False, Unknown and missing are all not ready. */
export const isReady = (sn: StateNode): boolean =>
  findCondition(sn.node?.status?.conditions, 'Ready')?.status === 'True';

/** The node carries Karpenter's `karpenter.sh/disrupted:NoSchedule` taint (whatever its value). */
export const hasDisruptedTaint = (taints: readonly Taint[] | undefined): boolean =>
  (taints ?? []).some((t) => t.key === TAINT_DISRUPTED && t.effect === 'NoSchedule');
/** NodeClaim deletionTimestamp, or the Node's when there is no NodeClaim. */
export function isDeleting(sn: StateNode): boolean {
  if (sn.nodeClaim) return sn.nodeClaim.metadata.deletionTimestamp !== undefined;
  return sn.node?.metadata.deletionTimestamp !== undefined;
}
/** Node annotation `karpenter.sh/do-not-disrupt` honoured only as exactly `"true"`. */
export const nodeDoNotDisrupt = (sn: StateNode): boolean =>
  sn.node?.metadata.annotations?.[ANNOTATION_DO_NOT_DISRUPT] === 'true';
/** The pool a node counts against: the Node's `karpenter.sh/nodepool` label (the NodeClaim's without a Node). */
export const nodePoolOf = (sn: StateNode): string | undefined =>
  (sn.node ? sn.node.metadata.labels : sn.nodeClaim?.metadata.labels)?.[LABEL_NODEPOOL];

// ── pod predicates (pkg/utils/pod/scheduling.go) ───────────────────────────

const ownedBy = (pod: Pod, apiVersion: string, kind: string): boolean =>
  pod.metadata.ownerReferences?.some((o) => o.apiVersion === apiVersion && o.kind === kind) ?? false;

export const isTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
export const isTerminating = (pod: Pod): boolean => pod.metadata.deletionTimestamp !== undefined;
/** Not terminal and not terminating. */
export const isActive = (pod: Pod): boolean => !isTerminal(pod) && !isTerminating(pod);
export const isDaemonSetPod = (pod: Pod): boolean => ownedBy(pod, 'apps/v1', 'DaemonSet');
export const isStatefulSetPod = (pod: Pod): boolean => ownedBy(pod, 'apps/v1', 'StatefulSet');
/** Static pod: owned by `v1` `Node`. */
export const isMirrorPod = (pod: Pod): boolean => ownedBy(pod, 'v1', 'Node');

/** `v1.Toleration.ToleratesTaint` for the empty-valued `karpenter.sh/disrupted:NoSchedule` taint. */
export function toleratesDisruptedTaint(pod: Pod): boolean {
  return (pod.spec.tolerations ?? []).some((t: Toleration) => {
    if (t.effect && t.effect !== 'NoSchedule') return false;
    if (t.key && t.key !== TAINT_DISRUPTED) return false;
    if (t.operator === undefined || (t.operator as string) === '' || t.operator === 'Equal')
      return (t.value ?? '') === '';
    return t.operator === 'Exists';
  });
}

export interface DoNotDisrupt {
  active: boolean;
  /** Epoch ms at which a duration-valued annotation stops protecting the pod. */
  until?: number;
  /** Karpenter's error text when the annotation is invalid (and therefore ignored). */
  invalid?: string;
}

/** Karpenter's `IsDoNotDisruptActive` (v1.12+): `"true"`, or a positive Go duration since pod start. */
export function podDoNotDisrupt(pod: Pod, nowMs: number): DoNotDisrupt {
  const value = pod.metadata.annotations?.[ANNOTATION_DO_NOT_DISRUPT];
  if (value === undefined) return { active: false };
  if (value === 'true') return { active: true };
  const parsed = goParseDuration(value);
  if (!parsed.ok) return { active: false, invalid: `failed to parse ${goQuote(value)} as a duration: ${parsed.error}` };
  if (parsed.value <= 0) return { active: false, invalid: `duration ${goQuote(value)} must be positive` };
  const start = timeMs(pod.status?.startTime);
  if (start === undefined || Number.isNaN(start)) return { active: true };
  const until = start + parsed.value * 1000;
  return { active: nowMs - start < parsed.value * 1000, until };
}

/** (Active, or a terminating StatefulSet pod) and not DaemonSet-owned and not a mirror pod. */
export const isReschedulable = (pod: Pod): boolean =>
  (isActive(pod) || (isStatefulSetPod(pod) && isTerminating(pod))) && !isDaemonSetPod(pod) && !isMirrorPod(pod);
/** Active, not tolerating the disrupted taint, not mirror, no active do-not-disrupt. */
export const isEvictable = (pod: Pod, nowMs: number): boolean =>
  isActive(pod) && !toleratesDisruptedTaint(pod) && !isMirrorPod(pod) && !podDoNotDisrupt(pod, nowMs).active;
/** Terminating for more than a minute past its deletionTimestamp. */
export const isStuckTerminating = (pod: Pod, nowMs: number): boolean =>
  isTerminating(pod) && nowMs - (timeMs(pod.metadata.deletionTimestamp) ?? nowMs) > 60_000;
/** Not tolerating the disrupted taint, not stuck terminating, not mirror (do-not-disrupt pods are drainable). */
export const isDrainable = (pod: Pod, nowMs: number): boolean =>
  !toleratesDisruptedTaint(pod) && !isStuckTerminating(pod, nowMs) && !isMirrorPod(pod);
/** Not terminal and drainable: termination waits for it. */
export const isWaitingEviction = (pod: Pod, nowMs: number): boolean => !isTerminal(pod) && isDrainable(pod, nowMs);
/** Not active, or no active do-not-disrupt. */
export const isDisruptable = (pod: Pod, nowMs: number): boolean =>
  !isActive(pod) || !podDoNotDisrupt(pod, nowMs).active;
/** Pod `Ready` condition. */
export const isPodReady = (pod: Pod): boolean => findCondition(pod.status?.conditions, 'Ready')?.status === 'True';

// ── PodDisruptionBudgets (pkg/utils/pdb) ───────────────────────────────────

export type PdbBlock = { kind: 'none' } | { kind: 'blocked'; pdb: string } | { kind: 'multiple'; pdbs: string[] };

const pdbKey = (pdb: PodDisruptionBudget): string => `${pdb.metadata.namespace ?? 'default'}/${pdb.metadata.name}`;

/** The PDBs in the pod's namespace whose selector matches its labels (cached per label set). */
export function matchingPdbs(index: ClusterIndex, pod: Pod): PodDisruptionBudget[] {
  // An index is never mutated (a changed PDB or pod means a new index), so the answer per pod object is final.
  const known = pdbsByPod.get(index)?.get(pod);
  if (known) return known;
  const found = matchingPdbsUncached(index, pod);
  let perPod = pdbsByPod.get(index);
  if (!perPod) pdbsByPod.set(index, (perPod = new WeakMap()));
  perPod.set(pod, found);
  return found;
}

const pdbsByPod = new WeakMap<ClusterIndex, WeakMap<Pod, PodDisruptionBudget[]>>();

function matchingPdbsUncached(index: ClusterIndex, pod: Pod): PodDisruptionBudget[] {
  const ns = pod.metadata.namespace ?? 'default';
  const candidates = index.pdbsByNamespace.get(ns);
  if (!candidates) return [];
  const key = ns + '\u0002' + labelSignature(pod.metadata.labels);
  let hit = index.pdbMatchCache.get(key);
  if (!hit) {
    hit = candidates.filter((pdb) => matchesLabelSelector(pod.metadata.labels, pdb.spec.selector));
    index.pdbMatchCache.set(key, hit);
  }
  return hit;
}

/**
 * Whether PDBs stop this pod's eviction (`pdb.Limits` for one pod; the caller decides which
 * pods are evictable): several matching PDBs always block; one blocks at disruptionsAllowed 0
 * (missing status = 0) unless it is `AlwaysAllow` and the pod's Ready condition is False.
 */
export function pdbBlock(index: ClusterIndex, pod: Pod): PdbBlock {
  const pdbs = matchingPdbs(index, pod);
  if (pdbs.length === 0) return { kind: 'none' };
  if (pdbs.length > 1) return { kind: 'multiple', pdbs: pdbs.map(pdbKey) };
  const pdb = pdbs[0];
  if ((pdb.status?.disruptionsAllowed ?? 0) !== 0) return { kind: 'none' };
  const unhealthy = findCondition(pod.status?.conditions, 'Ready')?.status === 'False';
  if (pdb.spec.unhealthyPodEvictionPolicy === 'AlwaysAllow' && unhealthy) return { kind: 'none' };
  return { kind: 'blocked', pdb: pdbKey(pdb) };
}

/** `CanEvictPods` over a node's bound pods: the first evictable pod whose PDBs block, if any. */
export function nodePdbBlock(index: ClusterIndex, sn: StateNode, nowMs: number): (PdbBlock & { pod: Pod }) | undefined {
  for (const pod of sn.pods) {
    if (!isEvictable(pod, nowMs)) continue;
    const block = pdbBlock(index, pod);
    if (block.kind !== 'none') return { ...block, pod };
  }
  return undefined;
}

/** A PDB that can never allow an eviction: `maxUnavailable: 0`/`"0%"` or `minAvailable: "100%"`. */
export function isFullyBlockingPdb(pdb: PodDisruptionBudget): boolean {
  const { maxUnavailable, minAvailable } = pdb.spec;
  return maxUnavailable === 0 || maxUnavailable === '0%' || minAvailable === '100%';
}
