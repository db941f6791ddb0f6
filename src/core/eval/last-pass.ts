// SPDX-License-Identifier: Apache-2.0
// The last evaluation as the next one starts from it (Evaluator.changedOnly), and the tests that
// say a later one may: everything but some nodes' own objects reads as it did.
import type { PolicySpec } from '../../../rules/model.js';
import type { ClusterIndex, StateNode } from '../cluster/state.js';
import type { DisruptionState } from '../facts/node-facts.js';
import type { Pause } from '../facts/pauses.js';
import type { PodWarning } from '../facts/pod-windows.js';
import type { DueNodes } from './due-nodes.js';
import type { EvaluationSpan } from './evaluation-span.js';
import type { Combinations } from './fact-combinations.js';
import type { EvalOutput, NodeResult } from './output.js';
import type { NodeRow } from './prepared-nodes.js';
import type { Governed } from './resolve-policies.js';
import type { WindowFacts } from './window-facts.js';

/** At most this many changed nodes are derived on their own; more, and the whole pass is as cheap. */
export const CHANGED_LIMIT = 256;
/** Rule answers carried from one evaluation to the next before they are dropped (a whole pass starts afresh). */
export const MAX_CARRIED_ANSWERS = 20_000;

/** What an evaluation of only the changed nodes reads besides the last evaluation (changedOnly). */
export interface ChangedOnlyInputs {
  index: ClusterIndex;
  policies: readonly PolicySpec[];
  nowMs: number;
  state: DisruptionState;
  stateNow: string;
  poolWindows: string;
  pauses: readonly Pause[];
  pdbEpoch: number;
  byPool: Map<string, Governed>;
  windowsOf: (policy: PolicySpec) => WindowFacts;
}

/** The last evaluation, as the next one starts from it when only some nodes' objects changed (changedOnly). */
export interface LastPass {
  index: ClusterIndex;
  policies: readonly PolicySpec[];
  stateNow: string;
  poolWindows: string;
  pdbEpoch: number;
  pauses: readonly Pause[];
  nowMs: number;
  /** Some governing policy has rate budgets (its pools' results read the instant). */
  rated: boolean;
  span: EvaluationSpan;
  /** When each node's facts next move with time. */
  due: DueNodes;
  output: EvalOutput;
  /** Each node's pod warnings by its place in the index, and all of them as the output words them. */
  warned: (readonly PodWarning[] | undefined)[];
  podTexts: string[];
  combinations: Map<PolicySpec, Combinations>;
}

/**
 * Whether everything but the nodes' own objects reads as it did at the last evaluation: its
 * policies, in-flight state, pools' window, threshold, pause and rate facts, PDB epoch and
 * NodePools, at a later instant inside the span of every node's facts.
 */
export function sameInputs(
  last: LastPass,
  at: Pick<ChangedOnlyInputs, 'index' | 'policies' | 'stateNow' | 'poolWindows' | 'pdbEpoch' | 'pauses' | 'nowMs'>,
): boolean {
  const { index, nowMs } = at;
  const before = last.index;
  return (
    last.policies === at.policies &&
    last.stateNow === at.stateNow &&
    last.poolWindows === at.poolWindows &&
    last.pdbEpoch === at.pdbEpoch &&
    last.pauses === at.pauses &&
    nowMs >= last.nowMs &&
    index.snapshot.nodePools === before.snapshot.nodePools &&
    index.nodePoolsByName === before.nodePoolsByName &&
    // A rate budget's use names the instant one more may start, which moves with the clock
    // (a NodeClaim disrupting now counts as a start now): its pools are evaluated again.
    !last.rated &&
    last.span.windowsHold(nowMs)
  );
}

/** Whether a changed node keeps its place in its pool's budget count (and so every pool's result stands). */
export function sameCount(was: NodeRow, row: NodeRow, state: DisruptionState): boolean {
  if (was.pool !== row.pool || was.counted !== row.counted || was.sn.providerID !== row.sn.providerID) return false;
  if (!row.counted) return true;
  // A disrupting node counts by its reason, which its NodeClaim may carry: not followed here.
  const id = row.sn.providerID;
  return !was.disrupting && !row.disrupting && (id === undefined || !state.marked.has(id));
}

/** The same Node and NodeClaim objects by name and uid: events about them name the same objects. */
export function sameObjects(a: StateNode, b: StateNode): boolean {
  return (
    a.node?.metadata.uid === b.node?.metadata.uid &&
    a.nodeClaim?.metadata.name === b.nodeClaim?.metadata.name &&
    a.nodeClaim?.metadata.uid === b.nodeClaim?.metadata.uid
  );
}

/** The same verdict: the same object (a combination's shared result) or one equal in every field. */
export const sameResult = (a: NodeResult | undefined, b: NodeResult): boolean =>
  a === b || (a !== undefined && JSON.stringify(a) === JSON.stringify(b));

/** The pod warnings of every node in node order, each once, as the output words them. */
export function podTextsOf(warned: readonly (readonly PodWarning[] | undefined)[]): string[] {
  const all = new Map<string, PodWarning>();
  for (const ws of warned) if (ws) for (const w of ws) all.set(`${w.pod}\u0000${w.message}`, w);
  return [...all.values()].map((w) => `Pod ${w.pod}: ${w.message}`);
}
