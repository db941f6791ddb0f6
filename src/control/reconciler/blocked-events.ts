// SPDX-License-Identifier: Apache-2.0
// Karpenter records why a node is not a disruption candidate as a `DisruptionBlocked` event on
// the Node and its NodeClaim (KARPENTER.md#candidates: the error text with its first letter upper-cased,
// deduplicated per object for 2 minutes). The reasons come from the rule graph's verdict.
import type { ClusterIndex } from '../../core/cluster/state.js';
import type { EvalOutput } from '../../core/eval/output.js';
import type { EventRecorder } from '../../core/observe/recorder.js';
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
 * Publishes each blocked node's event every tick (deduplicated), skipping ticks on which all of them would be dropped.
 */
export class BlockedEvents {
  private readonly batch: RepeatedBatch;

  constructor(events: EventRecorder) {
    this.batch = new RepeatedBatch(events);
  }

  publish(evaluation: EvalOutput, index: ClusterIndex, nowMs: number): void {
    const { blocked } = digestOf(evaluation);
    this.batch.run(blocked, nowMs, (publish) => {
      for (const [name, n] of blocked) {
        const first = n.blocked[0];
        if (!WITH_EVENT.has(first.code)) continue;
        const sn = index.nodesByName.get(name);
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
      }
    });
  }
}
