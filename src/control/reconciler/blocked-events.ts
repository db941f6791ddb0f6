// SPDX-License-Identifier: Apache-2.0
// Karpenter records why a node is not a disruption candidate as a `DisruptionBlocked` event on
// the Node and its NodeClaim (KARPENTER.md#candidates: the error text with its first letter upper-cased,
// deduplicated per object for 2 minutes). The reasons come from the rule graph's verdict.
import type { ClusterIndex, StateNode } from '../../core/cluster/state.js';
import type { EvalOutput, NodeResult } from '../../core/eval/output.js';
import type { EventRecorder, RecordedEvent } from '../../core/observe/recorder.js';
import { RepeatedBatch } from '../../core/observe/repeated-batch.js';
import { digestOf } from './methods/verdict-digest.js';

/** Candidate-construction codes that carry an event (rows 4–11 of KARPENTER.md#candidates, plus kpol's holds). */
export const WITH_EVENT: ReadonlySet<string> = new Set([
  'NotInitialized',
  'Deleting',
  'Nominated',
  'DoNotDisruptNode',
  'MissingNodePoolLabel',
  'NodePoolNotFound',
  'DoNotDisruptPod',
  'PodDisruptionWindow',
  'PDBBlocked',
  'MultiplePDBs',
  'MaintenanceWindow',
]);

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * Publishes each blocked node's events every tick (deduplicated), skipping what the recorder
 * would drop: the whole batch while every event of it is inside its dedupe window (RepeatedBatch),
 * and, when the evaluation changed, each node whose verdict and objects are the ones its events
 * were last published from and whose windows are all still open. One changed verdict then costs
 * that node's events, not a publish (and a dedupe lookup) per blocked node of the cluster.
 * Exact: an event is skipped only when its own earlier publish says it would be dropped now.
 */
export class BlockedEvents {
  private readonly batch: RepeatedBatch;
  /** Per blocked node: what its events were made from, and until when all of them are dropped. */
  private published = new Map<string, { n: NodeResult; sn: StateNode | undefined; through: number }>();

  constructor(events: EventRecorder) {
    this.batch = new RepeatedBatch(events);
  }

  publish(evaluation: EvalOutput, index: ClusterIndex, nowMs: number): void {
    const { blocked } = digestOf(evaluation);
    this.batch.run(blocked, nowMs, (publishBatch, within) => {
      const next = new Map<string, { n: NodeResult; sn: StateNode | undefined; through: number }>();
      for (const [name, n] of blocked) {
        const first = n.blocked[0];
        if (!WITH_EVENT.has(first.code)) continue;
        const sn = index.nodesByName.get(name);
        const last = this.published.get(name);
        if (last !== undefined && last.n === n && last.sn === sn && nowMs <= last.through) {
          next.set(name, last);
          // Still part of the batch's window: the batch is skipped only while this one's is open too.
          within(last.through);
          continue;
        }
        let through = Infinity;
        const publish = (event: Omit<RecordedEvent, 'at'>) => {
          through = Math.min(through, publishBatch(event));
        };
        const message =
          first.code === 'NodePoolNotFound'
            ? first.message.replace(/^nodepool not found/, 'NodePool not found')
            : capitalise(first.message);
        publish({
          type: 'Normal',
          reason: 'DisruptionBlocked',
          message,
          object: { kind: 'Node', name, ...(sn?.node?.metadata.uid && { uid: sn.node.metadata.uid }) },
        });
        const nc = sn?.nodeClaim;
        if (nc)
          publish({
            type: 'Normal',
            reason: 'DisruptionBlocked',
            message,
            object: { kind: 'NodeClaim', name: nc.metadata.name, ...(nc.metadata.uid && { uid: nc.metadata.uid }) },
          });
        next.set(name, { n, sn, through });
      }
      this.published = next;
    });
  }
}
