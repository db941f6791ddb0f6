// SPDX-License-Identifier: Apache-2.0
// A whole evaluation kept across instants: when no object changed (the same index), the policies
// and the in-flight state are the same, and the instant is inside the span every node's facts
// hold for with every window they read in the same state (and the pools' budget windows too),
// the answer is the previous one — no per-node work at all. This is the quiet tick of a large
// cluster: the node-by-node reuse in node-result-cache.ts still costs a pass over every node.
//
// The span is the intersection of the nodes' FactValidity spans: after an evaluation at t every
// node's recorded window states are the states at t, so one check per distinct window suffices.
import type { PolicySpec, WindowSpec } from '../../../rules/model.js';
import type { ClusterIndex } from '../cluster/state.js';
import type { FactValidity } from '../facts/fact-validity.js';
import type { DisruptionState } from '../facts/node-facts.js';
import type { WindowState } from '../facts/pod-windows.js';
import type { EvalOutput } from './output.js';

type StateOf = (spec: WindowSpec, nowMs: number) => WindowState;

/** The in-flight state as a string; undefined when it cannot be compared (a per-pool instance-type lookup). */
export function stateKey(state: DisruptionState): string | undefined {
  if (state.instanceTypes !== undefined) return undefined;
  const reasons = [...(state.reasons ?? [])].map(([id, r]) => `${id}=${r}`).join(',');
  return [state.queued, state.marked, state.nominated].map((s) => [...s].join(',')).join('|') + `|${reasons}`;
}

export class EvaluationSpan {
  private from = -Infinity;
  private until = Infinity;
  private readonly windows = new Map<WindowSpec, { state: WindowState; stateOf: StateOf }>();
  output: EvalOutput | undefined;

  constructor(
    private index: ClusterIndex,
    private readonly policies: readonly PolicySpec[],
    private state: string,
    /** The pools' budget and maintenance window facts at the evaluation, joined. */
    private readonly poolWindows: string,
  ) {}

  /** Narrows the span to a node's facts. */
  add(validity: FactValidity, stateOf: StateOf): void {
    if (validity.from > this.from) this.from = validity.from;
    if (validity.until < this.until) this.until = validity.until;
    for (const [spec, state] of validity.windowStates()) this.windows.set(spec, { state, stateOf });
  }

  /** Whether the kept output is the answer for these inputs at `nowMs`. */
  holds(
    index: ClusterIndex,
    policies: readonly PolicySpec[],
    state: string | undefined,
    poolWindows: string,
    nowMs: number,
  ): boolean {
    if (
      this.output === undefined ||
      index !== this.index ||
      policies !== this.policies ||
      state !== this.state ||
      poolWindows !== this.poolWindows
    )
      return false;
    return this.timeHolds(nowMs);
  }

  /**
   * Whether every node's facts recorded in the span, and every window they read, are still what
   * they were at `nowMs`.
   */
  timeHolds(nowMs: number): boolean {
    return nowMs < this.until && this.windowsHold(nowMs);
  }

  /**
   * Whether every window the nodes read is in the state it was, at an instant not before the
   * span; the instants nodes' thresholds pass are followed per node (due-nodes.ts).
   */
  windowsHold(nowMs: number): boolean {
    if (nowMs < this.from) return false;
    for (const [spec, w] of this.windows) if (w.stateOf(spec, nowMs) !== w.state) return false;
    return true;
  }

  /**
   * The span carried to the index an evaluation of only the changed and due nodes was made for
   * (their validities added) under the in-flight state `state`, ending when the next node is due (due-nodes.ts).
   */
  moveTo(index: ClusterIndex, output: EvalOutput, until: number, state: string): void {
    this.index = index;
    this.state = state;
    this.output = output;
    this.until = until;
  }
}
