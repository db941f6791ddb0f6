// SPDX-License-Identifier: Apache-2.0
// A window spec checked once and bound to its schedule; the shared cache every window query
// starts from.
import type { WindowSpec } from './model.js';
import { validateCron } from './cron.js';
import { scheduleFor, type Schedule } from './window-hits.js';
import { isKnownTimeZone } from './window-zone.js';

/** A window that cannot be evaluated (invalid schedule or zone, or `spec.error`); callers fail closed. */
export class WindowError extends Error {
  constructor(
    message: string,
    readonly spec: WindowSpec,
  ) {
    super(message);
    this.name = 'WindowError';
  }
}

/** A spec bound to its schedule, with the last answer and the instants it holds for. */
export interface CompiledWindow {
  schedule: Schedule;
  durationMs: number;
  memo?: { fromMs: number; toMs: number; active: boolean };
}

const compiled = new Map<string, CompiledWindow>();
const MAX_CACHED = 5000;

/** Validates and caches a spec (keyed by schedule, zone and duration); throws WindowError. */
export function compileWindow(spec: WindowSpec): CompiledWindow {
  if (spec.error !== undefined) throw new WindowError(spec.error, spec);
  const key = `${spec.cron}\u0000${spec.timeZone}\u0000${spec.durationSeconds}`;
  const hit = compiled.get(key);
  if (hit) return hit;
  const cron = validateCron(spec.cron);
  if (!cron.ok) throw new WindowError(`invalid schedule \`${spec.cron}\`: ${cron.error}`, spec);
  if (!isKnownTimeZone(spec.timeZone)) throw new WindowError(`unknown time zone \`${spec.timeZone}\``, spec);
  if (!Number.isFinite(spec.durationSeconds) || spec.durationSeconds < 0) {
    throw new WindowError(`invalid window duration ${spec.durationSeconds}s`, spec);
  }
  if (compiled.size >= MAX_CACHED) compiled.clear();
  const entry: CompiledWindow = {
    schedule: scheduleFor(cron.normalized, spec.timeZone),
    durationMs: Math.round(spec.durationSeconds * 1000),
  };
  compiled.set(key, entry);
  return entry;
}
