// SPDX-License-Identifier: Apache-2.0
// Disruption candidates as the methods see them: the evaluator's verdict (reasons come from
// the rule graph — nothing here decides candidacy) joined with the node's pods, price and
// Karpenter's ordering costs (KARPENTER.md#cost-and-order).
import { countOf, type Reason } from '../../../../rules/model.js';
import type { InstanceType } from '../../../world/cloud/provider.js';
import { isReschedulable, type ClusterIndex, type StateNode } from '../../../core/cluster/state.js';
import { LABEL_CAPACITY_TYPE, LABEL_INSTANCE_TYPE, LABEL_ZONE, type Pod } from '../../../core/cluster/types.js';
import type { EvalOutput } from '../../../core/eval/output.js';
import { evictionCost } from '../../../core/facts/node-facts.js';
import type { CandidateRef } from './command.js';
import { digestOf } from './verdict-digest.js';

export interface Candidate {
  sn: StateNode;
  ref: CandidateRef;
  reschedulable: Pod[];
  /** 1 + Σ max(0, eviction cost) over reschedulable pods (Karpenter's RescheduleDisruptionCost). */
  disruptionCost: number;
}

/** The offering price of a node from its labels (instance type, zone, capacity type); 0 if unknown. */
export function nodePrice(labels: Readonly<Record<string, string>>, types: ReadonlyMap<string, InstanceType>): number {
  const it = types.get(labels[LABEL_INSTANCE_TYPE] ?? '');
  const o = it?.offerings.find((x) => x.zone === labels[LABEL_ZONE] && x.capacityType === labels[LABEL_CAPACITY_TYPE]);
  return o && Number.isFinite(o.price) ? o.price : 0;
}

export function toCandidate(sn: StateNode, nodePool: string, types: ReadonlyMap<string, InstanceType>): Candidate {
  const labels = sn.node?.metadata.labels ?? {};
  const reschedulable = sn.pods.filter(isReschedulable);
  return {
    sn,
    ref: {
      node: sn.name,
      nodeClaim: sn.nodeClaim?.metadata.name ?? '',
      providerID: sn.providerID ?? '',
      nodePool,
      price: nodePrice(labels, types),
      capacityType: labels[LABEL_CAPACITY_TYPE] ?? '',
      pods: reschedulable.length,
    },
    reschedulable,
    disruptionCost: 1 + reschedulable.reduce((s, p) => s + Math.max(0, evictionCost(p)), 0),
  };
}

/** Whether the evaluated node is a candidate the methods can act on (a managed node with a machine). */
const actionable = (sn: StateNode | undefined): sn is StateNode =>
  sn?.nodeClaim !== undefined && sn.providerID !== undefined;

/** How many candidates candidatesFor would return, without building them (the eligible-nodes gauge, every loop). */
export function countCandidates(reason: Reason, out: EvalOutput, index: ClusterIndex): number {
  let n = 0;
  for (const name of digestOf(out).byReason.get(reason) ?? []) if (actionable(index.nodesByName.get(name))) n++;
  return n;
}

/** Candidates for one reason, straight from the evaluation. */
export function candidatesFor(
  reason: Reason,
  out: EvalOutput,
  index: ClusterIndex,
  types: ReadonlyMap<string, InstanceType>,
): Candidate[] {
  const result: Candidate[] = [];
  for (const name of digestOf(out).byReason.get(reason) ?? []) {
    const sn = index.nodesByName.get(name);
    if (actionable(sn)) result.push(toCandidate(sn, out.nodes[name].nodePool, types));
  }
  return result;
}

/**
 * Karpenter v1.14 order for emptiness and consolidation: price ÷ disruption cost, descending (ties by name, for
 * determinism).
 */
export const bySavingsRatio = (a: Candidate, b: Candidate): number =>
  b.ref.price / b.disruptionCost - a.ref.price / a.disruptionCost || a.ref.node.localeCompare(b.ref.node);

/**
 * Allowed disruptions per NodePool for a reason, as a mutable budget mapping (unlimited = UNBOUNDED, as in Karpenter).
 */
export function budgetMapping(out: EvalOutput, reason: Reason): Map<string, number> {
  const m = new Map<string, number>();
  for (const [pool, p] of Object.entries(out.nodePools)) {
    const a = p.allowed[reason];
    m.set(pool, a === undefined ? 0 : countOf(a));
  }
  return m;
}

/**
 * Keeps candidates in order while their pool has budget left, spending one per candidate (Karpenter's
 * `mapping[pool]--`).
 */
export function takeWithinBudget(cands: readonly Candidate[], budget: Map<string, number>): Candidate[] {
  return cands.filter((c) => {
    const left = budget.get(c.ref.nodePool) ?? 0;
    if (left <= 0) return false;
    budget.set(c.ref.nodePool, left - 1);
    return true;
  });
}
