// SPDX-License-Identifier: Apache-2.0
// CONTRACT STUB — implemented by the time/windows work. Signatures are fixed.
import type { WindowSpec } from './model.js';

/** Karpenter's Budget.IsActive generalised to a time zone; throws WindowError for invalid specs. */
export function isWindowActive(spec: WindowSpec, nowMs: number): boolean {
  throw new Error(`not implemented: ${spec.cron} ${nowMs}`);
}

/** The half-open intervals [start, end) in epoch ms during which the window is active, clipped to [fromMs, toMs). */
export function activeIntervals(spec: WindowSpec, fromMs: number, toMs: number): Array<[number, number]> {
  throw new Error(`not implemented: ${spec.cron} ${fromMs} ${toMs}`);
}

export function isKnownTimeZone(zone: string): boolean {
  throw new Error(`not implemented: ${zone}`);
}
