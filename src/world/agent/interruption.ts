// SPDX-License-Identifier: Apache-2.0
// Interruption handling (KARPENTER.md#interruption; Karpenter's AWS interruption controller): each cloud
// notice names an instance; a spot interruption, scheduled change, or stopping/terminating
// instance deletes its NodeClaim at once — forceful, no budgets, no waiting — with the same
// events AWS's controller publishes; a rebalance recommendation only records an event.
// Acted-on notices stay listed by pendingInterruptions() until their deadline passes or the
// reconciler acknowledges them, so it can pre-launch a replacement before the instance goes.
import type { Clock } from '../../core/clock.js';
import type { ClusterClient } from '../../core/cluster/client.js';
import {
  LABEL_CAPACITY_TYPE,
  LABEL_INSTANCE_TYPE,
  LABEL_NODEPOOL,
  LABEL_ZONE,
  type Node,
  type NodeClaim,
} from '../../core/cluster/types.js';
import type { InterruptionKind, InterruptionNotice } from '../cloud/simulated-cloud.js';
import type { EventRecorder } from '../../core/observe/recorder.js';
import { tolerateRace } from './kubelet.js';

/** Where notices come from (SimulatedCloud; a real provider would read its queue). */
export interface InterruptionSource {
  receiveInterruptions(): InterruptionNotice[];
}

export interface InterruptionControllerOptions {
  client: ClusterClient;
  source: InterruptionSource;
  clock: Clock;
  recorder?: EventRecorder;
}

/** An interrupted NodeClaim whose instance has not been reclaimed yet. */
export interface PendingInterruption {
  nodeClaim: string;
  nodeName?: string;
  nodePool?: string;
  instanceType?: string;
  zone?: string;
  capacityType?: string;
  providerID: string;
  kind: InterruptionKind;
  receivedAt: number;
  /** When the cloud reclaims the instance. */
  deadline: number;
}

export interface InterruptionPass {
  /** NodeClaims deleted for a notice. */
  deleted: string[];
  /** Notices that named no NodeClaim (not ours, or already gone). */
  ignored: InterruptionNotice[];
}

interface Notify {
  reason: string;
  message: string;
  type: 'Normal' | 'Warning';
}

/** Event per notice kind, as Karpenter's AWS provider names and words them. */
export const INTERRUPTION_EVENTS: Readonly<Record<InterruptionKind, Notify>> = {
  SpotInterruption: { type: 'Warning', reason: 'SpotInterrupted', message: 'Spot interruption warning was triggered' },
  RebalanceRecommendation: {
    type: 'Normal',
    reason: 'SpotRebalanceRecommendation',
    message: 'Spot rebalance recommendation was triggered',
  },
  ScheduledChange: {
    type: 'Warning',
    reason: 'InstanceUnhealthy',
    message: 'An unhealthy warning was triggered for the instance',
  },
  InstanceStopping: { type: 'Warning', reason: 'InstanceStopping', message: 'Instance is stopping' },
  InstanceTerminating: { type: 'Warning', reason: 'InstanceTerminating', message: 'Instance is terminating' },
};
export const TERMINATING_ON_INTERRUPTION = 'TerminatingOnInterruption';

export class InterruptionController {
  private readonly client: ClusterClient;
  private readonly source: InterruptionSource;
  private readonly clock: Clock;
  private readonly recorder: EventRecorder | undefined;
  private readonly pending = new Map<string, PendingInterruption>();

  constructor(opts: InterruptionControllerOptions) {
    this.client = opts.client;
    this.source = opts.source;
    this.clock = opts.clock;
    this.recorder = opts.recorder;
  }

  async reconcile(): Promise<InterruptionPass> {
    const pass: InterruptionPass = { deleted: [], ignored: [] };
    const notices = this.source.receiveInterruptions();
    if (notices.length === 0 && this.pending.size === 0) return pass; // a quiet tick reads nothing
    const claims = await this.client.list<NodeClaim>('NodeClaim');
    const present = new Set(claims.map((c) => c.metadata.name));
    for (const name of this.pending.keys()) if (!present.has(name)) this.pending.delete(name);
    if (notices.length === 0) return pass;

    const claimByID = new Map(claims.filter((c) => c.status?.providerID).map((c) => [c.status!.providerID!, c]));
    const nodeByID = new Map(
      (await this.client.list<Node>('Node')).filter((n) => n.spec.providerID).map((n) => [n.spec.providerID!, n]),
    );
    for (const notice of notices) {
      const nc = claimByID.get(notice.providerID);
      if (nc === undefined) {
        pass.ignored.push(notice);
        continue;
      }
      const node = nodeByID.get(notice.providerID);
      this.notify(INTERRUPTION_EVENTS[notice.kind], nc, node);
      if (notice.deadline === undefined || nc.metadata.deletionTimestamp !== undefined) continue;
      if (!(await tolerateRace(() => this.client.delete({ kind: 'NodeClaim', name: nc.metadata.name })))) continue;
      pass.deleted.push(nc.metadata.name);
      this.recorder?.publish({
        type: 'Warning',
        reason: TERMINATING_ON_INTERRUPTION,
        message: 'Interruption triggered termination for the NodeClaim',
        object: ref(nc),
      });
      if (node)
        this.recorder?.publish({
          type: 'Warning',
          reason: TERMINATING_ON_INTERRUPTION,
          message: 'Interruption triggered termination for the Node',
          object: ref(node),
        });
      const labels = nc.metadata.labels ?? {};
      this.pending.set(nc.metadata.name, {
        nodeClaim: nc.metadata.name,
        ...(nc.status?.nodeName ? { nodeName: nc.status.nodeName } : {}),
        ...opt('nodePool', labels[LABEL_NODEPOOL]),
        ...opt('instanceType', labels[LABEL_INSTANCE_TYPE]),
        ...opt('zone', labels[LABEL_ZONE]),
        ...opt('capacityType', labels[LABEL_CAPACITY_TYPE]),
        providerID: notice.providerID,
        kind: notice.kind,
        receivedAt: this.clock.now(),
        deadline: notice.deadline,
      });
    }
    return pass;
  }

  /** Interrupted NodeClaims whose deadline is still ahead and that nobody acknowledged, soonest deadline first. */
  pendingInterruptions(): PendingInterruption[] {
    const now = this.clock.now();
    for (const [name, p] of this.pending) if (p.deadline <= now) this.pending.delete(name);
    return [...this.pending.values()].sort((a, b) => a.deadline - b.deadline || a.nodeClaim.localeCompare(b.nodeClaim));
  }

  /** The reconciler has launched (or decided against) a replacement for this NodeClaim. */
  acknowledge(nodeClaim: string): void {
    this.pending.delete(nodeClaim);
  }

  private notify(n: Notify, nc: NodeClaim, node: Node | undefined): void {
    this.recorder?.publish({ type: n.type, reason: n.reason, message: n.message, object: ref(nc) });
    if (node) this.recorder?.publish({ type: n.type, reason: n.reason, message: n.message, object: ref(node) });
  }
}

const ref = (o: NodeClaim | Node) => ({
  kind: o.kind,
  name: o.metadata.name,
  ...(o.metadata.uid ? { uid: o.metadata.uid } : {}),
});
const opt = <K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, string>>;
