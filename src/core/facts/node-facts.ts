// SPDX-License-Identifier: Apache-2.0
// Derives the fact catalog's node facts (rules/facts.ts) from the joined cluster at an instant.
// Facts describe; the rule graph decides. Pod-level work is linear in bound pods with caches
// per label set, so 150,000 pods cost one pass, not one rule-engine run each.
import type { RuleGraph } from '../../../rules/compile.js';
import type { NodeDetails, NodeFacts } from '../../../rules/facts.js';
import type { PolicySpec, Reason, WindowSpec } from '../../../rules/model.js';
import { parseKarpenterDurationOrNever } from '../../../rules/duration.js';
import {
  isActive,
  isDeleting,
  isEvictable,
  isInitialized,
  isInstanceTerminating,
  isReschedulable,
  nodeDoNotDisrupt,
  nodePoolOf,
  pdbBlock,
  podDoNotDisrupt,
  type ClusterIndex,
  type StateNode,
} from '../cluster/state.js';
import {
  ANNOTATION_NODEPOOL_HASH,
  ANNOTATION_NODEPOOL_HASH_VERSION,
  ANNOTATION_POD_DELETION_COST,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_TYPE,
  LABEL_ZONE,
  type Condition,
  type NodePool,
  type Pod,
} from '../cluster/types.js';
import { requirementAllows } from '../cluster/requirements.js';
import { FactValidity } from './fact-validity.js';
import { PodWindowMatcher, type PodWarning, type WindowState } from './pod-windows.js';
import { ownValue } from '../cluster/own-keys.js';

/** In-memory disruption state the reconciler owns (empty for a static snapshot). */
export interface DisruptionState {
  queued: ReadonlySet<string>; // providerIDs in the orchestration queue
  marked: ReadonlySet<string>; // providerIDs marked for deletion
  nominated: ReadonlySet<string>; // node names nominated for pending pods
  /** providerID → the reason its in-flight command disrupts it for (src/core/eval/disruption-reasons.ts). */
  reasons?: ReadonlyMap<string, Reason>;
  /** Instance types the cloud offers per NodePool; absent = trust the node's label. */
  instanceTypes?: (nodePool: string) => ReadonlySet<string> | undefined;
}

export const NO_DISRUPTION_STATE: DisruptionState = { queued: new Set(), marked: new Set(), nominated: new Set() };

const condition = (cs: Condition[] | undefined, type: string) => cs?.find((c) => c.type === type);
const ms = (t: string | undefined) => (t ? Date.parse(t) : undefined);

/** Karpenter's EvictionCost: clamp(1 + deletionCost/2^27 + priority/2^25, −10, 10). */
export function evictionCost(pod: Pod): number {
  let cost = 1;
  const del = pod.metadata.annotations?.[ANNOTATION_POD_DELETION_COST];
  if (del !== undefined) {
    const v = Number(del);
    if (Number.isFinite(v) && del.trim() !== '') cost += v / 2 ** 27;
  }
  if (pod.spec.priority !== undefined) cost += pod.spec.priority / 2 ** 25;
  return Math.min(10, Math.max(-10, cost));
}

/** Static drift: both objects carry hash and version, versions equal, hashes differ (KARPENTER.md#drift-detection). */
function hashDrifted(sn: StateNode, pool: NodePool | undefined): boolean {
  const a = pool?.metadata.annotations;
  const b = sn.nodeClaim?.metadata.annotations;
  if (!a || !b) return false;
  const [ph, pv, ch, cv] = [
    a[ANNOTATION_NODEPOOL_HASH],
    a[ANNOTATION_NODEPOOL_HASH_VERSION],
    b[ANNOTATION_NODEPOOL_HASH],
    b[ANNOTATION_NODEPOOL_HASH_VERSION],
  ];
  return ph !== undefined && pv !== undefined && ch !== undefined && cv !== undefined && pv === cv && ph !== ch;
}

/**
 * RequirementsDrifted (KARPENTER.md#drift-detection): the machine's labels no longer satisfy the pool's
 * requirements — a required key it lacks (except NotIn/DoesNotExist) or a value outside the
 * allowed set. Widening a requirement is not drift; narrowing it is.
 */
export function requirementsDrifted(labels: Readonly<Record<string, string>>, pool: NodePool | undefined): boolean {
  for (const r of pool?.spec.template?.spec?.requirements ?? []) {
    const value = ownValue(labels, r.key);
    if (value === undefined) {
      if (r.operator !== 'NotIn' && r.operator !== 'DoesNotExist') return true;
      continue;
    }
    if (!requirementAllows(r, value)) return true;
  }
  return false;
}

function expireAfterSeconds(sn: StateNode, policy: PolicySpec, pool: NodePool | undefined): number | null {
  if (policy.expireAfterSeconds !== undefined) return policy.expireAfterSeconds;
  const own = sn.nodeClaim?.spec.expireAfter ?? pool?.spec.template?.spec?.expireAfter ?? '720h';
  return parseKarpenterDurationOrNever(own) ?? null;
}

/** When consolidateAfter has elapsed since the last pod event (or initialization); undefined if never. */
function consolidatableAt(sn: StateNode, policy: PolicySpec): number | undefined {
  const after = policy.consolidateAfterSeconds;
  if (after === null) return undefined;
  const init = condition(sn.nodeClaim?.status?.conditions, 'Initialized');
  const ref =
    ms(sn.nodeClaim?.status?.lastPodEventTime) ??
    ms(init?.lastTransitionTime) ??
    ms(sn.nodeClaim?.metadata.creationTimestamp);
  return ref === undefined ? undefined : ref + after * 1000;
}

export class NodeFactDeriver {
  constructor(
    private readonly index: ClusterIndex,
    private readonly graph: RuleGraph,
    private readonly state: DisruptionState,
    private readonly warn: (w: PodWarning) => void,
    /** Kept by the caller across instants: its caches are per pod object. */
    private readonly podWindows: PodWindowMatcher = new PodWindowMatcher(graph.spec),
  ) {}

  /**
   * The node's facts at `nowMs`, and how long they hold (`validity`; the node window facts in
   * `windowFacts` are the caller's to compare).
   */
  // eslint-disable-next-line complexity -- the fact catalog, one fact per line, in rules/facts.ts's order
  derive(
    sn: StateNode,
    nowMs: number,
    windowFacts: Record<string, boolean>,
  ): { facts: NodeFacts; details: NodeDetails; validity: FactValidity } {
    const validity = new FactValidity(nowMs);
    const seen = (spec: WindowSpec, state: WindowState) => validity.window(spec, state);
    const policy = this.graph.spec;
    const poolName = nodePoolOf(sn);
    const pool = poolName === undefined ? undefined : this.index.nodePoolsByName.get(poolName);
    const labels = sn.node?.metadata.labels ?? {};
    const details: NodeDetails = { nodePool: poolName ?? '', instanceType: labels[LABEL_INSTANCE_TYPE] ?? '' };
    let doNotDisruptPod = false;
    let podWindowBlocked = false;
    const protectedBy = new Set<string>(); // pod protections (`pods … never REASONS`) an active pod triggers
    let pdbBlocked = false;
    let pdbMultiple = false;
    let empty = true;
    for (const pod of sn.pods) {
      if (empty && isReschedulable(pod) && evictionCost(pod) > 0) empty = false;
      if (!isActive(pod)) continue;
      const dnd = podDoNotDisrupt(pod, nowMs);
      if (dnd.until !== undefined) validity.threshold(dnd.until);
      const name = `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`;
      if (dnd.invalid)
        this.warn({
          pod: name,
          message: `Invalid karpenter.sh/do-not-disrupt annotation: ${dnd.invalid}, ignoring annotation`,
        });
      if (dnd.active && !doNotDisruptPod) {
        doNotDisruptPod = true;
        details.pod = name;
      }
      for (const p of this.podWindows.protections(pod)) {
        if (protectedBy.has(p.id)) continue;
        protectedBy.add(p.id);
        details[`protectPod_${p.id}`] = name;
      }
      if (!podWindowBlocked) {
        const held = this.podWindows.blocks(pod, nowMs, this.warn, seen);
        if (held) {
          podWindowBlocked = true;
          details.windowPod = name;
          details.window = held.window;
        }
      }
      if (!pdbBlocked && !pdbMultiple && isEvictable(pod, nowMs)) {
        const b = pdbBlock(this.index, pod);
        if (b.kind === 'blocked') {
          pdbBlocked = true;
          details.pdb = b.pdb;
        }
        if (b.kind === 'multiple') {
          pdbMultiple = true;
          details.pdbs = b.pdbs.join(', ');
        }
      }
    }
    const nc = sn.nodeClaim;
    const initialized = isInitialized(sn);
    const readyAt = consolidatableAt(sn, policy);
    if (readyAt !== undefined) {
      details.consolidatableAt = new Date(readyAt).toISOString().replace('.000Z', 'Z');
      validity.threshold(readyAt);
    }
    const expireAfter = expireAfterSeconds(sn, policy, pool);
    const created = ms(nc?.metadata.creationTimestamp);
    if (expireAfter !== null && created !== undefined) validity.threshold(created + expireAfter * 1000);
    const known = this.state.instanceTypes?.(poolName ?? '');
    // Label keys are the user's: `constructor` or `toString` must not find Object.prototype's.
    const nodeLabels: Record<string, string> = Object.create(null);
    for (const k of this.graph.labelKeys) if (Object.hasOwn(labels, k)) nodeLabels[k] = labels[k];
    const facts: NodeFacts = {
      inQueue: sn.providerID !== undefined && this.state.queued.has(sn.providerID),
      managed: nc !== undefined,
      initialized,
      deleting:
        isDeleting(sn) ||
        isInstanceTerminating(sn) ||
        (sn.providerID !== undefined && this.state.marked.has(sn.providerID)),
      nominated: this.state.nominated.has(sn.name),
      nodeDoNotDisrupt: nodeDoNotDisrupt(sn),
      hasNodePoolLabel: poolName !== undefined,
      nodePoolFound: pool !== undefined,
      doNotDisruptPod,
      podWindowBlocked,
      pdbBlocked,
      pdbMultiple,
      tgpSet: nc?.spec.terminationGracePeriod !== undefined || policy.terminationGracePeriodSeconds !== undefined,
      drifted:
        condition(nc?.status?.conditions, 'Drifted')?.status === 'True' ||
        hashDrifted(sn, pool) ||
        (nc !== undefined && sn.node !== undefined && requirementsDrifted({ ...nc.metadata.labels, ...labels }, pool)),
      expired: expireAfter !== null && created !== undefined && nowMs >= created + expireAfter * 1000,
      expirationGraceful: policy.expiration === 'graceful',
      empty,
      consolidatable: initialized && readyAt !== undefined && nowMs >= readyAt,
      consolidateNever: policy.consolidateAfterSeconds === null,
      consolidationPolicy: policy.consolidationPolicy,
      instanceTypeKnown: details.instanceType !== '' && (known === undefined || known.has(details.instanceType)),
      hasCapacityType: Object.hasOwn(labels, LABEL_CAPACITY_TYPE),
      hasZone: Object.hasOwn(labels, LABEL_ZONE),
      nodeLabels,
    };
    for (const [k, v] of Object.entries(windowFacts)) if (k.startsWith('window:w:')) facts[k as `window:${string}`] = v;
    for (const p of policy.podWindows) if (!p.window) facts[`pods:${p.id}`] = protectedBy.has(p.id);
    return { facts, details, validity };
  }

  /** The state of a pod window at an instant, as `derive` would see it. */
  windowState(spec: WindowSpec, nowMs: number): WindowState {
    return this.podWindows.state(spec, nowMs);
  }

  /** windowState, bound (kept by evaluations that outlive this deriver). */
  readonly windowStateOf = (spec: WindowSpec, nowMs: number): WindowState => this.podWindows.state(spec, nowMs);
}
