// SPDX-License-Identifier: Apache-2.0
// Whether the controller's ticks succeed, for `/readyz` and `/metrics`. One failed tick is
// normal on a real cluster (a dropped connection, a refused write: the next tick starts again),
// so readiness turns only after FAILED_TICKS_NOT_READY failures in a row, and back at the first
// tick that succeeds. A replica that cannot make a decision is then out of the Service's
// endpoints and visible as such, instead of answering 200 while every tick fails.
import type { ReadinessCheck } from './readiness.js';

/** Consecutive failed ticks (one a second) before `/readyz` says not ready: 5 s of failures. */
export const FAILED_TICKS_NOT_READY = 5;

/** Counter of failed controller ticks on `/metrics` (kpol's own name; Karpenter has none). */
export const TICK_FAILURES_METRIC = 'kpol_tick_failures_total';

/** The slice of a metrics registry this needs (both registries kpol runs have it). */
export interface TickFailureCounter {
  inc(name: string, labels?: Record<string, string>, value?: number): void;
}

export class TickHealth {
  /** Failed ticks since the last one that succeeded. */
  consecutiveFailures = 0;
  /** The latest failure's text (kept until a tick succeeds). */
  lastError: string | undefined;

  constructor(
    private readonly metrics?: TickFailureCounter,
    readonly threshold = FAILED_TICKS_NOT_READY,
  ) {}

  succeeded(): void {
    this.consecutiveFailures = 0;
    this.lastError = undefined;
  }

  failed(error: string): void {
    this.consecutiveFailures++;
    this.lastError = error;
    this.metrics?.inc(TICK_FAILURES_METRIC);
  }

  /** The `/readyz` check: `ticks: the last 5 ticks failed: <error>`. */
  readiness(): ReadinessCheck {
    return {
      name: 'ticks',
      failure: () =>
        this.consecutiveFailures < this.threshold
          ? undefined
          : `the last ${this.consecutiveFailures} ticks failed: ${this.lastError ?? 'unknown error'}`,
    };
  }
}
