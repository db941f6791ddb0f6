// SPDX-License-Identifier: Apache-2.0
// A PolicySpec printed as .kpol source (`kpol import`). Checking the printed text yields the
// same PolicySpec (modulo ids and source ranges) wherever .kpol can say it; where it cannot
// (a budget that applies to no reason, an invalid Karpenter budget), the text says what was
// there in a comment and prints the statement that behaves the same. Windows always carry
// their zone (`in "UTC"` for Karpenter input), so the text does not depend on a default.
import { formatDuration } from './duration.js';
import {
  KARPENTER_REASONS,
  REASONS,
  type BudgetSpec,
  type LabelRequirement,
  type PolicySpec,
  type Reason,
  type WindowSpec,
} from './model.js';

const INDENT = '  ';

const quote = (s: string): string => JSON.stringify(s);
const quantity = (b: BudgetSpec): string => (b.nodes.kind === 'percent' ? `${b.nodes.value}%` : String(b.nodes.value));
const window = (w: WindowSpec): string =>
  `${quote(w.cron)} for ${formatDuration(w.durationSeconds)} in ${quote(w.timeZone)}`;
const instant = (ms: number): string => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

function requirement(r: LabelRequirement): string {
  switch (r.operator) {
    case 'In':
      return r.values.length === 1
        ? `${r.key} = ${quote(r.values[0])}`
        : `${r.key} in (${r.values.map(quote).join(', ')})`;
    case 'NotIn':
      return r.values.length === 1
        ? `${r.key} != ${quote(r.values[0])}`
        : `${r.key} notin (${r.values.map(quote).join(', ')})`;
    case 'Exists':
      return `${r.key} exists`;
    case 'DoesNotExist':
      return `${r.key} not exists`;
    default: {
      const never: never = r.operator;
      throw new Error(`unknown operator ${String(never)}`);
    }
  }
}

const selector = (reqs: readonly LabelRequirement[]): string => reqs.map(requirement).join(' and ');

function consolidationWords(p: PolicySpec): string {
  switch (p.consolidationPolicy) {
    case 'WhenEmpty':
      return 'when empty';
    case 'WhenEmptyOrUnderutilized':
      return 'when empty or underutilized';
    case 'Balanced':
      return 'when balanced';
    default: {
      const never: never = p.consolidationPolicy;
      throw new Error(`unknown consolidation policy ${String(never)}`);
    }
  }
}

/** The statements of one budget (comments included). */
function budgetLines(b: BudgetSpec): string[] {
  const reasons = b.reasons === null ? '' : b.reasons.join(', ');
  const invalid = b.error ?? b.window?.error;
  if (invalid !== undefined) {
    const during = b.window ? ` during ${window(b.window)}` : '';
    const was = `${b.mode} ${quantity(b)}${reasons ? ` for ${reasons}` : ''}${during}`;
    return [`# ${was}: invalid (${invalid}), so Karpenter allows no disruption for any reason`, 'budget 0'];
  }
  if (b.reasons !== null && b.reasons.length === 0) {
    return [`# budget ${quantity(b)} with \`reasons: []\` applies to no reason and has no effect`];
  }
  if (b.mode === 'allow') {
    if (!b.window) return [`budget ${quantity(b)}${reasons ? ` for ${reasons}` : ''}`];
    return [`allow ${quantity(b)}${reasons ? ` ${reasons}` : ''} only during ${window(b.window)}`];
  }
  const per = b.perReason ? ' per reason' : '';
  return [
    `budget ${quantity(b)}${reasons ? ` for ${reasons}` : ''}${per}${b.window ? ` during ${window(b.window)}` : ''}`,
  ];
}

/** Prints one policy as a `policy … { … }` block ending in a newline. */
export function policyToSource(policy: PolicySpec): string {
  const lines: string[] = [];
  const t = policy.target;
  const target =
    t.kind === 'names'
      ? `nodepool${t.names.length > 1 ? 's' : ''} ${t.names.join(', ')}`
      : `nodepools where ${selector(t.selector)}`;
  lines.push(
    `consolidate ${consolidationWords(policy)} ` +
      `after ${policy.consolidateAfterSeconds === null ? 'never' : formatDuration(policy.consolidateAfterSeconds)}`,
  );
  const graceful = policy.expiration === 'graceful' ? ' gracefully' : '';
  if (policy.expireAfterSeconds === null) lines.push('expire never');
  else if (policy.expireAfterSeconds !== undefined)
    lines.push(`expire after ${formatDuration(policy.expireAfterSeconds)}${graceful}`);
  if (policy.terminationGracePeriodSeconds !== undefined)
    lines.push(`termination grace ${formatDuration(policy.terminationGracePeriodSeconds)}`);

  const budgets = policy.budgets.flatMap(budgetLines);
  if (!budgets.some((l) => !l.startsWith('#'))) {
    // No statement would give the 10% default; a window that never opens is exactly "unlimited".
    budgets.push(
      '# no budget applies, so every reason is unlimited (a window of 0m never opens)',
      'budget 0 during "@yearly" for 0m in "UTC"',
    );
  }
  lines.push(...budgets);

  for (const f of policy.freezes) {
    if (f.name) lines.push(`# freeze ${f.name}`);
    lines.push(
      `freeze${f.reasons === null ? '' : ` ${f.reasons.join(', ')}`} ` +
        `from ${quote(instant(f.range.fromMs))} to ${quote(instant(f.range.toMs))}`,
    );
  }
  for (const p of policy.podWindows) {
    const where = p.selector.length > 0 ? ` where ${selector(p.selector)}` : '';
    const ns = p.namespaces.length > 0 ? ` in namespace ${p.namespaces.join(', ')}` : '';
    if (p.window) lines.push(`pods${where}${ns} disruptable ${p.mode} during ${window(p.window)}`);
    else lines.push(`pods${where}${ns} never ${(p.reasons ?? []).join(', ')}`);
  }
  for (const m of policy.maintenanceWindows) {
    if (m.reasons !== null && m.reasons.length === 0) {
      lines.push(`# window ${m.name} with \`reasons: []\` blocks no reason and has no effect`);
      continue;
    }
    const all: readonly Reason[] = policy.expiration === 'graceful' ? REASONS : KARPENTER_REASONS;
    const reasons = (m.reasons ?? all).join(', ');
    const on = m.nodeSelector.length > 0 ? ` on nodes where ${selector(m.nodeSelector)}` : '';
    const during = m.windows.length > 0 ? ` during ${m.windows.map(window).join(', ')}` : '';
    lines.push(`window ${m.name} blocks ${reasons}${on}${during}`);
  }
  return `policy ${policy.name} for ${target} {\n${lines.map((l) => INDENT + l).join('\n')}\n}\n`;
}
