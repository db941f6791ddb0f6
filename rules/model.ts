// SPDX-License-Identifier: Apache-2.0
// The checked, normalised meaning of a disruption policy. Both a .kpol policy (after check)
// and a plain Karpenter NodePool's `spec.disruption` lower to this one shape, so the
// compiler, evaluator, exporter and reconciler never care where a policy came from.
// Plain data only (JSON-serialisable): it crosses the worker boundary in the editor.
import type { Range } from '../grammar/ast.js';

/**
 * The budgeted disruption reasons. `Expired` exists only with graceful expiration
 * (KARPENTER.md#budgets-by-reason-proposal).
 */
export const REASONS = ['Empty', 'Drifted', 'Underutilized', 'Expired'] as const;
export type Reason = (typeof REASONS)[number];
/** The reasons Karpenter itself budgets. */
export const KARPENTER_REASONS = ['Empty', 'Drifted', 'Underutilized'] as const;

export type ConsolidationPolicy = 'WhenEmpty' | 'WhenEmptyOrUnderutilized' | 'Balanced';

/** Seconds, or null for `Never`. */
export type DurationOrNever = number | null;

/**
 * A recurring window `[hit, hit + duration)` for every hit of `cron`, evaluated in `timeZone`.
 * `cron` is already validated and normalised to robfig's standard 5-field dialect (macros kept
 * as written, e.g. `@daily`). `error` is set when the schedule is invalid at runtime
 * (Karpenter-format input that passed the CRD but fails robfig): the owner fails closed.
 */
export interface WindowSpec {
  cron: string;
  durationSeconds: number;
  timeZone: string; // IANA name; 'UTC' for Karpenter-format input
  error?: string;
}

/** An absolute `[from, to)` instant range in epoch milliseconds. */
export interface AbsoluteRange {
  fromMs: number;
  toMs: number;
}

export type Quantity = { kind: 'count'; value: number } | { kind: 'percent'; value: number };

/**
 * One budget. `mode: 'budget'` is Karpenter's: active → quantity, inactive → unlimited.
 * `mode: 'allow'` is kpol's allow window: active → quantity, inactive → 0.
 * `reasons: null` applies to every reason (Karpenter's nil); `[]` applies to none.
 */
export interface BudgetSpec {
  id: string; // stable within the policy, e.g. `b0`; used in rule names and explain output
  nodes: Quantity;
  reasons: Reason[] | null;
  mode: 'budget' | 'allow';
  /**
   * kpol `per reason`: an independent bucket per reason. Each reason subtracts only the nodes
   * disrupting for that reason (plus those whose reason is unknown), instead of Karpenter's
   * shared count of every disrupting node (KARPENTER.md#budget-counting step 5). Absent: shared.
   */
  perReason?: true;
  /**
   * kpol's rate budget (`budget N per D`): seconds of the sliding window. The budget then allows
   * `max(N − disruptions started within D, 0)` instead of a concurrency cap (rules/README §3.6.1).
   */
  perSeconds?: number;
  window?: WindowSpec;
  error?: string; // runtime-invalid (e.g. `nodes: "1000a%"`): fails the whole pool closed
  source?: Range;
}

/** A one-off freeze: while inside `range`, the listed reasons are blocked (0 allowed). */
export interface FreezeSpec {
  id: string;
  name?: string;
  reasons: Reason[] | null;
  range: AbsoluteRange;
  source?: Range;
}

export interface LabelRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values: string[];
}

/** All requirements must match (an empty list matches everything). */
export type LabelSelector = LabelRequirement[];

/**
 * Per-workload disruption window (KARPENTER.md#pod-disruption-schedule-proposal). `only`: the selected pods may be
 * disrupted only
 * inside the window; `never`: never inside it. Pods blocked by it block their node's voluntary
 * disruption, unless the NodeClaim has a terminationGracePeriod and the method is eventual.
 */
export interface PodWindowSpec {
  id: string;
  selector: LabelSelector;
  namespaces: string[]; // empty = any namespace
  mode: 'only' | 'never';
  /**
   * The window; absent for kpol's `pods … never REASONS` (pod protection): always in force, and
   * only for `reasons`.
   */
  window?: WindowSpec;
  /** Only the `never REASONS` form: the reasons the pods protect their node from. Absent: every reason. */
  reasons?: Reason[];
  source?: Range;
}

/**
 * Maintenance window (KARPENTER.md#maintenance-windows-proposal): while any of `windows` is active
 * (or always, when empty), the reasons are blocked on nodes matching `nodeSelector`. Every matching
 * window must allow (AND).
 */
export interface MaintenanceWindowSpec {
  id: string;
  name: string;
  reasons: Reason[] | null;
  nodeSelector: LabelSelector;
  windows: WindowSpec[];
  source?: Range;
}

/**
 * Which nodes a scoped budget counts (kpol, issue 15): `nodes` — the nodes of the carrying policy's
 * NodePools whose labels match the selector (`budget … on nodes where …`); `cluster` — every node
 * of the NodePools governed by the policies of one file (`owners`), or of those named in
 * `nodePools` among them (`cluster budget … [on nodepools …]`).
 */
export type BudgetScope =
  { kind: 'nodes'; selector: LabelSelector } | { kind: 'cluster'; nodePools: string[] | null; owners: string[] };

/**
 * A budget over a scope of nodes other than one NodePool. Deny-style like a Karpenter budget:
 * while its window is active (always without one) at most `nodes` of the scope may be disrupting
 * for its reasons; inactive, it is ignored. `id` is unique across a policy set (a cluster budget
 * is carried by every policy of its file under one id); `statement` and `at` name it in why-not
 * messages.
 */
export interface ScopedBudgetSpec {
  id: string;
  statement: string;
  at: string;
  scope: BudgetScope;
  nodes: Quantity;
  reasons: Reason[] | null;
  window?: WindowSpec;
  error?: string;
  source?: Range;
}

export type NodePoolTarget = { kind: 'names'; names: string[] } | { kind: 'selector'; selector: LabelSelector };

/** A checked policy: everything needed to decide disruptions for the NodePools it governs. */
export interface PolicySpec {
  name: string;
  origin: 'kpol' | 'karpenter'; // karpenter: lowered from a NodePool's own spec.disruption
  file?: string;
  target: NodePoolTarget;
  consolidationPolicy: ConsolidationPolicy; // default WhenEmptyOrUnderutilized
  consolidateAfterSeconds: DurationOrNever; // default 0
  expireAfterSeconds: DurationOrNever | undefined; // undefined: keep the NodePool's own (default 720h)
  expiration: 'forceful' | 'graceful';
  terminationGracePeriodSeconds?: number;
  // exactly as written: [] means unlimited; the 10% default is applied by the checker when omitted
  budgets: BudgetSpec[];
  freezes: FreezeSpec[];
  podWindows: PodWindowSpec[];
  maintenanceWindows: MaintenanceWindowSpec[];
  /** Cluster and selector budgets (kpol); absent when the policy has none. */
  scopedBudgets?: ScopedBudgetSpec[];
}

/**
 * A policy with no rules of its own and Karpenter's defaults (the comments on PolicySpec): what a
 * .kpol policy, a NodePool's own disruption spec and the nodes of no NodePool each start from.
 */
export function basePolicy(name: string, origin: PolicySpec['origin'], target: NodePoolTarget): PolicySpec {
  return {
    name,
    origin,
    target,
    consolidationPolicy: 'WhenEmptyOrUnderutilized',
    consolidateAfterSeconds: 0,
    expireAfterSeconds: undefined,
    expiration: 'forceful',
    budgets: [],
    freezes: [],
    podWindows: [],
    maintenanceWindows: [],
  };
}

/**
 * Unlimited, as a number: Karpenter's "unbounded" (math.MaxInt32), what its NodePool metrics show
 * and what a budget mapping starts from. An evaluation's allowances say `null` for it (their JSON
 * contract, rules/README §6); `countOf` is the one conversion between the two.
 */
export const UNBOUNDED = 2147483647;

/** An allowance as a count: `null` (unlimited) becomes UNBOUNDED. */
export const countOf = (allowed: number | null): number => allowed ?? UNBOUNDED;
