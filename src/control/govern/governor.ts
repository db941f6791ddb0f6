// SPDX-License-Identifier: Apache-2.0
// Govern mode: kpol next to a real Karpenter. Every tick it evaluates the governing policies'
// rule graphs over the cluster and drives Karpenter's own controls to the result — NodePool
// budgets and settings (nodepool-apply.ts, karpenter-budgets.ts), node holds (node-holds.ts),
// and, for graceful expiration, deleting expired NodeClaims within the Expired budget. kpol
// launches, drains and terminates nothing: Karpenter does, with its own cloud provider. Every
// decision comes from the Evaluator; this module only turns it into writes.
import { KARPENTER_REASONS, type PolicySpec, type Reason } from '../../../rules/model.js';
import type { ClusterClient } from '../../core/cluster/client.js';
import { deepEqual } from '../../core/cluster/memory/deep.js';
import { isDeleting, type ClusterIndex } from '../../core/cluster/state.js';
import type { KubeObject, Node, NodePool } from '../../core/cluster/types.js';
import type { Clock } from '../../core/clock.js';
import { Evaluator, reasonsInScope } from '../../core/eval/evaluate-cluster.js';
import type { EvalOutput } from '../../core/eval/output.js';
import { resolvePolicies } from '../../core/eval/resolve-policies.js';
import { EventLog } from '../../core/observe/event-log.js';
import type { Logger } from '../../core/observe/logger.js';
import { ClusterView } from '../reconciler/cluster-view.js';
import { publishPauseEvents } from '../reconciler/pause-events.js';
import { ceilMinute, governedBudgets } from './karpenter-budgets.js';
import { sharesOf } from './scope-shares.js';
import type { StartCount } from '../../../rules/budgets.js';
import { counterOf, hasRateBudgets, rateStartsOf } from '../../core/eval/rate-use.js';
import { recordObservedStarts } from '../reconciler/disruption-record.js';
import {
  DISRUPTION_STARTS_ANNOTATION,
  startSecond,
  type DisruptionStart,
} from '../../core/cluster/disruption-starts.js';
import { createGovernMetrics, type GovernMetrics } from './govern-metrics.js';
import {
  ANNOTATION_DECISION,
  ANNOTATION_GOVERNED_BY,
  governApply,
  governedFields,
  holdsFields,
  restoreApply,
  GOVERNED_BY_PAUSE,
  pausedFields,
  savedUserSettings,
  userSettingsOf,
  type PoolDecision,
} from './nodepool-apply.js';
import { holdApply, holdStateOf, holdText, releaseApply, ANNOTATION_HOLD } from './node-holds.js';

/** Server-side apply under kpol's field manager (src/edge/kube/kube-cluster.ts). */
export interface Applier {
  apply<T extends KubeObject>(obj: KubeObject, o?: { force?: boolean }): Promise<T>;
}

export interface GovernorOptions {
  client: ClusterClient & Applier;
  clock: Clock;
  logger: Logger;
  /** Karpenter blocks every reason this long (plus at most a minute) after kpol's last renewal. */
  failClosedAfterMs: number;
  /** Log each write as a change and write nothing. */
  dryRun: boolean;
  /** Makes the evaluators (the tick's, and one per trial evaluation); default `new Evaluator()`. */
  newEvaluator?: () => Evaluator;
}

/** One write govern mode made (or, dry, would make). */
export interface GovernWrite {
  object: string; // Kind/name
  action: 'govern' | 'restore' | 'hold' | 'release' | 'expire';
  changes: Record<string, { from: unknown; to: unknown }>;
}

export interface GovernTick {
  evaluation: EvalOutput;
  writes: GovernWrite[];
  failures: string[];
}

/** Where writes and their failures are recorded: a tick, or the fail-closed writes of a failed one. */
type WriteLog = Pick<GovernTick, 'writes' | 'failures'>;

export class Governor {
  policies: readonly PolicySpec[] = [];
  readonly events: EventLog;
  readonly metrics: GovernMetrics;
  private readonly evaluator: Evaluator;
  private readonly view: ClusterView;

  constructor(private readonly o: GovernorOptions) {
    this.evaluator = o.newEvaluator?.() ?? new Evaluator();
    this.events = new EventLog(o.clock);
    this.metrics = createGovernMetrics();
    this.view = new ClusterView(o.client);
  }

  /**
   * Evaluates `policies` over the current view at `atMs` with an evaluator of its own, kept
   * across calls so a trial's instants share compiled rule graphs (src/core/policy/trial-eval.ts).
   */
  async evaluateAt(policies: readonly PolicySpec[], atMs: number): Promise<void> {
    const index = await this.view.current();
    this.trialEvaluator ??= this.o.newEvaluator?.() ?? new Evaluator();
    await this.trialEvaluator.evaluate(index, policies, atMs);
  }

  private trialEvaluator: Evaluator | undefined;

  async tick(): Promise<GovernTick> {
    const now = this.o.clock.now();
    // The view is rebuilt only when a watch saw a change (kpol's own writes included): window
    // edges move with `now`, which the evaluation reads, not with the objects.
    const index = await this.view.current();
    let evaluation: EvalOutput;
    try {
      evaluation = await this.evaluator.evaluate(index, this.policies, now);
    } catch (e) {
      await this.failClosed(index, now);
      throw e;
    }
    const { byPool } = resolvePolicies(index.snapshot.nodePools, this.policies);
    const tick: GovernTick = { evaluation, writes: [], failures: [] };
    const governed = new Map<string, PolicySpec>();
    // Rate budgets: Karpenter starts the disruptions, so kpol records each start it sees on a
    // NodeClaim before the NodeClaim is gone, and writes a budget lowered by the starts so far.
    const policyOfPool = new Map([...byPool].map(([pool, g]) => [pool, g.policy]));
    const rated = (pool: string) => {
      const p = policyOfPool.get(pool);
      return p?.origin === 'kpol' && hasRateBudgets(p);
    };
    const rateStarts = rateStartsOf(index, policyOfPool, now);
    for (const np of index.snapshot.nodePools) {
      const policy = byPool.get(np.metadata.name)?.policy;
      if (policy?.origin === 'kpol') {
        governed.set(np.metadata.name, policy);
        await this.governPool(np, policy, evaluation, now, tick, counterOf(rateStarts.get(np.metadata.name), now));
      } else if (evaluation.nodePools[np.metadata.name]?.paused?.length) {
        await this.pausePool(np, evaluation, tick);
      } else if (np.metadata.annotations?.[ANNOTATION_GOVERNED_BY] !== undefined) {
        await this.restorePool(np, tick);
      }
    }
    publishPauseEvents(evaluation, this.events);
    for (const sn of index.stateNodes) if (sn.node) await this.holdNode(sn.node, governed, evaluation, tick);
    const expiredStarts = await this.expireGracefully(index, governed, evaluation, tick, now);
    if (!this.o.dryRun) await this.recordStarts(index, rated, now, tick, expiredStarts);
    this.metrics.record(evaluation, governed);
    return tick;
  }

  /**
   * The evaluation failed, so this tick decides nothing. Rather than let Karpenter go on with the
   * last good budgets until their renewal instant, the pools of the policies that fail on their
   * own (every kpol-governed pool when none does alone) get a budget of 0 for every reason now:
   * Karpenter disrupts none of their nodes voluntarily until a tick decides again. Written once
   * (an unchanged pool is not rewritten); the next good tick writes the policy's budgets back.
   */
  private async failClosed(index: ClusterIndex, now: number): Promise<void> {
    const failing = new Set<PolicySpec>();
    for (const p of this.policies) {
      if (p.origin !== 'kpol') continue;
      try {
        await this.evaluateAt([p], now);
      } catch {
        failing.add(p);
      }
    }
    const { byPool } = resolvePolicies(index.snapshot.nodePools, this.policies);
    const sink = { writes: [], failures: [] };
    for (const np of index.snapshot.nodePools) {
      const policy = byPool.get(np.metadata.name)?.policy;
      if (policy?.origin !== 'kpol' || (failing.size > 0 && !failing.has(policy))) continue;
      const fields = governedFields(policy, [{ nodes: '0' }]);
      if (holdsFields(np, fields, policy.name)) continue;
      const allowed = Object.fromEntries(reasonsInScope(policy).map((r) => [r, 0]));
      const decision: PoolDecision = { policy: policy.name, allowed, failClosedAt: new Date(now).toISOString() };
      const name = np.metadata.name;
      const w: GovernWrite = { object: `NodePool/${name}`, action: 'govern', changes: changesOf(np, fields) };
      if (await this.write(w, governApply(np, policy.name, fields, decision), sink)) {
        this.events.publish({
          type: 'Warning',
          reason: 'KpolFailedClosed',
          object: { kind: 'NodePool', name, uid: np.metadata.uid },
          message: `Policy ${policy.name} cannot be evaluated: nothing may be disrupted in this NodePool until it can`,
        });
      }
    }
  }

  /** The starts Karpenter made that the pools' records lack (src/control/reconciler/disruption-record.ts). */
  private async recordStarts(
    index: ClusterIndex,
    rated: (pool: string) => boolean,
    now: number,
    tick: GovernTick,
    started: ReadonlyMap<string, DisruptionStart[]>,
  ): Promise<void> {
    try {
      await recordObservedStarts(this.o.client, index, rated, now, started);
    } catch (e) {
      // Not fatal: the starts stay visible on their NodeClaims, and the next tick tries again.
      tick.failures.push(`recording disruption starts: ${(e as Error).message}`);
    }
  }

  private async governPool(
    np: NodePool,
    policy: PolicySpec,
    ev: EvalOutput,
    now: number,
    tick: GovernTick,
    started?: StartCount,
  ): Promise<void> {
    const pool = ev.nodePools[np.metadata.name];
    const failClosedAt = this.renewalInstant(np, now);
    const name = np.metadata.name;
    // The pool's own events: its pauses (kpol pause) are pool facts, so a pause writes 0 for its reasons.
    const counts = pool.disruptingByReason && { disrupting: pool.disrupting, byReason: pool.disruptingByReason };
    const budgets = await governedBudgets(
      (t) => this.evaluator.poolEvents(policy, t, name),
      now,
      pool.nodes,
      failClosedAt,
      counts,
      started,
    );
    // Cluster and selector budgets: this pool's share of each scope's room now (scope-shares.ts).
    const allowed = { ...(pool.allowed as Record<string, number | null>) };
    for (const [reason, share] of Object.entries(sharesOf(ev).get(name) ?? {})) {
      budgets.push({ nodes: String(pool.disrupting + share), reasons: [reason] });
      // What Karpenter may start now, as the decision annotation and status page say it.
      const own = allowed[reason];
      allowed[reason] = own === null || own === undefined ? share : Math.min(own, share);
    }
    const fields = governedFields(policy, budgets);
    if (holdsFields(np, fields, policy.name)) return;
    const decision: PoolDecision = {
      policy: policy.name,
      allowed,
      failClosedAt: new Date(failClosedAt).toISOString(),
    };
    const first = np.metadata.annotations?.[ANNOTATION_GOVERNED_BY] !== policy.name;
    const ok = await this.write(
      { object: `NodePool/${np.metadata.name}`, action: 'govern', changes: changesOf(np, fields) },
      governApply(np, policy.name, fields, decision),
      tick,
    );
    if (ok && first) {
      this.events.publish({
        type: 'Normal',
        reason: 'KpolGoverning',
        message: `Policy ${policy.name} governs this NodePool's disruption budgets`,
        object: { kind: 'NodePool', name: np.metadata.name, uid: np.metadata.uid },
      });
    }
  }

  /**
   * The instant from which the written deny budget blocks: kept while more than half the lease is
   * left (so a quiet pool is rewritten about once per half lease, not every tick), else renewed.
   */
  private renewalInstant(np: NodePool, now: number): number {
    const lease = this.o.failClosedAfterMs;
    const last = decisionOf(np)?.failClosedAt;
    const kept = last === undefined ? NaN : Date.parse(last);
    return kept - now > lease / 2 && kept <= ceilMinute(now + lease) ? kept : ceilMinute(now + lease);
  }

  /**
   * A pool no policy governs, held by a pause (`kpol pause`): Karpenter reads only the NodePool, so
   * its own settings are written back with a budget of 0 for the paused reasons, and handed back
   * (restorePool) on the first tick the pause no longer holds. Without kpol the 0 stays: it blocks more.
   */
  private async pausePool(np: NodePool, ev: EvalOutput, tick: GovernTick): Promise<void> {
    const pool = ev.nodePools[np.metadata.name]!;
    const reasons = KARPENTER_REASONS.filter((r) => (pool.paused ?? []).some((x) => x.reasons?.includes(r) ?? true));
    if (reasons.length === 0) return;
    const { settings, error } = savedUserSettings(np);
    if (error) {
      tick.failures.push(error); // never guess the user's values
      return;
    }
    const governed = np.metadata.annotations?.[ANNOTATION_GOVERNED_BY] !== undefined;
    const fields = pausedFields(governed ? (settings ?? {}) : userSettingsOf(np), reasons);
    if (holdsFields(np, fields, GOVERNED_BY_PAUSE)) return;
    const until = (pool.paused ?? []).map((x) => x.until ?? 'unreadable pause').join(', ');
    const decision: PoolDecision = {
      policy: GOVERNED_BY_PAUSE,
      allowed: pool.allowed as Record<string, number | null>,
      failClosedAt: until,
    };
    await this.write(
      { object: `NodePool/${np.metadata.name}`, action: 'govern', changes: changesOf(np, fields) },
      governApply(np, GOVERNED_BY_PAUSE, fields, decision),
      tick,
    );
  }

  private async restorePool(np: NodePool, tick: GovernTick): Promise<void> {
    const { settings, error } = savedUserSettings(np);
    if (error) {
      // Never guess the user's values: leave the pool as it is and say so.
      tick.failures.push(error);
      this.events.publish({
        type: 'Warning',
        reason: 'KpolRestoreFailed',
        message: error,
        object: { kind: 'NodePool', name: np.metadata.name, uid: np.metadata.uid },
      });
      return;
    }
    const ok = await this.write(
      {
        object: `NodePool/${np.metadata.name}`,
        action: 'restore',
        changes: { budgets: { from: np.spec.disruption?.budgets, to: settings?.disruption?.budgets } },
      },
      restoreApply(np, settings ?? {}),
      tick,
    );
    if (ok)
      this.events.publish({
        type: 'Normal',
        reason: 'KpolRestored',
        message: 'No policy governs this NodePool any more; its own disruption settings are back',
        object: { kind: 'NodePool', name: np.metadata.name, uid: np.metadata.uid },
      });
    // The record of disruption starts was merge-patched, not applied: server-side apply leaves it, so
    // it goes here, with kpol's other annotations (deploy/README.md: a handed-back pool keeps none).
    if (ok && !this.o.dryRun && np.metadata.annotations?.[DISRUPTION_STARTS_ANNOTATION] !== undefined) {
      await this.run(
        { object: `NodePool/${np.metadata.name}`, action: 'restore', changes: {} },
        () =>
          this.o.client.patch(
            { kind: 'NodePool', name: np.metadata.name },
            { metadata: { annotations: { [DISRUPTION_STARTS_ANNOTATION]: null } } },
          ),
        tick,
      );
    }
  }

  private async holdNode(
    node: Node,
    governed: ReadonlyMap<string, PolicySpec>,
    ev: EvalOutput,
    tick: GovernTick,
  ): Promise<void> {
    const name = node.metadata.name;
    const result = ev.nodes[name];
    const holds = result && governed.has(result.nodePool) ? (result.holds ?? []) : [];
    const state = holdStateOf(node);
    if (state === 'held-by-user') return; // the user's own annotation: never ours to change
    const object = { kind: 'Node', name, uid: node.metadata.uid };
    if (holds.length > 0) {
      const why = holdText(holds);
      if (state === 'held-by-kpol' && node.metadata.annotations?.[ANNOTATION_HOLD] === why) return;
      const ok = await this.write(
        {
          object: `Node/${name}`,
          action: 'hold',
          changes: { [ANNOTATION_HOLD]: { from: node.metadata.annotations?.[ANNOTATION_HOLD], to: why } },
        },
        holdApply(name, why),
        tick,
      );
      const over = result.overblocks?.length
        ? `; the annotation also blocks ${result.overblocks.join(', ')}, which the policy allows`
        : '';
      if (ok && state === 'free')
        this.events.publish({
          type: 'Normal',
          reason: 'KpolHeld',
          message: `Held with karpenter.sh/do-not-disrupt: ${why}${over}`,
          object,
        });
    } else if (state === 'held-by-kpol') {
      const ok = await this.write(
        {
          object: `Node/${name}`,
          action: 'release',
          changes: { [ANNOTATION_HOLD]: { from: node.metadata.annotations?.[ANNOTATION_HOLD], to: undefined } },
        },
        releaseApply(name),
        tick,
      );
      if (ok)
        this.events.publish({
          type: 'Normal',
          reason: 'KpolReleased',
          message: 'No kpol window holds this node any more; karpenter.sh/do-not-disrupt removed',
          object,
        });
    }
  }

  /**
   * Graceful expiration (Karpenter has none: KARPENTER.md#expiration): expired nodes of such pools are deleted by kpol,
   * at most the pool's Expired allowance at a time; Karpenter drains and terminates them.
   */
  private async expireGracefully(
    index: ClusterIndex,
    governed: ReadonlyMap<string, PolicySpec>,
    ev: EvalOutput,
    tick: GovernTick,
    now: number,
  ): Promise<Map<string, DisruptionStart[]>> {
    const started = new Map<string, DisruptionStart[]>();
    for (const [pool, policy] of governed) {
      if (policy.expiration !== 'graceful') continue;
      let allowed = ev.nodePools[pool]?.allowed.Expired ?? 0;
      const expired = index.stateNodes.filter(
        (sn) =>
          sn.node &&
          sn.nodeClaim &&
          !isDeleting(sn) &&
          ev.nodes[sn.node.metadata.name]?.reasons.includes('Expired' as Reason),
      );
      expired.sort((a, b) =>
        (a.nodeClaim!.metadata.creationTimestamp ?? '').localeCompare(b.nodeClaim!.metadata.creationTimestamp ?? ''),
      );
      for (const sn of expired) {
        if (allowed !== null && allowed <= 0) break;
        const nc = sn.nodeClaim!;
        const write: GovernWrite = { object: `NodeClaim/${nc.metadata.name}`, action: 'expire', changes: {} };
        if (
          await this.run(
            write,
            () =>
              this.o.client.delete(
                { kind: 'NodeClaim', name: nc.metadata.name },
                { preconditions: { uid: nc.metadata.uid } },
              ),
            tick,
          )
        ) {
          // kpol started this disruption, not Karpenter: no DisruptionReason will show it, so a rate budget
          // covering Expired learns of it from the record alone (written with the tick's other starts).
          const start = { nodeClaim: nc.metadata.name, reason: 'Expired' as Reason, atMs: startSecond(now) };
          started.set(pool, [...(started.get(pool) ?? []), start]);
          this.events.publish({
            type: 'Normal',
            reason: 'KpolExpired',
            message:
              `Expired: deleted within the Expired budget of policy ${policy.name}; Karpenter drains and ` +
              `terminates it`,
            object: { kind: 'NodeClaim', name: nc.metadata.name, uid: nc.metadata.uid },
          });
        }
        if (allowed !== null) allowed--;
      }
    }
    return started;
  }

  private write(w: GovernWrite, config: KubeObject, tick: WriteLog): Promise<boolean> {
    return this.run(w, () => this.o.client.apply(config, { force: true }), tick);
  }

  /** Runs one write (or logs it, dry); a failure is logged, counted and left for the next tick. */
  private async run(w: GovernWrite, act: () => Promise<unknown>, tick: WriteLog): Promise<boolean> {
    tick.writes.push(w);
    if (this.o.dryRun) {
      this.o.logger.info('dry run: would write', { ...w });
      return false;
    }
    try {
      await act();
      this.metrics.wrote(w.action, 'ok');
      this.o.logger.info('wrote', { ...w });
      return true;
    } catch (e) {
      const message = `${w.object}: ${w.action}: ${(e as Error).message}`;
      tick.failures.push(message);
      this.metrics.wrote(w.action, 'error');
      this.o.logger.warn('write failed', { object: w.object, action: w.action, error: (e as Error).message });
      return false;
    }
  }
}

function decisionOf(np: NodePool): PoolDecision | undefined {
  const text = np.metadata.annotations?.[ANNOTATION_DECISION];
  try {
    return text === undefined ? undefined : (JSON.parse(text) as PoolDecision);
  } catch {
    return undefined; // not what kpol writes: renewed on this write
  }
}

/** The fields that differ between the live pool and what kpol writes, for the log and --dry-run. */
function changesOf(np: NodePool, f: ReturnType<typeof governedFields>): GovernWrite['changes'] {
  const d = np.spec.disruption;
  const t = np.spec.template?.spec;
  const pairs: Array<[string, unknown, unknown]> = [
    ['spec.disruption.budgets', d?.budgets, f.budgets],
    ['spec.disruption.consolidationPolicy', d?.consolidationPolicy, f.consolidationPolicy],
    ['spec.disruption.consolidateAfter', d?.consolidateAfter, f.consolidateAfter],
    ['spec.template.spec.expireAfter', t?.expireAfter, f.expireAfter ?? t?.expireAfter],
    [
      'spec.template.spec.terminationGracePeriod',
      t?.terminationGracePeriod,
      f.terminationGracePeriod ?? t?.terminationGracePeriod,
    ],
  ];
  const out: GovernWrite['changes'] = {};
  for (const [k, from, to] of pairs) if (!deepEqual(from, to)) out[k] = { from, to };
  return out;
}
