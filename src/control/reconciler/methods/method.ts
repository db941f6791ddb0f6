// SPDX-License-Identifier: Apache-2.0
// Karpenter's `Method` shape: each disruption method turns the current candidates and budget
// mapping into at most a few commands. Methods never decide candidacy or budgets — those come
// from the rule graph's evaluation; they order, simulate and pick.
import type { PolicySpec, Reason } from '../../../../rules/model.js';
import type { InstanceType } from '../../../world/cloud/provider.js';
import type { Clock } from '../../../core/clock.js';
import type { ClusterIndex } from '../../../core/cluster/state.js';
import type { EvalOutput } from '../../../core/eval/output.js';
import type { EventRecorder } from '../../../core/observe/recorder.js';
import { budgetMapping, candidatesBySavings, takeWithinBudget, type Candidate } from './candidates.js';
import type { Command, MethodName, Replacement } from './command.js';

/** The outcome of simulating the candidates' pods elsewhere (KARPENTER.md#scheduling-simulation). */
export interface MoveSimulation {
  /** Every non-pending pod found a place. */
  ok: boolean;
  error?: string;
  /** New NodeClaims the pods need, each with its compatible instance types, cheapest first. */
  replacements: Replacement[];
  /** Existing nodes the simulation placed pods on (nominated when a command from it starts), by name. */
  destinations?: string[];
  /** The run stopped once the outcome was decided (Enough): later pods, claims and errors are missing. */
  stopped?: true;
}

/**
 * What a caller reads of a move's outcome, so that a simulation may stop once it is decided:
 * whether every non-pending pod found a place (and the first that did not), and whether at most
 * `replacements` new claims hold such pods. Past either, the rest of the outcome may be missing
 * (more replacements, other errors, destinations). A simulation may ignore it.
 */
export interface Enough {
  replacements: number;
  /**
   * For a spot candidate while spot-to-spot consolidation is off: the caller reads a new claim
   * only for whether it leaves spot out (one that allows spot, or a second claim, is no move). A
   * run may then stop at the first counted claim when no pool and no pod it places could make a
   * claim leave spot out; the outcome is `stopped`, its error and claims not the whole run's.
   */
  spotOnly?: true;
}

export interface MethodContext {
  now: number;
  index: ClusterIndex;
  evaluation: EvalOutput;
  instanceTypes: ReadonlyMap<string, InstanceType>;
  events: EventRecorder;
  simulate(candidates: readonly Candidate[], consolidation: boolean, enough?: Enough): MoveSimulation;
  newId(): string;
  /** The policy governing a NodePool (for the Balanced consolidation policy). */
  policyFor?(nodePool: string): PolicySpec | undefined;
  /**
   * Time passing while the pass runs, for the consolidation time limits (methods/timeouts.ts).
   * Absent: the pass takes no time.
   */
  clock?: Clock;
  /**
   * A consolidation method gave up at its time limit (KARPENTER.md#multi-node, KARPENTER.md#single-node): count it in
   * `karpenter_voluntary_disruption_consolidation_timeouts_total`; a single-node timeout also
   * keeps the method from being marked consolidated.
   */
  timedOut?(consolidationType: 'multi' | 'single', message: string): void;
  /**
   * NodePools single-node consolidation did not reach before its last timeout; they go first
   * in the next pass. Kept by the caller across passes (the controller's in-flight state).
   */
  unreachedPools?: Set<string>;
}

/**
 * What happens to a method's command before it starts (KARPENTER.md#validation): `none` — it starts
 * at once; `shrink` — it waits 15 s, then keeps the nodes that are still candidates within the
 * budget (emptiness; a failed validation counts once); `exact` — it waits 15 s and is dropped
 * unless every node and the replacement still hold (consolidation; a failed validation counts
 * each node).
 */
export type Validation = 'none' | 'shrink' | 'exact';

/** One disruption method: its identity, its hooks into the loop, and why it is as it is. */
export interface Method {
  name: MethodName;
  reason: Reason;
  consolidationType: Command['consolidationType'];
  validation: Validation;
  /**
   * Whether this method publishes the `Unconsolidatable` events of its reason's filters
   * (KARPENTER.md#method-filters). Multi- and single-node consolidation share a reason, so only
   * one of them publishes and each event goes out once per tick.
   */
  publishesFilterEvents: boolean;
  /** Why the method exists and behaves as it does, one sentence (as the checker's STAGES say). */
  why: string;
  compute(ctx: MethodContext): Command[];
}

export function command(
  ctx: MethodContext,
  m: Method,
  candidates: Candidate[],
  replacements: Replacement[],
  nominates: readonly string[] = [],
): Command {
  return {
    id: ctx.newId(),
    method: m.name,
    reason: m.reason as Command['reason'],
    consolidationType: m.consolidationType,
    candidates: candidates.map((c) => c.ref),
    replacements,
    createdAt: ctx.now,
    launched: [],
    ...(nominates.length > 0 && { nominates: [...nominates] }),
  };
}

/** The reason's candidates, most savings first, kept while their pool's budget lasts (emptiness, multi-node). */
export function withinBudgetBySavings(ctx: MethodContext, reason: Reason): Candidate[] {
  const ordered = candidatesBySavings(reason, ctx.evaluation, ctx.index, ctx.instanceTypes);
  return takeWithinBudget(ordered, budgetMapping(ctx.evaluation, reason));
}
