// SPDX-License-Identifier: Apache-2.0
// A disruption command (Karpenter's `Command`): which candidate nodes go, for which reason,
// and which replacement NodeClaims must be running first.
import type { InvolvedObject } from '../../../core/observe/recorder.js';
import type { NodeSelectorRequirement } from '../../../core/cluster/types.js';

export type MethodName = 'Emptiness' | 'Drift' | 'Expiration' | 'MultiNodeConsolidation' | 'SingleNodeConsolidation';
export type DisruptionReason = 'Empty' | 'Drifted' | 'Underutilized' | 'Expired';

export interface CandidateRef {
  node: string;
  nodeClaim: string;
  providerID: string;
  nodePool: string;
  price: number; // USD/h of the running offering (0 when unknown)
  capacityType: string;
  /** Reschedulable pods on the node when the command was made (karpenter_pods_disruption_initiated_total). */
  pods?: number;
}

/** A NodeClaim to launch before the candidates are deleted. */
export interface Replacement {
  nodePool: string;
  requirements: NodeSelectorRequirement[];
  instanceTypes: string[]; // cheapest first
  price: number; // cheapest compatible offering
}

export interface Command {
  id: string;
  method: MethodName;
  reason: DisruptionReason;
  consolidationType: 'empty' | 'multi' | 'single' | '';
  candidates: CandidateRef[];
  replacements: Replacement[];
  createdAt: number;
  /** NodeClaim names created for `replacements`, once launched. */
  launched: string[];
  /** Existing nodes the command's simulation placed pods on: nominated when it starts (KARPENTER.md#commands). */
  nominates?: string[];
}

export const decisionOf = (c: Command): 'delete' | 'replace' => (c.replacements.length ? 'replace' : 'delete');

export function describeCommand(c: Command): string {
  const nodes = c.candidates.map((x) => x.node).join(', ');
  const repl = c.replacements.map((r) => r.instanceTypes[0] ?? '?').join(', ');
  return c.replacements.length
    ? `${decisionOf(c)}, terminating ${c.candidates.length} nodes (${nodes}) and replacing with ${repl}`
    : `${decisionOf(c)}, terminating ${c.candidates.length} nodes (${nodes})`;
}

/**
 * A command as Karpenter's consolidation events name it on one of its candidates
 * (Command.StringForNode, before the command has an ID): the whole command when it has one
 * candidate, else that node as part of the batch.
 */
export function commandForNode(candidates: readonly { node: string }[], replacements: number, node: string): string {
  const decision = replacements > 0 ? 'replace' : 'delete';
  if (candidates.length !== 1) return `${decision}: [${node}] (part of ${candidates.length}-node consolidation)`;
  if (replacements === 0) return `${decision}: [${node}]`;
  return `${decision}: [${node}] -> [${replacements} replacement${replacements === 1 ? '' : 's'}]`;
}

/** Karpenter's EstimatedSavings: what the candidates cost less what their replacements cost (USD/h). */
export const estimatedSavings = (
  candidates: readonly { price: number }[],
  replacements: readonly { price: number }[],
): number => candidates.reduce((s, c) => s + c.price, 0) - replacements.reduce((s, r) => s + r.price, 0);

/** The two objects Karpenter's node events are published on: the candidate's Node and its NodeClaim. */
export const nodeAndClaim = (c: CandidateRef): InvolvedObject[] => [
  { kind: 'Node', name: c.node },
  { kind: 'NodeClaim', name: c.nodeClaim },
];
