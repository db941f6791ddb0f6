// SPDX-License-Identifier: Apache-2.0
// The last evaluation as the next one starts from it (Evaluator.changedOnly), and the tests that
// say a later one may: everything but some nodes' own objects reads as it did.
import type { PolicySpec } from '../../../rules/model.js';
import type { ClusterIndex, StateNode } from '../cluster/state.js';
import type { DisruptionState } from '../facts/node-facts.js';
import type { Pause } from '../facts/pauses.js';
import type { PoolStarts } from '../cluster/disruption-starts.js';
import type { PodWarning } from '../facts/pod-windows.js';
import type { Reason } from '../../../rules/model.js';
import { disruptionReason, type DisruptingByReason } from './disruption-reasons.js';
import type { DueNodes } from './due-nodes.js';
import type { EvaluationSpan } from './evaluation-span.js';
import type { Combinations } from './fact-combinations.js';
import type { EvalOutput, NodeResult } from './output.js';
import type { NodeRow } from './prepared-nodes.js';
import type { MachinePlaces } from './machine-places.js';
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
  rateStarts: ReadonlyMap<string, PoolStarts>;
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
  /** Each pool's budget count (the pools with a counted node), kept current by the changed nodes. */
  counts: Map<string, PoolCount>;
  /** The in-flight state the last evaluation read (copies: the reconciler changes its sets in place). */
  inFlight: InFlightCopy;
  /** Its rows by providerID and name, made when the in-flight state first moves after a whole pass. */
  places?: MachinePlaces;
}

/** A pool's budget count: its counted nodes, how many are disrupting, and for which reasons. */
export interface PoolCount {
  nodes: number;
  disrupting: number;
  byReason: DisruptingByReason;
}

/** What an evaluation read of the in-flight state, copied. */
export interface InFlightCopy {
  queued: ReadonlySet<string>;
  marked: ReadonlySet<string>;
  nominated: ReadonlySet<string>;
  reasons: ReadonlyMap<string, Reason>;
}

export const copyOfState = (
  state: DisruptionState,
  reasons: ReadonlyMap<string, Reason> | undefined,
): InFlightCopy => ({
  queued: new Set(state.queued),
  marked: new Set(state.marked),
  nominated: new Set(state.nominated),
  reasons: new Map(reasons),
});

/**
 * The machines the in-flight state changed for since `was`: the providerIDs that entered or left
 * the queue or the marks or changed their command's reason, and the node names nominated or no
 * longer. A node's verdict reads only its own entries (its flags, node-result-cache.ts) and its
 * pool's count only its own mark and reason, so only these machines and their pools can move.
 */
export function stateChanges(
  was: InFlightCopy,
  now: InFlightCopy,
): { ids: ReadonlySet<string>; names: ReadonlySet<string> } {
  const ids = new Set<string>();
  const names = new Set<string>();
  const differ = (a: ReadonlySet<string>, b: ReadonlySet<string>, into: Set<string>) => {
    for (const x of a) if (!b.has(x)) into.add(x);
    for (const x of b) if (!a.has(x)) into.add(x);
  };
  differ(was.queued, now.queued, ids);
  differ(was.marked, now.marked, ids);
  differ(was.nominated, now.nominated, names);
  for (const [id, r] of was.reasons) if (now.reasons.get(id) !== r) ids.add(id);
  for (const id of now.reasons.keys()) if (!was.reasons.has(id)) ids.add(id);
  return { ids, names };
}

/** Where a row counts in its pool's budget under an in-flight state: nothing, counted, or disrupting for a reason. */
export function shareOf(
  row: NodeRow,
  marked: ReadonlySet<string>,
  reasons: ReadonlyMap<string, Reason> | undefined,
): { pool: string; disrupting: boolean; reason: Reason | 'unknown' } | undefined {
  if (!row.counted) return undefined;
  const { sn } = row;
  const disrupting = row.disrupting || (sn.providerID !== undefined && marked.has(sn.providerID));
  const reason = disrupting ? (disruptionReason(sn, reasons) ?? 'unknown') : 'unknown';
  return { pool: row.pool!, disrupting, reason };
}

type Share = ReturnType<typeof shareOf>;

/** The same place in the same pool's count. */
export const sameShare = (a: Share, b: Share): boolean =>
  a === b ||
  (a !== undefined && b !== undefined && a.pool === b.pool && a.disrupting === b.disrupting && a.reason === b.reason);

/** Adds (`by` 1) or takes away (-1) a row's share of its pool's count. */
export function countIn(counts: Map<string, PoolCount>, share: Share, by: 1 | -1): void {
  if (share === undefined) return;
  let c = counts.get(share.pool);
  if (c === undefined) counts.set(share.pool, (c = { nodes: 0, disrupting: 0, byReason: {} }));
  c.nodes += by;
  if (!share.disrupting) return;
  c.disrupting += by;
  const n = (c.byReason[share.reason] ?? 0) + by;
  if (n === 0) delete c.byReason[share.reason];
  else c.byReason[share.reason] = n;
}

/**
 * Whether everything but the nodes' own objects and the in-flight state (stateChanges) reads as it
 * did at the last evaluation: its policies, pools' window, threshold, pause and rate facts, PDB epoch and
 * NodePools, at a later instant inside the span of every node's facts.
 */
export function sameInputs(
  last: LastPass,
  at: Pick<ChangedOnlyInputs, 'index' | 'policies' | 'poolWindows' | 'pdbEpoch' | 'pauses' | 'nowMs'>,
): boolean {
  const { index, nowMs } = at;
  const before = last.index;
  return (
    last.policies === at.policies &&
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
