// SPDX-License-Identifier: Apache-2.0
// Runs one rule graph with json-rules-engine. An engine run costs ~0.2 ms, so node runs are
// memoised by the decision facts only (NODE_DECISION_FACTS, the selector label keys and the
// window facts): a 5,000-node cluster typically needs a few dozen runs per instant, not 5,000.
import { Engine, type RuleResult } from 'json-rules-engine';
import { maintenanceWindowIds, pauseFact, podProtectionFacts, type RuleGraph } from './compile.js';
import { NODE_DECISION_FACTS, type NodeFacts, type PoolFacts } from './facts.js';
import { REASONS } from './model.js';
import { registerOperators } from './operators.js';
import { decodeEvent, type FiredEvent } from './rule-events.js';

export type { FiredEvent } from './rule-events.js';

/** One rule's outcome with the fact values it saw: the material of `kpol explain`. */
export interface RuleTrace {
  rule: string;
  fired: boolean;
  event: string;
  conditions: { fact: string; operator: string; value: unknown; factValue: unknown; result: boolean }[];
}

function makeEngine(rules: RuleGraph['poolRules']): Engine {
  const engine = new Engine([], { allowUndefinedFacts: true, replaceFactsInEventParams: false });
  registerOperators(engine);
  for (const r of rules) {
    const { doc: _doc, ...props } = r;
    engine.addRule(props);
  }
  return engine;
}

function eventsOf(results: RuleResult[]): FiredEvent[] {
  return results.map((r) => decodeEvent(r.event!.type, (r.event!.params ?? {}) as Record<string, unknown>, r.name));
}

type Leaf = {
  fact?: string;
  operator?: string;
  value?: unknown;
  factResult?: unknown;
  result?: boolean;
  all?: Leaf[];
  any?: Leaf[];
  not?: Leaf;
};

function leaves(c: Leaf | undefined, out: RuleTrace['conditions']): RuleTrace['conditions'] {
  if (!c) return out;
  for (const sub of [...(c.all ?? []), ...(c.any ?? [])]) leaves(sub, out);
  if (c.not) leaves(c.not, out);
  if (c.fact !== undefined) {
    out.push({
      fact: c.fact,
      operator: c.operator ?? '',
      value: c.value,
      factValue: c.factResult,
      result: c.result === true,
    });
  }
  return out;
}

function traces(results: RuleResult[], fired: boolean): RuleTrace[] {
  return results.map((r) => ({
    rule: r.name,
    fired,
    event: r.event?.type ?? '',
    conditions: leaves(r.conditions as Leaf, []),
  }));
}

export class GraphEngine {
  readonly graph: RuleGraph;
  private readonly pool: Engine;
  private readonly node: Engine;
  private readonly nodeWindowFacts: string[];
  /** The graph's windows that belong to maintenance windows (the rest are budgets'). */
  readonly maintenanceWindows: ReadonlySet<string>;
  private readonly memo = new Map<string, Promise<FiredEvent[]>>();
  private readonly poolMemo = new Map<string, Promise<FiredEvent[]>>();
  /**
   * Freeze rules read `now` (and pause rules, while a pause fact is set); else pool results depend on window facts
   * alone.
   */
  private readonly poolReadsNow: boolean;
  /** Engine runs actually made (memo misses), for benchmarks and the README's scaling claim. */
  runs = 0;
  /** Names of the rules that have fired so far (`kpol test --coverage`). */
  readonly fired = new Set<string>();

  constructor(graph: RuleGraph) {
    this.graph = graph;
    this.pool = makeEngine(graph.poolRules);
    this.node = makeEngine(graph.nodeRules);
    this.poolReadsNow = graph.spec.freezes.length > 0;
    this.maintenanceWindows = maintenanceWindowIds(graph.spec);
    this.nodeWindowFacts = [
      ...[...this.maintenanceWindows].map((id) => `window:${id}`),
      ...podProtectionFacts(graph.spec),
    ];
  }

  runPool(facts: PoolFacts): Promise<FiredEvent[]> {
    let key = `${facts.budgetErrors}|`;
    let paused = false;
    for (const r of REASONS) {
      const until = facts[pauseFact(r)] ?? 0;
      if (until > 0) paused = true;
      key += `${until}|`;
    }
    // The pause rules compare their ends with `now`, as freeze rules compare their bounds.
    if (this.poolReadsNow || paused) key += facts.now;
    for (const id of Object.keys(this.graph.windows)) key += `|${facts[`window:${id}`]}`;
    return this.memoised(this.pool, this.poolMemo, 10_000, key, facts);
  }

  /** One engine run per distinct key; a bounded memo is simply cleared when full. */
  private memoised(
    engine: Engine,
    memo: Map<string, Promise<FiredEvent[]>>,
    limit: number,
    key: string,
    facts: object,
  ): Promise<FiredEvent[]> {
    let hit = memo.get(key);
    if (!hit) {
      if (memo.size > limit) memo.clear();
      this.runs++;
      hit = engine.run({ ...facts }).then(({ results }) => {
        const events = eventsOf(results);
        for (const e of events) this.fired.add(e.rule);
        return events;
      });
      memo.set(key, hit);
    }
    return hit;
  }

  /** The memo key: only facts that can change a decision. */
  nodeKey(facts: NodeFacts): string {
    let key = '';
    for (const k of NODE_DECISION_FACTS) key += `${facts[k]}|`;
    for (const k of this.graph.labelKeys) key += `${JSON.stringify(facts.nodeLabels[k] ?? null)}|`;
    for (const w of this.nodeWindowFacts) key += `${facts[w as `window:${string}`]}|`;
    return key;
  }

  runNode(facts: NodeFacts): Promise<FiredEvent[]> {
    return this.memoised(this.node, this.memo, 50_000, this.nodeKey(facts), facts);
  }

  async explainNode(facts: NodeFacts): Promise<RuleTrace[]> {
    const { results, failureResults } = await this.node.run({ ...facts });
    return [...traces(results, true), ...traces(failureResults, false)];
  }

  async explainPool(facts: PoolFacts): Promise<RuleTrace[]> {
    const { results, failureResults } = await this.pool.run({ ...facts });
    return [...traces(results, true), ...traces(failureResults, false)];
  }
}
