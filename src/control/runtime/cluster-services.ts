// SPDX-License-Identifier: Apache-2.0
// What a controller on a shared cluster needs around the Runtime, in one module the run loop
// calls: policies from ConfigMaps (hot-reloaded into `rt.policies`), leader election (only the
// leader ticks), NodePool status after each tick, events written to the cluster, and the checks
// behind `/readyz`. The Runtime itself stays unaware of all of it.
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
import type { TickResult } from './runtime.js';

/** What the services need of the controller they serve: its events, and where policies go. */
export interface ServicesHost {
  readonly events: EventLog;
  policies: readonly PolicySpec[];
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
  private readonly statusWriter: NodePoolStatusWriter;
  private informersSynced = false;
  private electing: Promise<void> | undefined;
  private stopEvents: (() => void) | undefined;
  private led = false;
  private stopping = false;

  constructor(private readonly rt: ServicesHost, private readonly o: ClusterServicesOptions) {
    this.policies = new ConfigMapPolicies({
      client: o.client, clock: o.clock, namespace: o.namespace, files: o.files, recorder: rt.events, logger: o.logger,
      onChange: (policies) => { rt.policies = policies; },
      reporting: () => this.shouldLead(),
    });
    this.elector = o.leaderElection && new LeaderElector({
      client: o.client, clock: o.clock, namespace: o.namespace, logger: o.logger, ...o.leaderElection,
      onStartedLeading: () => { this.led = true; this.policies.refresh(); },
      onStoppedLeading: () => { if (this.led && !this.stopping) o.onLostLeadership?.(); },
    });
    this.statusWriter = new NodePoolStatusWriter(o.client);
  }

  /** Loads the policies (resolves after the first load), then campaigns in the background. */
  async start(): Promise<void> {
    this.stopEvents = mirrorEventsToCluster(this.rt.events, { client: this.o.client, clock: this.o.clock, instance: this.elector?.identity, logger: this.o.logger });
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

  readiness(): ReadinessCheck[] {
    return [
      { name: 'policies', failure: () => (this.policies.loaded ? undefined : 'not loaded yet') },
      { name: 'informers', failure: () => (!this.shouldLead() || this.informersSynced ? undefined : 'not synced yet') },
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
