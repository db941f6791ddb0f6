// SPDX-License-Identifier: Apache-2.0
// Stage: `window NAME blocks … during …` → MaintenanceWindowSpec, id `w:<name>`
// (KARPENTER.md#maintenance-windows-proposal).
import type { MaintenanceWindowStmt } from '../../grammar/ast.js';
import type { MaintenanceWindowSpec } from '../model.js';
import type { CheckContext, PolicyUnit } from './context.js';
import { lowerWindow } from './lower-window.js';
import { lowerReasons } from './reasons.js';
import { lowerSelector } from './selectors.js';

export function lowerMaintenanceWindows(ctx: CheckContext): void {
  for (const unit of ctx.units) {
    const stmts = unit.ast.statements.filter((s): s is MaintenanceWindowStmt => s.kind === 'MaintenanceWindow');
    unit.spec.maintenanceWindows = stmts.map((s) => lowerMaintenanceWindow(unit, s));
  }
}

function lowerMaintenanceWindow(unit: PolicyUnit, stmt: MaintenanceWindowStmt): MaintenanceWindowSpec {
  return {
    id: `w:${stmt.name.text}`,
    name: stmt.name.text,
    reasons: lowerReasons(unit, stmt.reasons),
    nodeSelector: lowerSelector(stmt.selector),
    windows: stmt.windows.map((w) => lowerWindow(unit, w, 'maintenance')),
    source: stmt.range,
  };
}
