// SPDX-License-Identifier: Apache-2.0
// compile: a checked PolicySpec → a rule graph (plain, serialisable JSON for json-rules-engine).
// Pool rules decide which budgets and freezes are in force at an instant; node rules are the
// built-in candidate layer (rules/builtin/candidate-rules.json) plus the policy's maintenance
// windows. Custom operators are referenced by name only (rules/operators.ts registers them).
import type { RuleProperties, TopLevelCondition } from 'json-rules-engine';
import builtin from './builtin/candidate-rules.json' with { type: 'json' };
import type { BudgetSpec, FreezeSpec, MaintenanceWindowSpec, PolicySpec, Reason, WindowSpec } from './model.js';
import { REASONS } from './model.js';

export const GRAPH_VERSION = 'kpol.dev/v1';

/** A compiled rule as stored in the graph: json-rules-engine's shape plus a doc line. */
export type GraphRule = RuleProperties & { name: string; doc?: string };

export interface RuleGraph {
  apiVersion: typeof GRAPH_VERSION;
  kind: 'RuleGraph';
  policy: string;
  origin: PolicySpec['origin'];
  spec: PolicySpec; // the data the facts are derived from (windows, selectors, settings)
  /** Every window any rule tests, by fact id (`window:<id>`). */
  windows: Record<string, WindowSpec>;
  /** Label keys the node rules' selectors read; only these are passed as node facts. */
  labelKeys: string[];
  poolRules: GraphRule[];
  nodeRules: GraphRule[];
}

const eq = (fact: string, value: unknown) => ({ fact, operator: 'equal', value });

/** The graph's id of a maintenance window's `i`-th window (its fact is `window:<id>`). */
const maintenanceWindowId = (w: PolicySpec['maintenanceWindows'][number], i: number): string => `${w.id}#${i}`;

function budgetRules(b: BudgetSpec): GraphRule[] {
  const params = {
    budget: b.id,
    reasons: b.reasons,
    nodes: b.nodes,
    ...(b.perSeconds !== undefined && { per: b.perSeconds }),
  };
  const open: TopLevelCondition = { all: b.window ? [eq(`window:${b.id}`, true)] : [] };
  const rules: GraphRule[] = [
    {
      name: `budget:${b.id}`,
      conditions: open,
      event: { type: 'budget', params: { ...params, cap: 'quantity' } },
      doc:
        b.mode === 'allow'
          ? 'allow window open: the quantity applies'
          : b.perSeconds !== undefined
            ? 'rate budget active: the quantity less the disruptions started within `per` seconds applies'
            : 'budget active: the quantity applies (inactive budgets are ignored)',
    },
  ];
  if (b.mode === 'allow' && b.window) {
    // Outside an allow window nothing may be disrupted for its reasons (inactive deny budgets, by contrast, are
    // ignored).
    rules.push({
      name: `budget:${b.id}:closed`,
      conditions: { all: [eq(`window:${b.id}`, false)] },
      event: { type: 'budget', params: { ...params, cap: 'zero' } },
      doc: 'allow window closed: none allowed',
    });
  }
  return rules;
}

function freezeRule(f: FreezeSpec): GraphRule {
  return {
    name: `freeze:${f.id}`,
    conditions: {
      all: [
        { fact: 'now', operator: 'greaterThanInclusive', value: f.range.fromMs },
        { fact: 'now', operator: 'lessThan', value: f.range.toMs },
      ],
    },
    event: { type: 'freeze', params: { freeze: f.id, name: f.name ?? f.id, reasons: f.reasons } },
    doc: 'one-off freeze: the listed reasons are blocked inside [from, to)',
  };
}

function maintenanceRule(w: MaintenanceWindowSpec): GraphRule {
  const reasons: Reason[] = w.reasons ?? [...REASONS];
  const when: TopLevelCondition[] = w.windows.length
    ? [{ any: w.windows.map((_, i) => eq(`window:${maintenanceWindowId(w, i)}`, true)) }]
    : [];
  return {
    name: `maintenance:${w.name}`,
    conditions: { all: [{ fact: 'nodeLabels', operator: 'matchesSelector', value: w.nodeSelector }, ...when] as never },
    event: {
      type: 'block',
      params: {
        order: 120,
        code: 'MaintenanceWindow',
        message: `maintenance window ${w.name} blocks ${reasons.join(', ')} on this node`,
        reasons,
      },
    },
    doc: 'KARPENTER.md#maintenance-windows-proposal: an active maintenance window blocks its reasons on matching nodes; every window must allow (AND)',
  };
}

/**
 * The ids of the graph's windows that belong to maintenance windows (the others belong to
 * budgets). It decides what a window that cannot be evaluated does: a budget's fails the pool
 * closed, a maintenance window's blocks its nodes.
 */
export function maintenanceWindowIds(spec: PolicySpec): ReadonlySet<string> {
  return new Set(spec.maintenanceWindows.flatMap((w) => w.windows.map((_, i) => maintenanceWindowId(w, i))));
}

function windowsOf(spec: PolicySpec): Record<string, WindowSpec> {
  const out: Record<string, WindowSpec> = {};
  for (const b of spec.budgets) if (b.window) out[b.id] = b.window;
  for (const w of spec.maintenanceWindows)
    w.windows.forEach((win, i) => {
      out[maintenanceWindowId(w, i)] = win;
    });
  return out;
}

export function compile(spec: PolicySpec): RuleGraph {
  const poolRules: GraphRule[] = [
    {
      name: 'fail-closed',
      conditions: { all: [{ fact: 'budgetErrors', operator: 'greaterThan', value: 0 }] },
      event: { type: 'fail-closed' },
      doc: 'Karpenter MustGetAllowedDisruptions: any invalid budget makes every reason 0 for the NodePool',
    },
    ...spec.budgets.flatMap(budgetRules),
    ...spec.freezes.map(freezeRule),
  ];
  const nodeRules: GraphRule[] = [...(builtin.rules as GraphRule[]), ...spec.maintenanceWindows.map(maintenanceRule)];
  const labelKeys = [...new Set(spec.maintenanceWindows.flatMap((w) => w.nodeSelector.map((r) => r.key)))].sort();
  return {
    apiVersion: GRAPH_VERSION,
    kind: 'RuleGraph',
    policy: spec.name,
    origin: spec.origin,
    spec,
    windows: windowsOf(spec),
    labelKeys,
    poolRules,
    nodeRules,
  };
}
