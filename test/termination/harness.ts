// SPDX-License-Identifier: Apache-2.0
// A termination scenario on real parts: MemoryCluster (API server), SimulatedCloud, EventLog,
// the Karpenter metrics registry, the PDB status controller and a FakeClock stepped forward. The only stand-in is the
// node agent: `kubelet()` finishes graceful pod deletions whose deadline has passed, through the
// API, as a kubelet does once the containers stopped (kpol has no node agent of its own yet).
import { FakeClock } from '../../src/core/clock.js';
import { SimulatedCloud } from '../../src/world/cloud/simulated-cloud.js';
import { isApiError } from '../../src/core/cluster/client.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { KubeObject, Node, NodeClaim, Pod } from '../../src/core/cluster/types.js';
import { EventLog } from '../../src/core/observe/event-log.js';
import type { EventRecorder, EventToPublish } from '../../src/core/observe/recorder.js';
import { createKarpenterMetrics } from '../../src/core/observe/karpenter-metrics.js';
import { PdbStatusController } from '../../src/world/controllers/pdb-status.js';
import { TerminationController, type TerminationControllerOptions } from '../../src/control/termination/controller.js';
import { makeNodeClaimAndNode, type NodeOptions } from '../support/cluster-builder.js';

export const T0 = Date.parse('2026-08-20T12:00:00Z');

export interface Machine {
  nodeClaim: NodeClaim;
  node: Node;
}

/** A NodeClaim + Node of `pool` backed by a running SimulatedCloud instance. */
export async function launchMachine(
  cloud: SimulatedCloud,
  pool: string,
  i: number,
  o: NodeOptions = {},
): Promise<Machine> {
  const { nodeClaim, node } = makeNodeClaimAndNode(pool, i, o);
  const instance = await cloud.create(nodeClaim);
  for (const obj of [nodeClaim, node]) {
    obj.metadata.labels = {
      ...obj.metadata.labels,
      'topology.kubernetes.io/zone': instance.zone,
      'node.kubernetes.io/instance-type': instance.instanceType,
    };
  }
  nodeClaim.status = { ...nodeClaim.status, providerID: instance.providerID };
  node.spec.providerID = instance.providerID;
  return { nodeClaim, node };
}

export class Scenario {
  readonly clock = new FakeClock(T0 - 60_000);
  readonly cloud = new SimulatedCloud({ clock: this.clock, launchLatencyMs: 0, terminationDelayMs: 20_000 });
  readonly events = new EventLog(this.clock);
  /** Every event the controller published, the ones the recorder dropped as repeats too. */
  readonly published: EventToPublish[] = [];
  private readonly recorder: EventRecorder = {
    publish: (event, dedupeMs) => {
      this.published.push(event);
      return this.events.publish(event, dedupeMs);
    },
  };
  readonly metrics = createKarpenterMetrics();
  cluster!: MemoryCluster;
  controller!: TerminationController;
  pdbs!: PdbStatusController;

  /** Launches the machines a minute before T0, seeds the cluster with them and `objects`, and sets the clock to T0. */
  async start(
    machines: (cloud: SimulatedCloud) => Promise<Machine[]>,
    objects: (m: Machine[]) => KubeObject[],
    options: Partial<TerminationControllerOptions> = {},
  ): Promise<Machine[]> {
    const ms = await machines(this.cloud);
    this.cluster = new MemoryCluster(this.clock, [...ms.flatMap((m) => [m.nodeClaim, m.node]), ...objects(ms)]);
    this.clock.set(T0);
    this.pdbs = new PdbStatusController(this.cluster, this.clock);
    this.controller = this.newController(options);
    return ms;
  }

  /** A fresh controller on the same cluster and cloud (a restart: nothing in memory survives). */
  newController(options: Partial<TerminationControllerOptions> = {}): TerminationController {
    return new TerminationController({
      client: this.cluster,
      cloud: this.cloud,
      recorder: this.recorder,
      metrics: this.metrics,
      ...options,
    });
  }

  async kubelet(): Promise<void> {
    const now = this.clock.now();
    for (const pod of await this.cluster.list<Pod>('Pod')) {
      const at = pod.metadata.deletionTimestamp;
      if (at === undefined || Date.parse(at) > now) continue;
      try {
        await this.cluster.delete(
          { kind: 'Pod', name: pod.metadata.name, namespace: pod.metadata.namespace },
          { gracePeriodSeconds: 0 },
        );
      } catch (e) {
        if (!isApiError(e, 404)) throw e;
      }
    }
  }

  /** The node agent, the PDB status controller, then one termination pass, at the current instant. */
  async tick(): Promise<void> {
    await this.kubelet();
    await this.pdbs.reconcile();
    await this.controller.reconcile(this.clock.now());
  }

  /** Ticks every `stepMs` until `until()` holds or `maxMs` has passed since the call; returns the instant it held. */
  async runUntil(until: () => Promise<boolean> | boolean, stepMs = 100, maxMs = 600_000): Promise<number> {
    const end = this.clock.now() + maxMs;
    await this.tick();
    while (!(await until())) {
      if (this.clock.now() >= end) throw new Error(`condition not met by ${new Date(this.clock.now()).toISOString()}`);
      this.clock.advance(stepMs);
      await this.tick();
    }
    return this.clock.now();
  }

  /** Ticks every `stepMs` until `ms` have passed. */
  async runFor(ms: number, stepMs = 100): Promise<void> {
    const end = this.clock.now() + ms;
    while (this.clock.now() < end) {
      this.clock.advance(Math.min(stepMs, end - this.clock.now()));
      await this.tick();
    }
  }

  pod = (name: string, namespace = 'default') => this.cluster.get<Pod>({ kind: 'Pod', name, namespace });
  node = (name: string) => this.cluster.get<Node>({ kind: 'Node', name });
  nodeClaim = (name: string) => this.cluster.get<NodeClaim>({ kind: 'NodeClaim', name });
  messages = (reason: string) => this.events.list({ reason }).map((e) => e.message);
  /** The messages of every event of this reason published, recorded or dropped as a repeat. */
  attempted = (reason: string) => this.published.filter((e) => e.reason === reason).map((e) => e.message);
  counter = (name: string, labels: Record<string, string> = {}) => this.metrics.value(name, labels) ?? 0;

  async deleteObject(kind: 'Node' | 'NodeClaim' | 'NodePool', name: string): Promise<void> {
    await this.cluster.delete({ kind, name });
  }
}

export const condition = (nc: NodeClaim | undefined, type: string) =>
  nc?.status?.conditions?.find((c) => c.type === type);
