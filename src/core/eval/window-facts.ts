// SPDX-License-Identifier: Apache-2.0
// What a policy's pool rules read of time at an instant: its window facts (with the budgets that
// cannot be evaluated, which fail closed), and the key that says whether two instants read the same.
import type { GraphEngine } from '../../../rules/engine.js';
import type { PolicySpec } from '../../../rules/model.js';
import { isWindowActive } from '../../../rules/window.js';
import type { Pause } from '../facts/pauses.js';

/** A policy's `window:<id>` facts at an instant, and the budgets that cannot be evaluated. */
export interface WindowFacts {
  windows: Record<string, boolean>;
  errors: string[];
}

/** `window:<id>` facts and the number of budgets that cannot be evaluated (fail closed). */
export function windowFacts(engine: GraphEngine, nowMs: number): WindowFacts {
  const windows: Record<string, boolean> = {};
  const errors: string[] = [];
  for (const b of engine.graph.spec.budgets) if (b.error) errors.push(`budget ${b.id}: ${b.error}`);
  for (const [id, spec] of Object.entries(engine.graph.windows)) {
    try {
      if (spec.error) throw new Error(spec.error);
      windows[`window:${id}`] = isWindowActive(spec, nowMs);
    } catch (e) {
      // A broken budget window fails the pool closed; a broken maintenance window blocks (also closed).
      const maintenance = engine.maintenanceWindows.has(id);
      windows[`window:${id}`] = maintenance;
      if (!maintenance) errors.push(`budget ${id}: ${(e as Error).message}`);
    }
  }
  return { windows, errors };
}

/**
 * What the governing policies' rules read of time at `nowMs`, joined: every window fact, and
 * where each instant a rule compares `now` with (a freeze's bounds) lies relative to it.
 */
export function poolWindowKey(
  policies: Iterable<PolicySpec>,
  nowMs: number,
  windowsOf: (policy: PolicySpec) => WindowFacts,
  engineFor: (policy: PolicySpec) => GraphEngine,
): string {
  let key = '';
  for (const policy of policies) {
    const { windows, errors } = windowsOf(policy);
    for (const on of Object.values(windows)) key += on ? '1' : '0';
    for (const at of nowThresholds(engineFor(policy))) key += nowMs < at ? '<' : nowMs === at ? '=' : '>';
    key += `${errors.length};`;
  }
  return key;
}

/** Which pauses are in force at `nowMs`: a whole evaluation is kept only while none has started or ended. */
export const pauseKey = (pauses: readonly Pause[], nowMs: number): string =>
  pauses.map((x) => (nowMs < x.untilMs ? '1' : '0')).join('');

/** The constants the engine's pool rules compare the `now` fact with. */
const thresholds = new WeakMap<GraphEngine, number[]>();
function nowThresholds(engine: GraphEngine): number[] {
  let out = thresholds.get(engine);
  if (out === undefined) {
    out = [];
    const visit = (c: unknown): void => {
      if (Array.isArray(c)) return c.forEach(visit);
      if (c === null || typeof c !== 'object') return;
      const o = c as Record<string, unknown>;
      if (o.fact === 'now' && typeof o.value === 'number') out!.push(o.value);
      for (const v of Object.values(o)) visit(v);
    };
    for (const r of engine.graph.poolRules) visit(r.conditions);
    thresholds.set(engine, out);
  }
  return out;
}
