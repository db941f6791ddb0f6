// SPDX-License-Identifier: Apache-2.0
// Stage: `pods where … disruptable only|never during …` and `pods where … never REASONS` (pod
// protection, no window) → PodWindowSpec, ids `p0, p1, …`.
import type { PodWindowStmt } from '../../grammar/ast.js';
import type { PodWindowSpec } from '../model.js';
import type { CheckContext, PolicyUnit } from './context.js';
import { lowerWindow } from './lower-window.js';
import { lowerReasons } from './reasons.js';
import { lowerSelector } from './selectors.js';

export function lowerPodWindows(ctx: CheckContext): void {
  for (const unit of ctx.units) {
    const stmts = unit.ast.statements.filter((s): s is PodWindowStmt => s.kind === 'PodWindow');
    unit.spec.podWindows = stmts.map((s, i) => lowerPodWindow(unit, s, `p${i}`));
  }
}

function lowerPodWindow(unit: PolicyUnit, stmt: PodWindowStmt, id: string): PodWindowSpec {
  const spec: PodWindowSpec = {
    id,
    selector: lowerSelector(stmt.selector),
    namespaces: stmt.namespaces.map((n) => n.text),
    mode: stmt.mode,
    source: stmt.range,
  };
  if (stmt.window) spec.window = lowerWindow(unit, stmt.window, 'pod');
  // A written list is never null; an unknown or out-of-scope reason is dropped (and reported).
  else spec.reasons = lowerReasons(unit, stmt.reasons ?? []) ?? [];
  return spec;
}
