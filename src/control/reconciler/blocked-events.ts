// SPDX-License-Identifier: Apache-2.0
// Karpenter records why a node is not a disruption candidate as a `DisruptionBlocked` event on
// the Node and its NodeClaim (KARPENTER.md#candidates: the error text with its first letter upper-cased,
// deduplicated per object for 2 minutes). The reasons come from the rule graph's verdict.
import type { ClusterIndex, StateNode } from '../../core/cluster/state.js';
import type { EvalOutput, NodeResult } from '../../core/eval/output.js';
import { involved, type EventRecorder, type InvolvedObject } from '../../core/observe/recorder.js';
import { disruptionBlocked } from '../../core/observe/event-reasons.js';
import type { ChangesBetween } from './expiration.js';
import { digestOf, inEvaluationOrder, type VerdictDigest } from './methods/verdict-digest.js';
import { DueQueue } from '../../core/eval/due-nodes.js';

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
 * would drop. While the digest is the one last published or was followed from it
 * (verdict-digest.ts), only these nodes are published again, in evaluation order: those whose
 * verdicts changed, came or went — with, when the change was found by comparing verdict objects,
 * those whose Node or NodeClaim changed, from the view's watch events — and those whose events'
 * dedupe windows have ended (a DueQueue of when each node's windows end). Otherwise a walk over every
 * blocked node skips each whose verdict and objects are the ones its events were last published
 * from and whose windows are all still open. One changed verdict or one ended window then costs
 * that node's events, not a publish (and a dedupe lookup) per blocked node of the cluster.
 * Exact: an event is skipped only when its own earlier publish says it would be dropped now, and
 * a node's events are made from its verdict, its name, its Node's uid and its NodeClaim's name and
 * uid alone (a record made by the evaluator from the last one names every node whose Node or
 * NodeClaim changed: evaluate-cluster.ts changedOnly).
 */
export class BlockedEvents {
  /** Per blocked node with events: what they were made from, and until when all of them are dropped. */
  private published = new Map<string, Published>();
  /** When each published node's events are next due again (an entry is stale once the node is published anew). */
  private due = new DueQueue<string>();
  /** The digest last published, and its index. */
  private last: { digest: VerdictDigest; index: ClusterIndex } | undefined;
  /** Off: every tick walks every blocked node (the reference the equality tests compare with). */
  incremental = true;

  constructor(
    private readonly events: EventRecorder,
    private readonly changes?: ChangesBetween,
  ) {}

  publish(evaluation: EvalOutput, index: ClusterIndex, nowMs: number): void {
    const digest = digestOf(evaluation);
    const last = this.last;
    if (this.incremental && last !== undefined) {
      const names =
        last.digest === digest
          ? []
          : digest.change?.previous === last.digest
            ? this.touched(digest, evaluation, last.index, index)
            : undefined;
      if (names !== undefined) {
        for (const name of this.dueNames(names, digest, evaluation, nowMs)) {
          const through = this.node(name, evaluation.nodes[name], index, nowMs, this.published);
          this.due.push(through, name);
        }
        this.last = { digest, index };
        return;
      }
    }
    const next = new Map<string, Published>();
    this.due = new DueQueue();
    for (const [name, n] of digest.blocked) this.due.push(this.node(name, n, index, nowMs, next), name);
    this.published = next;
    this.last = { digest, index };
  }

  /**
   * `touched` and the nodes whose events' windows ended before `nowMs` (a walk over every blocked
   * node publishes those again), in the order such a walk takes them.
   */
  private dueNames(
    touched: readonly string[],
    digest: VerdictDigest,
    evaluation: EvalOutput,
    nowMs: number,
  ): readonly string[] {
    const taken: string[] = [];
    this.due.takeBefore(nowMs, taken);
    const ended = taken.filter((name) => {
      const p = this.published.get(name);
      return p !== undefined && p.through < nowMs;
    });
    if (ended.length === 0) return touched;
    return inEvaluationOrder(digest, evaluation.nodes, new Set([...touched, ...ended]));
  }

  /**
   * The nodes whose events may differ from those last published: the changed verdicts' nodes,
   * and for a change found by comparing verdict objects, the nodes whose Node changed or that a
   * changed NodeClaim now belongs to, between the two indexes (a node whose NodeClaim went and
   * none came has one event fewer, nothing new to publish); undefined when those are not known.
   */
  private touched(
    digest: VerdictDigest,
    evaluation: EvalOutput,
    from: ClusterIndex,
    index: ClusterIndex,
  ): readonly string[] | undefined {
    const change = digest.change!;
    if (!change.verdictsOnly) return change.changed;
    const events = from === index ? [] : this.changes?.(from, index);
    if (events === undefined) return undefined;
    const names = new Set(change.changed);
    const size = names.size;
    for (const e of events) {
      const name = e.object.metadata.name;
      if (e.object.kind === 'Node') names.add(name);
      else if (e.object.kind === 'NodeClaim') {
        const holder = index.nodeClaimsByName.get(name);
        if (holder?.node) names.add(holder.name);
      }
    }
    // Published in the order a walk over every blocked node publishes them (the change's is that order).
    return names.size === size ? change.changed : inEvaluationOrder(digest, evaluation.nodes, names);
  }

  /**
   * Publishes the node's events unless the same ones are still dropped, noting them in `into`
   * (or taking the node out when it has none); returns until when they are all dropped.
   */
  private node(
    name: string,
    n: NodeResult | undefined,
    index: ClusterIndex,
    nowMs: number,
    into: Map<string, Published>,
  ): number {
    const first = n?.blocked[0];
    if (n === undefined || first === undefined || !WITH_EVENT.has(first.code)) {
      into.delete(name);
      return Infinity;
    }
    const sn = index.nodesByName.get(name);
    const nc = sn?.nodeClaim;
    const last = this.published.get(name);
    if (last !== undefined && last.n === n && last.sn === sn && nowMs <= last.through) {
      into.set(name, last);
      return last.through;
    }
    let through = Infinity;
    const message =
      first.code === 'NodePoolNotFound'
        ? first.message.replace(/^nodepool not found/, 'NodePool not found')
        : capitalise(first.message);
    const publish = (object: InvolvedObject) => {
      const until = this.events.publish(disruptionBlocked(object, message));
      through = Math.min(through, typeof until === 'number' ? until : -Infinity);
    };
    publish(sn?.node ? involved(sn.node) : { kind: 'Node', name });
    if (nc) publish(involved(nc));
    into.set(name, { n, sn, through });
    return through;
  }
}
