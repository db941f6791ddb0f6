// SPDX-License-Identifier: Apache-2.0
// Stage: names that must be unique — policies and governed NodePools across every file
// checked together, maintenance-window names within a policy — and Karpenter's 50-budget cap.
import type { Name } from '../../grammar/ast.js';
import { diagnostic } from '../../grammar/diagnostic.js';
import { report, type CheckContext, type PolicyUnit } from './context.js';
import { firstWritten } from './notes.js';

const MAX_BUDGETS = 50;

interface Seen {
  unit: PolicyUnit;
  name: Name;
}

export function checkUniqueness(ctx: CheckContext): void {
  const policies = new Map<string, Seen>();
  const nodePools = new Map<string, Seen>();
  for (const unit of ctx.units) {
    const name = unit.ast.name;
    const first = policies.get(name.text);
    if (first)
      report(unit, diagnostic('duplicatePolicy', name.range, { name: name.text }, { related: relatedTo(first, unit) }));
    else policies.set(name.text, { unit, name });
    // A second policy of the same name is already an error; its NodePools would only repeat it.
    if (!first) checkNodePools(unit, nodePools);
    checkWindowNames(unit);
    checkBudgetCount(unit);
  }
}

function checkNodePools(unit: PolicyUnit, nodePools: Map<string, Seen>): void {
  const target = unit.ast.target;
  if (target.kind !== 'NodePoolNames') return;
  for (const name of target.names) {
    const first = nodePools.get(name.text);
    if (!first) {
      nodePools.set(name.text, { unit, name });
      continue;
    }
    // The same pool listed twice by one policy is harmless; only two governing policies conflict.
    if (first.unit === unit) continue;
    const args = { nodePool: name.text, first: first.unit.ast.name.text, second: unit.ast.name.text };
    report(unit, diagnostic('nodePoolInTwoPolicies', name.range, args, { related: relatedTo(first, unit) }));
  }
}

function checkWindowNames(unit: PolicyUnit): void {
  let seen: Map<string, Name> | undefined; // made at the second window: most policies have one or none
  let only: Name | undefined;
  for (const stmt of unit.ast.statements) {
    if (stmt.kind !== 'MaintenanceWindow') continue;
    if (only === undefined) {
      only = stmt.name;
      continue;
    }
    seen ??= new Map([[only.text, only]]);
    const first = seen.get(stmt.name.text);
    if (!first) {
      seen.set(stmt.name.text, stmt.name);
      continue;
    }
    const args = { name: stmt.name.text, policy: unit.ast.name.text };
    report(unit, diagnostic('duplicateWindowName', stmt.name.range, args, { related: firstWritten(first.range) }));
  }
}

function checkBudgetCount(unit: PolicyUnit): void {
  if (unit.ast.statements.length <= MAX_BUDGETS) return; // fewer statements than the limit: nothing to count
  const budgets = unit.ast.statements.filter((s) => s.kind === 'Budget' || s.kind === 'Allow');
  if (budgets.length <= MAX_BUDGETS) return;
  // Points at the first budget over the limit: everything before it would still export.
  report(
    unit,
    diagnostic('tooManyBudgets', budgets[MAX_BUDGETS].range, { policy: unit.ast.name.text, count: budgets.length }),
  );
}

function relatedTo(first: Seen, unit: PolicyUnit) {
  const otherFile = first.unit.scope === unit.scope ? undefined : first.unit.scope.fileName;
  return firstWritten(first.name.range, otherFile);
}
