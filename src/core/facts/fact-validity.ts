// SPDX-License-Identifier: Apache-2.0
// The span of time over which a node's derived facts stay what they were at the instant they
// were derived, given unchanged objects. Facts move with time only at known instants (a
// consolidateAfter or expireAfter elapsing, a duration-valued do-not-disrupt running out) or
// when a window opens or closes; recording those lets the evaluator reuse a node's verdict
// across instants and re-derive it exactly when one of them is crossed.
import type { WindowSpec } from '../../../rules/model.js';
import type { WindowState } from './pod-windows.js';

const NO_WINDOWS: ReadonlyMap<WindowSpec, WindowState> = new Map();

export class FactValidity {
  /** The facts hold for instants in [from, until), as far as thresholds go. */
  from = -Infinity;
  until = Infinity;
  /** Windows the facts depended on, with the state each was in. */
  private windows: Map<WindowSpec, WindowState> | undefined;

  constructor(readonly at: number) {}

  /** A fact flips when time reaches `atMs` (false before, true from then on, or the reverse). */
  threshold(atMs: number): void {
    if (this.at < atMs) {
      if (atMs < this.until) this.until = atMs;
    } else if (atMs > this.from) this.from = atMs;
  }

  window(spec: WindowSpec, state: WindowState): void {
    (this.windows ??= new Map()).set(spec, state);
  }

  /** The windows the facts depended on, with their states. */
  windowStates(): ReadonlyMap<WindowSpec, WindowState> {
    return this.windows ?? NO_WINDOWS;
  }

  /** Whether the facts derived at `at` are the facts at `nowMs` (objects unchanged). */
  holdsAt(nowMs: number, stateOf: (spec: WindowSpec, nowMs: number) => WindowState): boolean {
    if (nowMs < this.from || nowMs >= this.until) return false;
    if (this.windows) for (const [spec, state] of this.windows) if (stateOf(spec, nowMs) !== state) return false;
    return true;
  }
}
