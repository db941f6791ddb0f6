// SPDX-License-Identifier: Apache-2.0
// The orchestration queue (KARPENTER.md#commands): start a command — taint the candidates, record
// the reason, launch replacements, only then mark the candidates for deletion — and, on each
// reconcile, wait for the replacements to initialize before deleting the candidates. A command
// that cannot finish (replacement gone, timeout) is rolled back: taints off, marks cleared.
import type { ClusterClient } from '../../core/cluster/client.js';
import { isApiError } from '../../core/cluster/client.js';
import { TAINT_DISRUPTED, type Condition, type Node, type NodeClaim, type NodePool } from '../../core/cluster/types.js';
import type { Clock } from '../../core/clock.js';
import type { Metrics } from '../../core/observe/metrics.js';
import type { EventRecorder } from '../../core/observe/recorder.js';
import type { NodeClaimFactory } from '../provisioning/nodeclaim-factory.js';
import type { ConsolidationPolicy } from '../../../rules/model.js';
import { hasDisruptedTaint } from '../../core/cluster/state.js';
import { decisionOf, type Command } from './methods/command.js';
import { disruptedLabels } from './disrupted-metric.js';
import type { InFlight } from './disruption-state.js';
import { recordStarts } from './disruption-record.js';
import { startSecond } from '../../core/cluster/disruption-starts.js';

const MIN_TIMEOUT_MS = 10 * 60_000;
const MAX_TIMEOUT_MS = 60 * 60_000;

const conditionTrue = (nc: NodeClaim | undefined, type: string) =>
  nc?.status?.conditions?.some((c) => c.type === type && c.status === 'True') === true;

export interface QueueDeps {
  client: ClusterClient;
  clock: Clock;
  events: EventRecorder;
  metrics: Metrics;
  factory: NodeClaimFactory;
  state: InFlight;
  log?: (msg: string, fields: Record<string, unknown>) => void;
  /** Whether the pool's policy has a rate budget: then each start is added to its record (disruption-record.ts). */
  ratedPool?: (nodePool: string) => boolean;
  /** The governing policy's consolidation policy and TGP, for metric labels. */
  policyOf?: (nodePool: string) => { policy?: ConsolidationPolicy; tgpSeconds?: number };
}

export class OrchestrationQueue {
  constructor(private readonly d: QueueDeps) {}

  /** Karpenter's StartCommand. Throws when a candidate is already being disrupted. */
  async start(cmd: Command, pools: ReadonlyMap<string, NodePool>): Promise<void> {
    const queued = this.d.state.queued;
    if (cmd.candidates.some((c) => queued.has(c.providerID))) throw new Error('candidate is being disrupted');
    this.d.log?.('disrupting node(s)', {
      command: cmd.id,
      method: cmd.method,
      reason: cmd.reason,
      decision: decisionOf(cmd),
      nodes: cmd.candidates.map((c) => c.node),
      replacements: cmd.replacements.map((r) => r.instanceTypes[0]),
    });
    for (const c of cmd.candidates) {
      await this.taint(c.node, true);
      await this.setReason(c.nodeClaim, cmd.reason);
    }
    await this.recordStarts(cmd);
    try {
      for (const r of cmd.replacements) {
        const pool = pools.get(r.nodePool);
        if (!pool) throw new Error(`nodepool ${r.nodePool} not found`);
        const extra = r.requirements.filter((x) => x.key !== 'node.kubernetes.io/instance-type');
        const nc = await this.d.client.create(
          this.d.factory.build(pool, r.instanceTypes, extra, cmd.reason.toLowerCase()),
        );
        cmd.launched.push(nc.metadata.name);
      }
    } catch (e) {
      await this.rollback(cmd, `launching replacements failed: ${(e as Error).message}`);
      throw e;
    }
    this.d.state.add(cmd);
    const labels = {
      decision: decisionOf(cmd),
      reason: cmd.reason.toLowerCase(),
      consolidation_type: cmd.consolidationType,
    };
    this.d.metrics.inc('karpenter_voluntary_disruption_decisions_total', labels);
    for (const pool of new Set(cmd.candidates.map((c) => c.nodePool))) {
      this.d.metrics.inc('karpenter_voluntary_disruption_decisions_by_nodepool_total', { ...labels, nodepool: pool });
    }
  }

  /** Advances every command; returns the commands that finished (candidates deleted). */
  async reconcile(): Promise<Command[]> {
    const done: Command[] = [];
    const now = this.d.clock.now();
    const timeout = Math.min(MAX_TIMEOUT_MS, Math.max(MIN_TIMEOUT_MS, 80 * this.d.state.commands.size));
    for (const cmd of [...this.d.state.commands.values()]) {
      const replacements = await Promise.all(
        cmd.launched.map((name) => this.d.client.get<NodeClaim>({ kind: 'NodeClaim', name })),
      );
      const waiting = replacements.filter((r) => !conditionTrue(r, 'Initialized'));
      if (replacements.some((r) => r === undefined)) {
        await this.fail(cmd, waiting.length, 'replacement was deleted');
        continue;
      }
      if (waiting.length > 0) {
        if (now - cmd.createdAt > timeout) {
          await this.fail(cmd, waiting.length, 'timed out waiting for replacements to initialize');
          continue;
        }
        for (const r of waiting) {
          this.d.events.publish({
            type: 'Normal',
            reason: 'DisruptionLaunching',
            message: `Launching NodeClaim: ${cmd.reason}`,
            object: { kind: 'NodeClaim', name: r!.metadata.name, uid: r!.metadata.uid },
          });
          this.d.events.publish({
            type: 'Normal',
            reason: 'DisruptionWaitingReadiness',
            message: 'Waiting on readiness to continue disruption',
            object: { kind: 'NodeClaim', name: r!.metadata.name, uid: r!.metadata.uid },
          });
        }
        continue;
      }
      for (const c of cmd.candidates) {
        try {
          await this.d.client.delete({ kind: 'NodeClaim', name: c.nodeClaim });
        } catch (e) {
          if (!isApiError(e, 404)) throw e;
        }
        this.d.events.publish({
          type: 'Normal',
          reason: 'DisruptionTerminating',
          message: `Disrupting Node: ${cmd.reason}`,
          object: { kind: 'Node', name: c.node },
        });
        this.d.events.publish({
          type: 'Normal',
          reason: 'DisruptionTerminating',
          message: `Disrupting NodeClaim: ${cmd.reason}`,
          object: { kind: 'NodeClaim', name: c.nodeClaim },
        });
        const labels = disruptedLabels({
          reason: cmd.reason,
          nodePool: c.nodePool,
          capacityType: c.capacityType,
          ...this.d.policyOf?.(c.nodePool),
        });
        this.d.metrics.inc('karpenter_nodeclaims_disrupted_total', labels);
        this.d.metrics.inc('karpenter_pods_disruption_initiated_total', labels, c.pods ?? 0);
      }
      this.d.state.remove(cmd, false);
      done.push(cmd);
    }
    return done;
  }

  /**
   * An unrecoverable command (replacement deleted, or timed out): count its uninitialized replacements, then roll back
   * (KARPENTER.md#commands step 6).
   */
  private async fail(cmd: Command, uninitialized: number, why: string): Promise<void> {
    this.d.metrics.inc(
      'karpenter_voluntary_disruption_queue_failures_total',
      { decision: decisionOf(cmd), reason: cmd.reason.toLowerCase(), consolidation_type: decisionOf(cmd) },
      uninitialized,
    );
    await this.rollback(cmd, why);
  }

  /** Undoes a command: taints off, reason cleared, marks and queue entry dropped (launched replacements stay). */
  async rollback(cmd: Command, why: string): Promise<void> {
    this.d.log?.('abandoning disruption command', { command: cmd.id, reason: why });
    for (const c of cmd.candidates) {
      await this.taint(c.node, false);
      await this.setReason(c.nodeClaim, undefined);
    }
    this.d.state.remove(cmd, true);
  }

  /** Adds or removes `karpenter.sh/disrupted:NoSchedule`, keeping any other taint (KARPENTER.md#commands step 2). */
  async taint(nodeName: string, on: boolean): Promise<void> {
    const node = await this.d.client.get<Node>({ kind: 'Node', name: nodeName });
    if (!node) return;
    const taints = node.spec.taints ?? [];
    if (on === hasDisruptedTaint(taints)) return;
    if (!on && node.metadata.deletionTimestamp) return; // a deleting node keeps it
    const next = on
      ? [...taints, { key: TAINT_DISRUPTED, effect: 'NoSchedule' }]
      : taints.filter((t) => !(t.key === TAINT_DISRUPTED && t.effect === 'NoSchedule'));
    await this.d.client.patch({ kind: 'Node', name: nodeName }, { spec: { taints: next } });
  }

  /**
   * Rate budgets count starts: the record is written as the command starts, before its NodeClaims
   * can go (an empty node's may be gone within this tick), at the instant its condition carries.
   */
  private async recordStarts(cmd: Command): Promise<void> {
    const now = this.d.clock.now();
    for (const pool of new Set(cmd.candidates.map((c) => c.nodePool))) {
      if (!this.d.ratedPool?.(pool)) continue;
      const starts = cmd.candidates
        .filter((c) => c.nodePool === pool)
        .map((c) => ({ nodeClaim: c.nodeClaim, reason: cmd.reason, atMs: startSecond(now) }));
      await recordStarts(this.d.client, pool, starts, now);
    }
  }

  /** Sets (or clears) the NodeClaim status condition DisruptionReason. */
  async setReason(nodeClaimName: string, reason: string | undefined): Promise<void> {
    const nc = await this.d.client.get<NodeClaim>({ kind: 'NodeClaim', name: nodeClaimName });
    if (!nc) return;
    const others = (nc.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionReason');
    if (!reason && others.length === (nc.status?.conditions ?? []).length) return;
    const conditions: Condition[] = reason
      ? [
          ...others,
          {
            type: 'DisruptionReason',
            status: 'True',
            reason,
            lastTransitionTime: new Date(this.d.clock.now()).toISOString(),
          },
        ]
      : others;
    await this.d.client.patch({ kind: 'NodeClaim', name: nodeClaimName }, { status: { conditions } });
  }
}
