// SPDX-License-Identifier: Apache-2.0
// One reconcile of the disruption controller (KARPENTER.md#disruption-loop): evaluate the rule graphs,
// undo stale taints, then try each method in Karpenter's order; the first method with a
// command acts (after the 15 s validation for emptiness and consolidation) and the loop ends.
import { publishPauseEvents } from './pause-events.js';
import { countOf, type PolicySpec, type Reason } from '../../../rules/model.js';
import type { InstanceType } from '../../world/cloud/provider.js';
import type { ClusterIndex } from '../../core/cluster/state.js';
import type { Node, NodePool } from '../../core/cluster/types.js';
import type { Clock } from '../../core/clock.js';
import type { Evaluator } from '../../core/eval/evaluate-cluster.js';
import type { EvalOutput, NodeResult } from '../../core/eval/output.js';
import { resolvePolicies } from '../../core/eval/resolve-policies.js';
import type { Metrics } from '../../core/observe/metrics.js';
import type { EventRecorder } from '../../core/observe/recorder.js';
import {
  consolidationRejected,
  unconsolidatable,
  UNCONSOLIDATABLE_DEDUPE_MS,
} from '../../core/observe/event-reasons.js';
import { BlockedEvents, WITH_EVENT } from './blocked-events.js';
import {
  budgetMapping,
  candidatesFor,
  candidatesNamed,
  countCandidates,
  takeWithinBudget,
  type Candidate,
} from './methods/candidates.js';
import { digestOf, type VerdictDigest } from './methods/verdict-digest.js';
import { changedPlaces, RepeatedBatch, type Publish } from '../../core/observe/repeated-batch.js';
import { commandForNode, describeCommand, estimatedSavings, nodeAndClaim, type Command } from './methods/command.js';
import type { ClusterView } from './cluster-view.js';
import type { InFlight } from './disruption-state.js';
import { decideConsolidation } from './methods/consolidation.js';
import { drift } from './methods/drift.js';
import { gracefulExpiration } from './methods/graceful-expiration.js';
import { emptiness } from './methods/emptiness.js';
import type { Method, MethodContext, MoveSimulation } from './methods/method.js';
import { multiNode } from './methods/multi-node.js';
import { singleNode } from './methods/single-node.js';
import type { OrchestrationQueue } from './queue.js';
import { TaintScan } from './taint-scan.js';

export const VALIDATION_DELAY_MS = 15_000;
/** The consolidated state is forcibly refreshed at least this often (KARPENTER.md#consolidated-cache). */
export const CONSOLIDATED_REFRESH_MS = 5 * 60_000;

type Blocked = ReturnType<typeof digestOf>['blocked'];

/**
 * Block codes of candidate construction (`NewCandidate`, KARPENTER.md#candidates) and kpol's windows: such a node never
 * reaches a method's filters.
 */
const CANDIDATE_CODES: ReadonlySet<string> = new Set(['AlreadyDisrupting', 'NotManaged', ...WITH_EVENT]);
/**
 * Per-method filter codes that Karpenter reports as `Unconsolidatable` (KARPENTER.md#method-filters), by the method's
 * reason.
 */
const FILTER_CODES: Partial<Record<Reason, readonly string[]>> = {
  Empty: ['ConsolidationDisabled'],
  Underutilized: [
    'InstanceTypeNotFound',
    'MissingCapacityType',
    'MissingZone',
    'ConsolidationDisabled',
    'ConsolidationPolicyWhenEmpty',
  ],
};

/** Karpenter's production order (v1.5+), with kpol's graceful expiration after drift. */
export const METHODS: readonly Method[] = [emptiness, drift, gracefulExpiration, multiNode, singleNode];

export interface DisruptionDeps {
  clock: Clock;
  view: ClusterView;
  evaluator: Evaluator;
  policies: () => readonly PolicySpec[];
  instanceTypes: ReadonlyMap<string, InstanceType>;
  events: EventRecorder;
  metrics: Metrics;
  queue: OrchestrationQueue;
  state: InFlight;
  simulate: (index: ClusterIndex, candidates: readonly Candidate[], consolidation: boolean) => MoveSimulation;
  /**
   * The simulations of one pass over an index at an instant, prepared once and shared by every
   * move the methods try (src/control/reconciler/simulation-pass.ts); without it each move calls `simulate`.
   */
  pass?: (index: ClusterIndex, now: number) => MethodContext['simulate'];
  log?: (msg: string, fields: Record<string, unknown>) => void;
  /**
   * The Nodes whose left-over disrupted taint it may remove. Default: every Node. Standalone on a
   * real cluster: only the simulated cloud's (src/world/cloud/ownership.ts); another provider's taint
   * belongs to that provider's disruption in progress.
   */
  ownsNode?: (node: Node) => boolean;
}

export interface ReconcileResult {
  evaluation: EvalOutput;
  started?: Command;
  waitingValidation?: Command;
}

export class DisruptionController {
  private pending: { command: Command; method: Method; validateAt: number } | undefined;
  private ids = 0;

  private readonly blocked: BlockedEvents;
  /**
   * Unconsolidatable events are published per node whose verdict changed (RepeatedBatch.runItems);
   * off, the whole batch again whenever the evaluation changed (the equality test's reference).
   */
  itemizedEvents = true;
  /**
   * The consolidated state's refresh publishes again only the events whose last publish's window
   * has ended; off, every one (the recorder drops the rest).
   */
  private replaySkipsDropped = true;
  /**
   * The verdict digest of each evaluation is followed from the last one's through the verdicts that
   * are other objects (verdict-digest.ts); off, built from every node unless the evaluator made
   * the record from the last one.
   */
  private followsVerdicts = true;
  /** The last reconcile's evaluation, whose digest the next one's is followed from. */
  private lastEvaluation: EvalOutput | undefined;
  /** The clean-up step's reading of each index, kept across indexes (taint-scan.ts). */
  readonly taints: TaintScan;

  /**
   * The per-tick scans read only what changed since the last reconcile (Runtime.incrementalScans):
   * the clean-up's taint scan, the verdict digest, DisruptionBlocked and Unconsolidatable events.
   * Off: each walks every node, every tick — the reference the equality tests compare with.
   */
  set incremental(on: boolean) {
    this.itemizedEvents = on;
    this.replaySkipsDropped = on;
    this.followsVerdicts = on;
    this.taints.incremental = on;
    this.blocked.incremental = on;
  }
  /** Unconsolidatable events, per method reason (each method's batch differs). */
  private readonly unconsolidatable = new Map<Reason, RepeatedBatch>();

  constructor(private readonly d: DisruptionDeps) {
    const changes = (a: ClusterIndex, b: ClusterIndex) => d.view.changesBetween(a, b);
    this.blocked = new BlockedEvents(d.events, changes);
    this.taints = new TaintScan(changes);
  }

  private async evaluate(): Promise<{ index: ClusterIndex; evaluation: EvalOutput }> {
    const index = await this.d.view.current();
    const now = this.d.clock.now();
    this.d.state.expireNominations(now);
    const evaluation = await this.d.evaluator.evaluate(index, this.d.policies(), now, this.d.state);
    return { index, evaluation };
  }

  private context(index: ClusterIndex, evaluation: EvalOutput): MethodContext {
    const now = this.d.clock.now();
    return {
      now,
      index,
      evaluation,
      instanceTypes: this.d.instanceTypes,
      events: this.d.events,
      simulate: this.d.pass ? this.d.pass(index, now) : (c, consolidation) => this.d.simulate(index, c, consolidation),
      policyFor: (pool) =>
        resolvePolicies(
          index.snapshot.nodePools.filter((np) => np.metadata.name === pool),
          this.d.policies(),
        ).byPool.get(pool)?.policy,
      newId: () => `cmd-${++this.ids}`,
      clock: this.d.clock,
      unreachedPools: this.d.state.unreachedPools,
      timedOut: (type, message) => {
        this.d.metrics.inc('karpenter_voluntary_disruption_consolidation_timeouts_total', { consolidation_type: type });
        this.d.log?.(message, { consolidationType: type });
        if (type === 'single') this.singleTimedOut = true;
      },
    };
  }

  /** Set when single-node consolidation gave up at its deadline in this reconcile: it is not "consolidated" then. */
  private singleTimedOut = false;

  async reconcile(): Promise<ReconcileResult> {
    const { index, evaluation } = await this.evaluate();
    // The digest every step below reads, followed from the last reconcile's where it can be.
    digestOf(evaluation, this.followsVerdicts ? this.lastEvaluation : undefined);
    this.lastEvaluation = evaluation;
    await this.cleanup(index);
    this.publishBudgets(evaluation);
    publishPauseEvents(evaluation, this.d.events);
    this.blocked.publish(evaluation, index, this.d.clock.now());
    const pools = index.nodePoolsByName as ReadonlyMap<string, NodePool>;
    if (this.pending) {
      if (this.d.clock.now() < this.pending.validateAt) return { evaluation, waitingValidation: this.pending.command };
      const { command, method } = this.pending;
      this.pending = undefined;
      const valid = this.validate(method, command, this.context(index, evaluation));
      if (!valid) return { evaluation };
      await this.d.queue.start(valid, pools);
      this.d.view.invalidate();
      return { evaluation, started: valid };
    }
    const ctx = this.context(index, evaluation);
    const now = this.d.clock.now();
    // Only a method with eligible nodes compares verdicts, by their fingerprint only when the index is the same.
    let verdicts: VerdictDigest | undefined;
    for (const method of METHODS) {
      if (method.publishesFilterEvents) this.publishUnconsolidatable(method.reason, evaluation, index);
      const eligible = countCandidates(method.reason, evaluation, index);
      this.d.metrics.set(
        'karpenter_voluntary_disruption_eligible_nodes',
        { reason: method.reason.toLowerCase() },
        eligible,
      );
      if (eligible === 0) continue;
      verdicts ??= digestOf(evaluation);
      if (this.stillConsolidated(method, index, verdicts, evaluation, now)) continue;
      this.singleTimedOut = false;
      const published = new RepeatedBatch(this.d.events);
      const [command] = method.compute({ ...ctx, events: published.capture() });
      if (!command) {
        if (!this.singleTimedOut) this.markConsolidated(method, index, verdicts, evaluation, now, published);
        continue;
      }
      this.d.log?.('computed disruption command', { method: method.name, command: describeCommand(command) });
      if (method.validation !== 'none') {
        this.pending = { command, method, validateAt: this.d.clock.now() + VALIDATION_DELAY_MS };
        return { evaluation, waitingValidation: command };
      }
      await this.d.queue.start(command, pools);
      this.d.view.invalidate();
      return { evaluation, started: command };
    }
    return { evaluation };
  }

  /**
   * KARPENTER.md#consolidated-cache: emptiness and consolidation remember the state in which they found nothing to do
   * and
   * skip until it changes — a new index (some object changed) or any node's verdict changed
   * (kpol derives Consolidatable and the other holds from time, where Karpenter writes a
   * condition that changes its state) — or 5 minutes pass. Not remembered when budgets held
   * candidates back: the budgets may open without a change.
   *
   * The 5-minute refresh is Karpenter's guard against changes its state does not track (prices,
   * say). kpol's catalog is fixed for the run, and an evaluation reused across instants (the same
   * `nodes` record, src/core/eval/evaluation-span.ts) proves that nothing the methods read moved since
   * — objects, policies, in-flight state, and every time-dependent fact (consolidateAfter on
   * candidates and destinations, do-not-disrupt durations, windows) — so the method would find
   * nothing again, and publish the same events (Unconsolidatable, each deduplicated): the
   * refresh replays those events instead of recomputing — the same decisions and events.
   */
  private readonly consolidated = new Map<
    Method,
    {
      index: ClusterIndex;
      verdicts: VerdictDigest;
      nodes: EvalOutput['nodes'];
      at: number;
      /** The events the method published when it found nothing, replayed as it would publish them again. */
      published: RepeatedBatch;
    }
  >();

  private stillConsolidated(
    method: Method,
    index: ClusterIndex,
    verdicts: VerdictDigest,
    evaluation: EvalOutput,
    now: number,
  ): boolean {
    const c = this.consolidated.get(method);
    if (c === undefined || c.index !== index) return false;
    if (c.verdicts !== verdicts && c.verdicts.fingerprint() !== verdicts.fingerprint()) return false;
    if (now - c.at < CONSOLIDATED_REFRESH_MS) return true;
    if (c.nodes !== evaluation.nodes) return false;
    c.published.replay(now, !this.replaySkipsDropped);
    c.at = now;
    return true;
  }

  private markConsolidated(
    method: Method,
    index: ClusterIndex,
    verdicts: VerdictDigest,
    evaluation: EvalOutput,
    now: number,
    published: RepeatedBatch,
  ): void {
    if (method.validation === 'none') return;
    const budget = budgetMapping(evaluation, method.reason);
    const constrained = candidatesFor(method.reason, evaluation, index, this.d.instanceTypes).some(
      (c) => budget.room(c) <= 0,
    );
    if (!constrained) this.consolidated.set(method, { index, verdicts, nodes: evaluation.nodes, at: now, published });
  }

  /**
   * KARPENTER.md#validation: after the delay, the command must still hold; emptiness may shrink, consolidation may not.
   */
  private validate(method: Method, cmd: Command, ctx: MethodContext): Command | undefined {
    const reason = cmd.reason as Reason;
    // The command's own candidates that still are (a map of every candidate was most of a
    // validation's own cost at 5,000 nodes).
    const still = candidatesNamed(
      reason,
      ctx.evaluation,
      ctx.index,
      ctx.instanceTypes,
      cmd.candidates.map((c) => c.node),
    );
    const budget = budgetMapping(ctx.evaluation, reason);
    const kept = takeWithinBudget(
      cmd.candidates.map((c) => still.get(c.node)).filter((c): c is Candidate => c !== undefined),
      budget,
    );
    const reject = (category: 'budget' | 'scheduling' | 'churn') => {
      this.d.metrics.inc(
        'karpenter_voluntary_disruption_failed_validations_total',
        { consolidation_type: cmd.consolidationType },
        method.validation === 'shrink' ? 1 : cmd.candidates.length,
      );
      const savings = estimatedSavings(cmd.candidates, cmd.replacements);
      for (const c of cmd.candidates) {
        const command = commandForNode(cmd.candidates, cmd.replacements.length, c.node);
        for (const object of nodeAndClaim(c))
          this.d.events.publish(consolidationRejected(object, command, category, savings));
      }
      this.d.log?.('abandoning disruption command after validation', { command: cmd.id, category });
      return undefined;
    };
    if (method.validation === 'shrink') {
      if (kept.length === 0)
        return reject(countCandidates(reason, ctx.evaluation, ctx.index) === 0 ? 'churn' : 'budget');
      return { ...cmd, candidates: kept.map((c) => c.ref), createdAt: ctx.now };
    }
    if (kept.length !== cmd.candidates.length)
      return reject(cmd.candidates.some((c) => !still.has(c.node)) ? 'churn' : 'budget');
    // Only whether it is still a move, and which replacement, count: the run may stop at a pod left without a place.
    const again = decideConsolidation(ctx, kept, { replacements: Infinity });
    if (again.kind === 'none') return reject('scheduling');
    if ((again.kind === 'delete') !== (cmd.replacements.length === 0)) return reject('scheduling');
    if (
      again.kind === 'replace' &&
      !cmd.replacements[0].instanceTypes.every((t) => again.replacement.instanceTypes.includes(t))
    ) {
      cmd.replacements[0].instanceTypes = cmd.replacements[0].instanceTypes.filter((t) =>
        again.replacement.instanceTypes.includes(t),
      );
      if (cmd.replacements[0].instanceTypes.length === 0) return reject('scheduling');
    }
    // The re-simulation decides where the pods go: those nodes are nominated when the command starts.
    return { ...cmd, createdAt: ctx.now, nominates: again.destinations ?? [] };
  }

  /**
   * KARPENTER.md#disruption-loop step 3: a disrupted taint on a node no command holds is left over from a failed or
   * crashed command.
   */
  private async cleanup(index: ClusterIndex): Promise<void> {
    const { existing, tainted } = this.taints.scan(index);
    let changed = false;
    for (const sn of tainted) {
      if (sn.providerID && (this.d.state.marked.has(sn.providerID) || this.d.state.queued.has(sn.providerID))) continue;
      if (this.d.ownsNode && sn.node && !this.d.ownsNode(sn.node)) continue;
      await this.d.queue.taint(sn.name, false);
      if (sn.nodeClaim) await this.d.queue.setReason(sn.nodeClaim.metadata.name, undefined);
      changed = true;
    }
    this.d.state.prune(existing);
    if (changed) this.d.view.invalidate();
  }

  /**
   * Karpenter's per-method filters (`ShouldDisrupt`, KARPENTER.md#method-filters) record `Unconsolidatable` on
   * the Node and NodeClaim (15 min dedupe) for a node that passed candidate construction but is
   * filtered out: consolidation disabled (Emptiness and consolidation), and for consolidation an
   * unknown instance type, a missing capacity-type or zone label, or a WhenEmpty pool with a
   * non-empty node. Single-node consolidation's checks are the same as multi-node's, and the
   * dedupe would drop its repeats, so it is done for Emptiness and multi-node only.
   */
  private publishUnconsolidatable(reason: Reason, evaluation: EvalOutput, index: ClusterIndex): void {
    const codes = FILTER_CODES[reason];
    if (!codes) return;
    let batch = this.unconsolidatable.get(reason);
    if (!batch) this.unconsolidatable.set(reason, (batch = new RepeatedBatch(this.d.events)));
    const { blocked } = digestOf(evaluation);
    const publishNode = ([name, n]: readonly [string, NodeResult], publish: Publish): void => {
      if (n.blocked.some((b) => CANDIDATE_CODES.has(b.code))) return;
      const b = n.blocked.find((x) => codes.includes(x.code));
      if (!b) return;
      const nc = index.nodesByName.get(name)?.nodeClaim;
      publish(unconsolidatable({ kind: 'Node', name }, b.message), UNCONSOLIDATABLE_DEDUPE_MS);
      if (nc)
        publish(unconsolidatable({ kind: 'NodeClaim', name: nc.metadata.name }, b.message), UNCONSOLIDATABLE_DEDUPE_MS);
    };
    const now = this.d.clock.now();
    // A node's verdict is a new object whenever its Node or NodeClaim changed (the evaluator's
    // cache keys on both), so an unchanged verdict at the same place publishes what it did.
    if (this.itemizedEvents)
      batch.runItems(blocked, now, (last, items) => this.changedVerdicts(last, items), publishNode);
    else batch.run(blocked, now, (publish) => blocked.forEach((item) => publishNode(item, publish)));
  }

  /** The last comparison of two evaluations' blocked nodes: each method's batch asks for the same one. */
  private lastComparison: { last: Blocked; items: Blocked; places: readonly number[] } | undefined;

  /** Places where the blocked nodes differ (another node, or a new verdict), computed once per pair. */
  private changedVerdicts(last: Blocked, items: Blocked): readonly number[] {
    const c = this.lastComparison;
    if (c?.last === last && c.items === items) return c.places;
    const places = changedPlaces(last, items, (a, b) => a[0] === b[0] && a[1] === b[1]);
    this.lastComparison = { last, items, places };
    return places;
  }

  private readonly gaugedPools = new Map<string, EvalOutput['nodePools'][string]>();

  /** Budget gauges and the NodePool DisruptionBlocked event (KARPENTER.md#budget-counting step 4). */
  private publishBudgets(evaluation: EvalOutput): void {
    for (const [pool, p] of Object.entries(evaluation.nodePools)) {
      // A pool result the evaluator kept is the one whose gauges are already set (the gauges are never cleared).
      const gauged = this.gaugedPools.get(pool) === p;
      this.gaugedPools.set(pool, p);
      for (const [reason, budget] of Object.entries(p.budgets)) {
        if (!gauged) {
          this.d.metrics.set('karpenter_nodepools_allowed_disruptions', { nodepool: pool, reason }, countOf(budget));
          this.d.metrics.set('karpenter_nodepools_nodes_consuming_budgets', { nodepool: pool, reason }, p.disrupting);
        }
        if (p.nodes > 0 && budget === 0) {
          this.d.events.publish(
            {
              type: 'Normal',
              reason: 'DisruptionBlocked',
              message: `No allowed disruptions for disruption reason ${reason} due to blocking budget`,
              object: { kind: 'NodePool', name: pool },
            },
            60_000,
          );
        }
      }
    }
  }
}
