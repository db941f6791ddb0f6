// SPDX-License-Identifier: Apache-2.0
// What a controller on a shared cluster needs around the Runtime, in one module the run loop
// calls: policies from ConfigMaps (hot-reloaded into `rt.policies`), leader election (only the
// leader ticks), NodePool status after each tick, events written to the cluster, and the checks
// behind `/readyz` (policies loaded, informers synced, ticks succeeding). A tick that fails is
// traced to the policy that cannot be evaluated, which its ConfigMap's status then names. The
// Runtime itself stays unaware of all of it.
import type { ClusterClient } from '../../core/cluster/client.js';
import type { Clock } from '../../core/clock.js';
import { LeaderElector, type LeaderElectionConfig } from '../leader/lease-elector.js';
import { mirrorEventsToCluster } from '../../core/observe/cluster-events.js';
import type { Logger } from '../../core/observe/logger.js';
import { ConfigMapPolicies } from '../../core/policy/configmap-policies.js';
import type { PolicySource } from '../../core/policy/load.js';
import { NodePoolStatusWriter } from '../reconciler/nodepool-status.js';
import type { ReadinessCheck } from './readiness.js';
import type { PolicySpec } from '../../../rules/model.js';
import type { EventLog } from '../../core/observe/event-log.js';
import { blame, type EvaluateAt } from '../../core/policy/trial-eval.js';
import type { TickResult } from './runtime.js';
import { TickHealth, type TickFailureCounter } from './tick-health.js';

/** What the services need of the controller they serve: its events, and where policies go. */
export interface ServicesHost {
  readonly events: EventLog;
  policies: readonly PolicySpec[];
  /** Where failed ticks are counted (`kpol_tick_failures_total`). */
  readonly metrics?: TickFailureCounter;
  /** Trial evaluation over the host's view: new policy sets are tried before they apply, and failed ticks blamed. */
  evaluateAt?: EvaluateAt;
}

export interface ClusterServicesOptions {
  client: ClusterClient;
  clock: Clock;
  /** The controller's namespace: policy ConfigMaps and the Lease live here. */
  namespace: string;
  /** `--policy` files, already checked; part of every policy set. */
  files?: readonly PolicySource[];
  /** Lease name, identity and timings; undefined runs without election (a single replica). */
  leaderElection?: Omit<LeaderElectionConfig, 'namespace'>;
  logger?: Logger;
  /** Leadership lost: the caller should stop (client-go exits, so a restart begins from cluster state). */
  onLostLeadership?: () => void;
}

export class ClusterServices {
  readonly policies: ConfigMapPolicies;
  readonly elector: LeaderElector | undefined;
  readonly ticks: TickHealth;
  private readonly statusWriter: NodePoolStatusWriter;
  private informersSynced = false;
  private electing: Promise<void> | undefined;
  private stopEvents: (() => void) | undefined;
  private led = false;
  private stopping = false;
  /** The tick error last traced to a policy, so one failing every second is traced once. */
  private lastBlamed: { error: string; policies: readonly PolicySpec[] } | undefined;

  constructor(
    private readonly rt: ServicesHost,
    private readonly o: ClusterServicesOptions,
  ) {
    this.policies = new ConfigMapPolicies({
      client: o.client,
      clock: o.clock,
      namespace: o.namespace,
      files: o.files,
      recorder: rt.events,
      logger: o.logger,
      onChange: (policies) => {
        rt.policies = policies;
      },
      reporting: () => this.shouldLead(),
      ...(rt.evaluateAt && { evaluateAt: rt.evaluateAt.bind(rt) }),
    });
    this.ticks = new TickHealth(rt.metrics);
    this.elector =
      o.leaderElection &&
      new LeaderElector({
        client: o.client,
        clock: o.clock,
        namespace: o.namespace,
        logger: o.logger,
        ...o.leaderElection,
        onStartedLeading: () => {
          this.led = true;
          this.policies.refresh();
        },
        onStoppedLeading: () => {
          if (this.led && !this.stopping) o.onLostLeadership?.();
        },
      });
    this.statusWriter = new NodePoolStatusWriter(o.client);
  }

  /** Loads the policies (resolves after the first load), then campaigns in the background. */
  async start(): Promise<void> {
    this.stopEvents = mirrorEventsToCluster(this.rt.events, {
      client: this.o.client,
      clock: this.o.clock,
      instance: this.elector?.identity,
      logger: this.o.logger,
    });
    await this.policies.start();
    if (this.elector) this.electing = this.elector.run();
  }

  /** The caller has started its informers and they have listed. */
  markInformersSynced(): void {
    this.informersSynced = true;
  }

  /** Whether this replica may act now: policies loaded, and it leads (or there is no election). */
  shouldAct(): boolean {
    return this.policies.loaded && (this.elector?.isLeader() ?? true);
  }

  /** After a tick this replica ran: the evaluation it acted on goes into NodePool status. */
  async afterTick(r: TickResult): Promise<void> {
    if (this.shouldAct()) await this.statusWriter.reconcile(r.disruption.evaluation);
  }

  /** A tick this replica ran completed: readiness counts from zero, and policies reported failing are valid again. */
  async tickSucceeded(): Promise<void> {
    this.ticks.succeeded();
    this.lastBlamed = undefined;
    await this.policies.evaluationSucceeded();
  }

  /**
   * A tick this replica ran failed. It counts towards readiness; when a policy in force fails
   * to evaluate on its own now, its ConfigMap is told (status and a Warning Event, once per
   * distinct error). Returns the ConfigMap id blamed, if any.
   */
  async tickFailed(error: unknown): Promise<string | undefined> {
    const text = error instanceof Error ? error.message : String(error);
    this.ticks.failed(text);
    const evaluateAt = this.rt.evaluateAt?.bind(this.rt);
    const policies = this.rt.policies;
    if (!evaluateAt || (this.lastBlamed?.error === text && this.lastBlamed.policies === policies)) return undefined;
    this.lastBlamed = { error: text, policies };
    const now = this.o.clock.now();
    const policy = await blame(policies, evaluateAt, now);
    if (!policy) return undefined;
    this.o.logger?.error('a policy in force cannot be evaluated; disruption is blocked until it can', {
      policy: policy.name,
      error: text,
    });
    return this.policies.evaluationFailed({ policy, atMs: now, error: text });
  }

  readiness(): ReadinessCheck[] {
    return [
      { name: 'policies', failure: () => (this.policies.loaded ? undefined : 'not loaded yet') },
      { name: 'informers', failure: () => (!this.shouldLead() || this.informersSynced ? undefined : 'not synced yet') },
      this.ticks.readiness(),
    ];
  }

  private shouldLead(): boolean {
    return this.elector?.isLeader() ?? true;
  }

  /** Graceful shutdown: stops watching and releases the lease so another replica takes over at once. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.policies.stop();
    this.elector?.stop();
    await this.electing;
    await this.elector?.release(); // run() released already unless it never ran
    this.stopEvents?.();
  }
}
