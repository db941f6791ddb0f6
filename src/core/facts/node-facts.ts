// SPDX-License-Identifier: Apache-2.0
// Derives the fact catalog's node facts (rules/facts.ts) from the joined cluster at an instant.
// Facts describe; the rule graph decides. Pod-level work is linear in bound pods with caches
// per label set, so 150,000 pods cost one pass, not one rule-engine run each.
import type { RuleGraph } from '../../../rules/compile.js';
import type { NodeDetails, NodeFacts } from '../../../rules/facts.js';
import type { PolicySpec, Reason, WindowSpec } from '../../../rules/model.js';
import { parseKarpenterDurationOrNever } from '../../../rules/duration.js';
import {
  findCondition,
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
  type PdbBlock,
  type StateNode,
} from '../cluster/state.js';
import {
  ANNOTATION_DO_NOT_DISRUPT,
  ANNOTATION_NODEPOOL_HASH,
  ANNOTATION_NODEPOOL_HASH_VERSION,
  ANNOTATION_POD_DELETION_COST,
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_TYPE,
  LABEL_ZONE,
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
  const init = findCondition(sn.nodeClaim?.status?.conditions, 'Initialized');
  const ref =
    ms(sn.nodeClaim?.status?.lastPodEventTime) ??
    ms(init?.lastTransitionTime) ??
    ms(sn.nodeClaim?.metadata.creationTimestamp);
  return ref === undefined ? undefined : ref + after * 1000;
}

/**
 * The node facts that move with time (thresholds crossed, pods' do-not-disrupt durations and
 * windows) or with the reconciler's in-flight state; every other node fact is fixed by the
 * node's objects, policy and PDBs (PreparedNode).
 */
export const INSTANT_FACTS = [
  'inQueue',
  'deleting',
  'nominated',
  'doNotDisruptPod',
  'podWindowBlocked',
  'pdbBlocked',
  'pdbMultiple',
  'expired',
  'consolidatable',
  'instanceTypeKnown',
] as const satisfies readonly (keyof NodeFacts)[];
export type InstantFacts = Pick<NodeFacts, (typeof INSTANT_FACTS)[number]>;

/** A node's INSTANT_FACTS at an instant, the details they name, and how long they hold. */
export interface NodeInstant {
  facts: InstantFacts;
  details: NodeDetails;
  validity: FactValidity;
}

/** A pod that can make a node fact true at some instant, with what it reads that does not move with time. */
interface TimedPod {
  pod: Pod;
  name: string;
  /** The pod protections (`pods … never REASONS`) that select it. */
  protections: readonly { id: string }[];
  /** Whether its PDBs stop its eviction (the caller decides at each instant whether it is evictable). */
  pdb: PdbBlock;
}

/**
 * Everything a node's facts are derived from that does not move with time, given unchanged
 * objects, policy and PDBs: the node's own facts, and of its pods only those that can make a
 * time-dependent fact true. Derived once, it serves every instant (`NodeFactDeriver.at`).
 */
export interface PreparedNode {
  poolName: string | undefined;
  instanceType: string;
  /**
   * The active pods, in pod order, that have a do-not-disrupt annotation, a pod protection, a pod
   * window that may hold them, or PDBs that stop their eviction. Every other pod adds nothing to
   * `derive` at any instant: no do-not-disrupt, no protection, no window, no PDB block, no warning.
   */
  timedPods: readonly TimedPod[];
  /** The pod protections (`pods … never REASONS`) some active pod triggers. */
  protectedBy: ReadonlySet<string>;
  empty: boolean;
  managed: boolean;
  initialized: boolean;
  /** Deleting by its own objects (the in-flight marks are added at each instant). */
  deleting: boolean;
  nodeDoNotDisrupt: boolean;
  nodePoolFound: boolean;
  tgpSet: boolean;
  drifted: boolean;
  /** When consolidateAfter has elapsed; undefined if never. */
  readyAt: number | undefined;
  consolidatableAt: string | undefined;
  /** When the node expires; undefined if never. */
  expiresAt: number | undefined;
  hasCapacityType: boolean;
  hasZone: boolean;
  nodeLabels: Record<string, string>;
}

/** Drifted by condition, by hash or by requirements (KARPENTER.md#drift-detection). */
function drifted(sn: StateNode, pool: NodePool | undefined): boolean {
  const nc = sn.nodeClaim;
  return (
    findCondition(nc?.status?.conditions, 'Drifted')?.status === 'True' ||
    hashDrifted(sn, pool) ||
    (nc !== undefined &&
      sn.node !== undefined &&
      requirementsDrifted({ ...nc.metadata.labels, ...sn.node.metadata.labels }, pool))
  );
}

const preparedKeys = new WeakMap<RuleGraph, string>();

/**
 * Everything `prepare` reads of a policy and its rule graph, as one string: a node prepared under
 * one policy is prepared alike under another with the same key, so an edit of a policy's budgets,
 * say, prepares none of its nodes again. Unset and `Never` differ (`'unset'` and null).
 */
export function preparedKeyOf(graph: RuleGraph): string {
  let key = preparedKeys.get(graph);
  if (key === undefined) {
    const p = graph.spec;
    const unset = (x: unknown) => (x === undefined ? 'unset' : x);
    key = JSON.stringify([
      p.origin,
      p.file ?? p.name,
      unset(p.consolidateAfterSeconds),
      unset(p.expireAfterSeconds),
      unset(p.terminationGracePeriodSeconds),
      p.podWindows,
      graph.labelKeys,
    ]);
    preparedKeys.set(graph, key);
  }
  return key;
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
   * `windowFacts` are the caller's to compare): every active pod read at the instant.
   */
  derive(
    sn: StateNode,
    nowMs: number,
    windowFacts: Record<string, boolean>,
  ): { facts: NodeFacts; details: NodeDetails; validity: FactValidity } {
    return this.at(this.prepare(sn, true), sn, nowMs, windowFacts);
  }

  /**
   * The part of `derive` that does not read the clock nor the in-flight state. It holds for as
   * long as the node's objects (Node, NodeClaim, bound pods, NodePool), what it reads of the
   * policy (preparedKeyOf: keep the two in step; test/eval/fact-combinations.test.ts records what each
   * reads and fails on a field the key leaves out) and what the PDBs decide (see pdbVerdictKey in
   * src/core/eval/evaluate-cluster.ts) are unchanged.
   * `everyPod` keeps every active pod for the instant, not only those that can move with time
   * (`derive`: the reference the prepared path is tested against).
   */
  prepare(sn: StateNode, everyPod = false): PreparedNode {
    const policy = this.graph.spec;
    const poolName = nodePoolOf(sn);
    const pool = poolName === undefined ? undefined : this.index.nodePoolsByName.get(poolName);
    const labels = sn.node?.metadata.labels ?? {};
    const timedPods: TimedPod[] = [];
    const protectedBy = new Set<string>();
    let empty = true;
    for (const pod of sn.pods) {
      if (empty && isReschedulable(pod) && evictionCost(pod) > 0) empty = false;
      if (!isActive(pod)) continue;
      const protections = this.podWindows.protections(pod);
      for (const p of protections) protectedBy.add(p.id);
      const pdb = pdbBlock(this.index, pod);
      if (
        everyPod ||
        pod.metadata.annotations?.[ANNOTATION_DO_NOT_DISRUPT] !== undefined ||
        protections.length > 0 ||
        pdb.kind !== 'none' ||
        this.podWindows.mayBlock(pod)
      )
        timedPods.push({ pod, name: `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`, protections, pdb });
    }
    const nc = sn.nodeClaim;
    const readyAt = consolidatableAt(sn, policy);
    const expireAfter = expireAfterSeconds(sn, policy, pool);
    const created = ms(nc?.metadata.creationTimestamp);
    // Label keys are the user's: `constructor` or `toString` must not find Object.prototype's.
    const nodeLabels: Record<string, string> = Object.create(null);
    for (const k of this.graph.labelKeys) if (Object.hasOwn(labels, k)) nodeLabels[k] = labels[k];
    return {
      poolName,
      instanceType: labels[LABEL_INSTANCE_TYPE] ?? '',
      timedPods,
      protectedBy,
      empty,
      managed: nc !== undefined,
      initialized: isInitialized(sn),
      deleting: isDeleting(sn) || isInstanceTerminating(sn),
      nodeDoNotDisrupt: nodeDoNotDisrupt(sn),
      nodePoolFound: pool !== undefined,
      tgpSet: nc?.spec.terminationGracePeriod !== undefined || policy.terminationGracePeriodSeconds !== undefined,
      drifted: drifted(sn, pool),
      readyAt,
      consolidatableAt: readyAt === undefined ? undefined : new Date(readyAt).toISOString().replace('.000Z', 'Z'),
      expiresAt: expireAfter !== null && created !== undefined ? created + expireAfter * 1000 : undefined,
      hasCapacityType: Object.hasOwn(labels, LABEL_CAPACITY_TYPE),
      hasZone: Object.hasOwn(labels, LABEL_ZONE),
      nodeLabels,
    };
  }

  /** The node's facts at `nowMs` from its prepared part (see `derive`). */
  at(
    prep: PreparedNode,
    sn: StateNode,
    nowMs: number,
    windowFacts: Record<string, boolean>,
  ): { facts: NodeFacts; details: NodeDetails; validity: FactValidity } {
    const { facts, details, validity } = this.instant(prep, sn, nowMs);
    return { facts: this.factsOf(prep, facts, windowFacts), details, validity };
  }

  /**
   * The node's INSTANT_FACTS at `nowMs` and the details they name, with how long they hold: the
   * prepared node's pods that move with time, its thresholds, and the in-flight state.
   */
  instant(prep: PreparedNode, sn: StateNode, nowMs: number): NodeInstant {
    const validity = new FactValidity(nowMs);
    const seen = (spec: WindowSpec, state: WindowState) => validity.window(spec, state);
    const details: NodeDetails = { nodePool: prep.poolName ?? '', instanceType: prep.instanceType };
    let doNotDisruptPod = false;
    let podWindowBlocked = false;
    let pdbBlocked = false;
    let pdbMultiple = false;
    for (const { pod, name, protections, pdb } of prep.timedPods) {
      const dnd = podDoNotDisrupt(pod, nowMs);
      if (dnd.until !== undefined) validity.threshold(dnd.until);
      if (dnd.invalid)
        this.warn({
          pod: name,
          message: `Invalid karpenter.sh/do-not-disrupt annotation: ${dnd.invalid}, ignoring annotation`,
        });
      if (dnd.active && !doNotDisruptPod) {
        doNotDisruptPod = true;
        details.pod = name;
      }
      for (const p of protections) {
        // The first pod (in pod order) a protection selects names it.
        const key = `protectPod_${p.id}` as const;
        if (!Object.hasOwn(details, key)) details[key] = name;
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
        if (pdb.kind === 'blocked') {
          pdbBlocked = true;
          details.pdb = pdb.pdb;
        }
        if (pdb.kind === 'multiple') {
          pdbMultiple = true;
          details.pdbs = pdb.pdbs.join(', ');
        }
      }
    }
    const readyAt = prep.readyAt;
    if (readyAt !== undefined) {
      details.consolidatableAt = prep.consolidatableAt;
      validity.threshold(readyAt);
    }
    if (prep.expiresAt !== undefined) validity.threshold(prep.expiresAt);
    const known = this.state.instanceTypes?.(prep.poolName ?? '');
    const facts: InstantFacts = {
      inQueue: sn.providerID !== undefined && this.state.queued.has(sn.providerID),
      deleting: prep.deleting || (sn.providerID !== undefined && this.state.marked.has(sn.providerID)),
      nominated: this.state.nominated.has(sn.name),
      doNotDisruptPod,
      podWindowBlocked,
      pdbBlocked,
      pdbMultiple,
      expired: prep.expiresAt !== undefined && nowMs >= prep.expiresAt,
      consolidatable: prep.initialized && readyAt !== undefined && nowMs >= readyAt,
      instanceTypeKnown: prep.instanceType !== '' && (known === undefined || known.has(prep.instanceType)),
    };
    return { facts, details, validity };
  }

  /** The whole fact set: the prepared node's facts, its INSTANT_FACTS and the policy's node window facts. */
  factsOf(prep: PreparedNode, now: InstantFacts, windowFacts: Record<string, boolean>): NodeFacts {
    const policy = this.graph.spec;
    const facts: NodeFacts = {
      inQueue: now.inQueue,
      managed: prep.managed,
      initialized: prep.initialized,
      deleting: now.deleting,
      nominated: now.nominated,
      nodeDoNotDisrupt: prep.nodeDoNotDisrupt,
      hasNodePoolLabel: prep.poolName !== undefined,
      nodePoolFound: prep.nodePoolFound,
      doNotDisruptPod: now.doNotDisruptPod,
      podWindowBlocked: now.podWindowBlocked,
      pdbBlocked: now.pdbBlocked,
      pdbMultiple: now.pdbMultiple,
      tgpSet: prep.tgpSet,
      drifted: prep.drifted,
      expired: now.expired,
      expirationGraceful: policy.expiration === 'graceful',
      empty: prep.empty,
      consolidatable: now.consolidatable,
      consolidateNever: policy.consolidateAfterSeconds === null,
      consolidationPolicy: policy.consolidationPolicy,
      instanceTypeKnown: now.instanceTypeKnown,
      hasCapacityType: prep.hasCapacityType,
      hasZone: prep.hasZone,
      nodeLabels: prep.nodeLabels,
    };
    for (const [k, v] of Object.entries(windowFacts)) if (k.startsWith('window:w:')) facts[k as `window:${string}`] = v;
    for (const p of policy.podWindows) if (!p.window) facts[`pods:${p.id}`] = prep.protectedBy.has(p.id);
    return facts;
  }

  /** The state of a pod window at an instant, as `derive` would see it. */
  windowState(spec: WindowSpec, nowMs: number): WindowState {
    return this.podWindows.state(spec, nowMs);
  }

  /** windowState, bound (kept by evaluations that outlive this deriver). */
  readonly windowStateOf = (spec: WindowSpec, nowMs: number): WindowState => this.podWindows.state(spec, nowMs);
}
