// SPDX-License-Identifier: Apache-2.0
// Facts about a valid window that the analysis stages share, in Karpenter's terms: a schedule
// that never fires is always active (whatever the duration), a zero duration never opens.
// Policies repeat the same few windows, so the facts are computed once per distinct window.
import type { WindowExpr } from '../../grammar/ast.js';
import { cronNeverFires } from '../cron.js';
import type { WindowSpec } from '../model.js';
import { scheduleAlwaysActive, windowNeverOpens, WindowError } from '../window.js';

interface WindowFacts {
  neverFires: boolean;
  neverOpens: boolean;
  alwaysOpen: boolean;
}

const cache = new Map<string, WindowFacts | null>();
const MAX_CACHED = 5000;
/**
 * The facts of the last spec asked for: each analysis stage asks about the same lowered windows,
 * and a spec is not changed once lowered, so most lookups need no key.
 */
const recent = new WeakMap<WindowSpec, WindowFacts | null>();

/** Null for a window that cannot be evaluated (unknown zone, invalid schedule): it fails closed. */
function factsOf(spec: WindowSpec): WindowFacts | null {
  let facts = recent.get(spec);
  if (facts !== undefined) return facts;
  facts = factsByText(spec);
  recent.set(spec, facts);
  return facts;
}

function factsByText(spec: WindowSpec): WindowFacts | null {
  const key = `${spec.cron}\u0000${spec.timeZone}\u0000${spec.durationSeconds}\u0000${spec.error ?? ''}`;
  let facts = cache.get(key);
  if (facts !== undefined) return facts;
  try {
    const neverFires = cronNeverFires(spec.cron);
    facts = { neverFires, neverOpens: !neverFires && windowNeverOpens(spec), alwaysOpen: scheduleAlwaysActive(spec) };
  } catch (e) {
    if (!(e instanceof WindowError)) throw e;
    facts = null;
  }
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, facts);
  return facts;
}

export function neverFires(spec: WindowSpec): boolean {
  return factsOf(spec)?.neverFires ?? false;
}

/** Active at every instant because the duration covers the period (not because it never fires). */
export function coversPeriod(spec: WindowSpec): boolean {
  const facts = factsOf(spec);
  return facts !== null && !facts.neverFires && facts.alwaysOpen;
}

/** Active at every instant for any reason. */
export function alwaysOpen(spec: WindowSpec): boolean {
  return factsOf(spec)?.alwaysOpen ?? false;
}

export function neverOpens(spec: WindowSpec): boolean {
  return factsOf(spec)?.neverOpens ?? false;
}

/** The schedule as written (a cron or the name of a declared schedule). */
export function scheduleText(expr: WindowExpr): string {
  return expr.schedule.kind === 'Str' ? expr.schedule.value : expr.schedule.text;
}
