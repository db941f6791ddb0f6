// SPDX-License-Identifier: Apache-2.0
// Karpenter records why a node is not a disruption candidate as a `DisruptionBlocked` event on
// the Node and its NodeClaim (KARPENTER.md#candidates: the error text with its first letter upper-cased,
// deduplicated per object for 2 minutes). The reasons come from the rule graph's verdict.
import type { ClusterIndex, StateNode } from '../../core/cluster/state.js';
import type { EvalOutput, NodeResult } from '../../core/eval/output.js';
import type { EventRecorder, RecordedEvent } from '../../core/observe/recorder.js';
import { digestOf, type VerdictDigest } from './methods/verdict-digest.js';

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

/** What a node's events were last made from, and until when all of them are dropped. */
interface Published {
  n: NodeResult;
  sn: StateNode | undefined;
  through: number;
}

/**
 * Publishes each blocked node's events every tick (deduplicated), skipping what the recorder
 * would drop: everything while the verdicts are the ones last published and every event of
 * them is inside its dedupe window; only the nodes whose verdicts changed when the verdicts were
 * made from the last ones by a few changes (the digest's `change`, verdict-record.ts); and, in a
 * walk over every blocked node, each node whose verdict and objects are the ones its events
 * were last published from and whose windows are all still open. One changed verdict then costs
 * that node's events, not a publish (and a dedupe lookup) per blocked node of the cluster.
 * Exact: an event is skipped only when its own earlier publish says it would be dropped now (a
 * node whose verdict did not change has the same Node and NodeClaim by name and uid, so the
 * same events: evaluate-cluster.ts changedOnly).
 */
export class BlockedEvents {
  /** Per blocked node with events: what they were made from, and until when all of them are dropped. */
  private published = new Map<string, Published>();
  /** The digest last published, and until when every event published from it is dropped. */
  private last: { digest: VerdictDigest; through: number } | undefined;

  constructor(private readonly events: EventRecorder) {}

  publish(evaluation: EvalOutput, index: ClusterIndex, nowMs: number): void {
    const digest = digestOf(evaluation);
    const last = this.last;
    if (last !== undefined && nowMs <= last.through) {
      if (last.digest === digest) return;
      if (digest.change?.previous === last.digest) {
        let through = last.through;
        for (const name of digest.change.changed) {
          const n = evaluation.nodes[name];
          through = Math.min(through, this.node(name, n, index, nowMs, this.published));
        }
        this.last = { digest, through };
        return;
      }
    }
    const next = new Map<string, Published>();
    let through = Infinity;
    for (const [name, n] of digest.blocked) through = Math.min(through, this.node(name, n, index, nowMs, next));
    this.published = next;
    this.last = { digest, through };
  }

  /**
   * Publishes the node's events unless the same ones are still dropped, noting them in `into`
   * (or taking the node out when it has none); returns until when they are all dropped.
   */
  private node(name: string, n: NodeResult, index: ClusterIndex, nowMs: number, into: Map<string, Published>): number {
    const first = n.blocked[0];
    if (first === undefined || !WITH_EVENT.has(first.code)) {
      into.delete(name);
      return Infinity;
    }
    const sn = index.nodesByName.get(name);
    const last = this.published.get(name);
    if (last !== undefined && last.n === n && last.sn === sn && nowMs <= last.through) {
      into.set(name, last);
      return last.through;
    }
    let through = Infinity;
    const publish = (event: Omit<RecordedEvent, 'at'>) => {
      const until = this.events.publish(event);
      through = Math.min(through, typeof until === 'number' ? until : -Infinity);
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
    into.set(name, { n, sn, through });
    return through;
  }
}
