// SPDX-License-Identifier: Apache-2.0
// compile: a checked PolicySpec → a rule graph (plain, serialisable JSON for json-rules-engine).
// Pool rules decide which budgets and freezes are in force at an instant; node rules are the
// built-in candidate layer (rules/builtin/candidate-rules.json) plus the policy's maintenance
// windows. Custom operators are referenced by name only (rules/operators.ts registers them).
import type { RuleProperties, TopLevelCondition } from 'json-rules-engine';
import builtin from './builtin/candidate-rules.json' with { type: 'json' };
import type {
  BudgetSpec,
  FreezeSpec,
  LabelSelector,
  MaintenanceWindowSpec,
  PodWindowSpec,
  PolicySpec,
  Reason,
  ScopedBudgetSpec,
  WindowSpec,
} from './model.js';
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

/** A budget rule's event parameters; built key by key (no spreads: compile runs per policy on every load). */
function budgetParams(b: BudgetSpec, cap: 'quantity' | 'zero'): Record<string, unknown> {
  const params: Record<string, unknown> = { budget: b.id, reasons: b.reasons, nodes: b.nodes };
  // `perReason` and `per` only when set, so graphs without buckets or rates are unchanged
  if (b.perReason) params.perReason = true;
  if (b.perSeconds !== undefined) params.per = b.perSeconds;
  params.cap = cap;
  return params;
}

/**
 * What every policy's budget `id` (`b0`, `b1`, …) shares: its rule names and the conditions on its
 * window fact. Built once per id and shared by every graph, like the rules below that every graph
 * carries (graphs are read, never changed, once compiled); a policy has few budgets, so the ids are few.
 */
interface BudgetParts {
  name: string;
  closedName: string;
  always: TopLevelCondition;
  open: TopLevelCondition;
  closed: TopLevelCondition;
}
const budgetParts = new Map<string, BudgetParts>();
const MAX_BUDGET_PARTS = 1000;

function partsOf(id: string): BudgetParts {
  let parts = budgetParts.get(id);
  if (parts === undefined) {
    if (budgetParts.size >= MAX_BUDGET_PARTS) budgetParts.clear();
    parts = {
      name: `budget:${id}`,
      closedName: `budget:${id}:closed`,
      always: { all: [] },
      open: { all: [eq(`window:${id}`, true)] },
      closed: { all: [eq(`window:${id}`, false)] },
    };
    budgetParts.set(id, parts);
  }
  return parts;
}

function budgetRules(b: BudgetSpec): GraphRule[] {
  const parts = partsOf(b.id);
  const rules: GraphRule[] = [
    {
      name: parts.name,
      conditions: b.window ? parts.open : parts.always,
      event: { type: 'budget', params: budgetParams(b, 'quantity') },
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
      name: parts.closedName,
      conditions: parts.closed,
      event: { type: 'budget', params: budgetParams(b, 'zero') },
      doc: 'allow window closed: none allowed',
    });
  }
  return rules;
}

/**
 * A cluster or selector budget (issue 15): a pool rule says while it is in force, and for a
 * selector budget a node rule says which nodes it counts. The evaluator sums the scope's nodes
 * (src/core/eval/budget-scopes.ts); the numbers themselves are rules/budgets.ts's arithmetic.
 */
function scopedBudgetRules(b: ScopedBudgetSpec): { pool: GraphRule; node?: GraphRule } {
  const pool: GraphRule = {
    name: `scope:${b.id}`,
    conditions: { all: b.window ? [eq(`window:${b.id}`, true)] : [] },
    event: { type: 'scope-budget', params: { scope: b.id, reasons: b.reasons, nodes: b.nodes } },
    doc: 'a cluster or selector budget is active: its quantity caps the disruptions of its scope (inactive: ignored)',
  };
  if (b.scope.kind !== 'nodes') return { pool };
  const node: GraphRule = {
    name: `in-scope:${b.id}`,
    conditions: { all: [{ fact: 'nodeLabels', operator: 'matchesSelector', value: b.scope.selector }] as never },
    event: { type: 'in-scope', params: { scope: b.id } },
    doc: 'the node matches a selector budget: it counts towards that budget and needs room in it',
  };
  return { pool, node };
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

/**
 * A pause (`kpol pause`, stored in the cluster) of one reason: the `pause:<reason>` fact is the
 * latest end, in epoch ms, of the pauses naming this pool and reason (0 when none). Every graph
 * carries these rules, so a pause acts through the same budget arithmetic as a freeze, on pools
 * a policy governs and on pools evaluated from their own spec.disruption alike.
 */
function pauseRule(reason: Reason): GraphRule {
  return {
    name: `pause:${reason}`,
    conditions: { all: [{ fact: pauseFact(reason), operator: 'greaterThan', value: { fact: 'now' } }] as never },
    event: { type: 'pause', params: { reasons: [reason] } },
    doc: `kpol pause: ${reason} is allowed 0 on this pool until the pause ends`,
  };
}

/** The pool fact a pause of `reason` is read from. */
export const pauseFact = (reason: Reason): `pause:${Reason}` => `pause:${reason}`;

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
    doc:
      'KARPENTER.md#maintenance-windows-proposal: an active maintenance window blocks its ' +
      'reasons on matching nodes; every window must allow (AND)',
  };
}

/** The node facts (`pods:<id>`) of the policy's pod protections (`pods … never REASONS`). */
export function podProtectionFacts(spec: PolicySpec): string[] {
  return spec.podWindows.filter((p) => !p.window).map((p) => `pods:${p.id}`);
}

const GRACEFUL: readonly Reason[] = ['Empty', 'Underutilized'];

/**
 * A pod protection (`pods … never REASONS`): a pod window that is always in force for its reasons
 * only. Same code and precedence as a pod window (rules/README.md §4.5): it blocks the graceful
 * reasons outright and the eventual ones (Drifted, Expired) unless a termination grace period is set.
 */
function podProtectionRules(p: PodWindowSpec, spec: PolicySpec): GraphRule[] {
  const reasons = p.reasons ?? [];
  const label = p.source ? `${(spec.file ?? spec.name).split('/').pop()}:${p.source.start.line + 1}` : p.id;
  const message = `pod may not be disrupted for ${reasons.join(', ')} (Pod={protectPod_${p.id}}, Window=${label})`;
  const rule = (suffix: string, rs: Reason[], eventual: boolean): GraphRule => ({
    name: `pods:${p.id}${suffix}`,
    conditions: { all: [eq(`pods:${p.id}`, true), ...(eventual ? [eq('tgpSet', false)] : [])] },
    event: { type: 'block', params: { order: 105, code: 'PodDisruptionWindow', message, reasons: rs } },
    doc: eventual
      ? 'kpol pod protection: terminationGracePeriod overrides it for eventual methods'
      : 'kpol pod protection: a selected active pod holds its node for the listed reasons only',
  });
  const graceful = reasons.filter((r) => GRACEFUL.includes(r));
  const eventual = reasons.filter((r) => !GRACEFUL.includes(r));
  return [
    ...(graceful.length ? [rule('', graceful, false)] : []),
    ...(eventual.length ? [rule(':eventual', eventual, true)] : []),
  ];
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
  for (const b of spec.scopedBudgets ?? []) if (b.window) out[b.id] = b.window;
  for (const w of spec.maintenanceWindows)
    w.windows.forEach((win, i) => {
      out[maintenanceWindowId(w, i)] = win;
    });
  return out;
}

/**
 * Rules every graph carries unchanged, built once and shared like the built-in candidate rules
 * (graphs are read, never changed, once compiled).
 */
const FAIL_CLOSED: GraphRule = {
  name: 'fail-closed',
  conditions: { all: [{ fact: 'budgetErrors', operator: 'greaterThan', value: 0 }] },
  event: { type: 'fail-closed' },
  doc: 'Karpenter MustGetAllowedDisruptions: any invalid budget makes every reason 0 for the NodePool',
};
const PAUSE_RULES: readonly GraphRule[] = REASONS.map(pauseRule);

const BUILTIN_RULES = builtin.rules as GraphRule[];

function pushAll(into: GraphRule[], rules: readonly GraphRule[]): void {
  for (let i = 0; i < rules.length; i++) into.push(rules[i]!);
}

/** The selector's label keys not yet in `keys` (a policy reads few: an array, not a Set). */
function addKeys(keys: string[], selector: LabelSelector): void {
  for (let i = 0; i < selector.length; i++) if (!keys.includes(selector[i]!.key)) keys.push(selector[i]!.key);
}

// Plain loops and pushes, in the order the rules are listed: compile runs per policy on every load.
export function compile(spec: PolicySpec): RuleGraph {
  const poolRules: GraphRule[] = [FAIL_CLOSED];
  for (const b of spec.budgets) pushAll(poolRules, budgetRules(b));
  for (const f of spec.freezes) poolRules.push(freezeRule(f));
  pushAll(poolRules, PAUSE_RULES);
  const scoped = (spec.scopedBudgets ?? []).map(scopedBudgetRules);
  for (const r of scoped) poolRules.push(r.pool);
  const own: GraphRule[] = [];
  for (const w of spec.maintenanceWindows) own.push(maintenanceRule(w));
  for (const p of spec.podWindows) if (!p.window) pushAll(own, podProtectionRules(p, spec));
  for (const r of scoped) if (r.node) own.push(r.node);
  const nodeRules = BUILTIN_RULES.concat(own);
  const labelKeys: string[] = [];
  for (const w of spec.maintenanceWindows) addKeys(labelKeys, w.nodeSelector);
  for (const b of spec.scopedBudgets ?? []) if (b.scope.kind === 'nodes') addKeys(labelKeys, b.scope.selector);
  labelKeys.sort();
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
