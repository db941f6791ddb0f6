// SPDX-License-Identifier: Apache-2.0
// Budget state in NodePool status, which Karpenter users asked for
// (kubernetes-sigs/karpenter#2017: "Include Nodepool disruption budget information in the
// NodePool status"). The numbers are the evaluator's own output for the NodePool, so the status
// says exactly what the disruption controller acted on:
//
//   status.disruption:
//     policy: business-hours          # the .kpol policy, or nodepool/<name> for its own spec.disruption
//     nodes: 19                       # initialized nodes counted against budgets
//     disrupting: 1                   # NotReady or being disrupted (KARPENTER.md#budget-counting)
//     reasons:
//     - {reason: Drifted, budget: 3, allowed: 2, disrupting: 1}
//     - {reason: Empty, disrupting: 1}  # no budget and no allowed: unlimited
//     errors: []                      # e.g. a broken schedule that fails the pool closed
//     lastTransitionTime: ...         # when these numbers last changed
//
// Karpenter counts disrupting nodes per NodePool and subtracts the same count for every reason
// (KARPENTER.md#budget-counting step 5), so each reason's `disrupting` is the pool's — except where a kpol
// `per reason` bucket bound the reason: then it is what the bucket counted (that reason's and the unknown
// ones), so `allowed = budget − disrupting` holds on every line. Unlimited is written by omission
// (a JSON merge patch cannot carry null, and the CRD schema has no nullable fields). The status
// is written only when a number changes, so a steady cluster causes no writes.
import { isApiError, type ClusterClient } from '../../core/cluster/client.js';
import type { NodePool } from '../../core/cluster/types.js';
import { bucketCount } from '../../core/eval/disruption-reasons.js';
import type { EvalOutput, PoolResult } from '../../core/eval/output.js';

export interface ReasonStatus {
  reason: string;
  /** Nodes the active budgets allow for this reason; absent = unlimited. */
  budget?: number;
  /** Disruptions allowed now (budget minus disrupting, at least 0); absent = unlimited. */
  allowed?: number;
  disrupting: number;
}

export interface NodePoolDisruptionStatus {
  policy: string;
  nodes: number;
  disrupting: number;
  reasons: ReasonStatus[];
  errors: string[];
  lastTransitionTime: string;
}

export type DisruptionNumbers = Omit<NodePoolDisruptionStatus, 'lastTransitionTime'>;

/** The status a NodePool's evaluation result translates to (reasons in the evaluator's order). */
export function disruptionNumbers(pool: PoolResult): DisruptionNumbers {
  const reasons = Object.keys(pool.allowed) as (keyof PoolResult['allowed'])[];
  return {
    policy: pool.policy,
    nodes: pool.nodes,
    disrupting: pool.disrupting,
    reasons: reasons.map((reason) => {
      const budget = pool.budgets[reason];
      const allowed = pool.allowed[reason];
      return {
        reason,
        ...(typeof budget === 'number' && { budget }),
        ...(typeof allowed === 'number' && { allowed }),
        disrupting:
          pool.disruptingByReason && pool.boundByBucket?.includes(reason)
            ? bucketCount(pool.disruptingByReason, reason)
            : pool.disrupting,
      };
    }),
    errors: [...pool.errors],
  };
}

function sameNumbers(current: Partial<NodePoolDisruptionStatus> | undefined, next: DisruptionNumbers): boolean {
  if (!current) return false;
  const { lastTransitionTime: _, ...rest } = current;
  return JSON.stringify(normalise(rest)) === JSON.stringify(normalise(next));
}

/** Key order as written, so a status read back from the API server compares equal. */
function normalise(s: Partial<DisruptionNumbers>): unknown {
  return {
    policy: s.policy,
    nodes: s.nodes,
    disrupting: s.disrupting,
    errors: s.errors ?? [],
    reasons: (s.reasons ?? []).map((r) => ({
      reason: r.reason,
      budget: r.budget,
      allowed: r.allowed,
      disrupting: r.disrupting,
    })),
  };
}

export class NodePoolStatusWriter {
  constructor(private readonly client: ClusterClient) {}

  /**
   * Writes `status.disruption` of every NodePool in `evaluation` whose numbers changed; returns
   * the names written. A NodePool deleted since the evaluation is skipped.
   */
  async reconcile(evaluation: EvalOutput): Promise<string[]> {
    const pools = new Map((await this.client.list<NodePool>('NodePool')).map((np) => [np.metadata.name, np]));
    const written: string[] = [];
    for (const [name, result] of Object.entries(evaluation.nodePools)) {
      const np = pools.get(name);
      if (!np || np.metadata.deletionTimestamp) continue;
      const next = disruptionNumbers(result);
      const current = (np.status as { disruption?: Partial<NodePoolDisruptionStatus> } | undefined)?.disruption;
      if (sameNumbers(current, next)) continue;
      const status: NodePoolDisruptionStatus = { ...next, lastTransitionTime: evaluation.at };
      try {
        await this.client.patch({ kind: 'NodePool', name }, { status: { disruption: status } });
      } catch (err) {
        if (isApiError(err, 404)) continue; // deleted since it was listed
        throw err;
      }
      written.push(name);
    }
    return written;
  }
}
