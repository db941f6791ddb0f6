// SPDX-License-Identifier: Apache-2.0
// The views of one evaluation's node verdicts that the disruption loop reads every tick —
// candidates per reason, the blocked nodes, a fingerprint — built once per evaluation. An
// evaluation reused across quiet ticks (src/core/eval/evaluation-span.ts) keeps its `nodes` record,
// so these are built once for as long as nothing changes, not once per method per tick.
import type { Reason } from '../../../../rules/model.js';
import type { EvalOutput, NodeResult } from '../../../core/eval/output.js';

export interface VerdictDigest {
  /** Node names per reason they are a candidate for, in evaluation order. */
  byReason: ReadonlyMap<Reason, readonly string[]>;
  /** Nodes with at least one block, in evaluation order. */
  blocked: ReadonlyArray<readonly [string, NodeResult]>;
  /**
   * Every node's reasons and block codes and every pool's allowances, as one string (KARPENTER.md#consolidated-cache's
   * "state changed").
   */
  fingerprint(): string;
}

const digests = new WeakMap<EvalOutput['nodes'], VerdictDigest>();

export function digestOf(evaluation: EvalOutput): VerdictDigest {
  let d = digests.get(evaluation.nodes);
  if (d === undefined) {
    d = build(evaluation);
    digests.set(evaluation.nodes, d);
  }
  return d;
}

function build(evaluation: EvalOutput): VerdictDigest {
  const byReason = new Map<Reason, string[]>();
  const blocked: [string, NodeResult][] = [];
  for (const [name, n] of Object.entries(evaluation.nodes)) {
    for (const r of n.reasons) {
      const names = byReason.get(r);
      if (names) names.push(name);
      else byReason.set(r, [name]);
    }
    if (n.blocked.length > 0) blocked.push([name, n]);
  }
  let fp: string | undefined;
  return {
    byReason,
    blocked,
    // Pool allowances are part of it, and a reused evaluation keeps its pools too.
    fingerprint: () => (fp ??= fingerprintOf(evaluation)),
  };
}

function fingerprintOf(evaluation: EvalOutput): string {
  let fp = '';
  for (const [name, n] of Object.entries(evaluation.nodes))
    fp += `${name}:${n.reasons.join(',')}:${n.blocked.map((b) => b.code).join(',')};`;
  for (const [name, p] of Object.entries(evaluation.nodePools)) fp += `${name}=${JSON.stringify(p.allowed)};`;
  for (const [id, sc] of Object.entries(evaluation.scopes ?? {})) fp += `${id}=${JSON.stringify(sc.allowed)};`;
  return fp;
}
