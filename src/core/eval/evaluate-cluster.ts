// SPDX-License-Identifier: Apache-2.0
// evaluate: runs every governing policy's rule graph over the cluster at one instant and
// assembles `kpol eval`'s answer. Per instant: one pool-rule run per policy, one node-rule run
// per distinct combination of decision facts (memoised), and one linear pass over bound pods.
import { allowanceFor } from '../../../rules/budgets.js';
import { compile } from '../../../rules/compile.js';
import { GraphEngine, type FiredEvent } from '../../../rules/engine.js';
import type { PoolFacts } from '../../../rules/facts.js';
import { basePolicy, type PolicySpec, type WindowSpec } from '../../../rules/model.js';
import type { NodePool, PodDisruptionBudget } from '../cluster/types.js';
import { type ClusterIndex, type StateNode } from '../cluster/state.js';
import {
  NO_DISRUPTION_STATE,
  NodeFactDeriver,
  preparedKeyOf,
  type DisruptionState,
  type NodeInstant,
  type PreparedNode,
} from '../facts/node-facts.js';
import { PodWindowMatcher, type PodWarning, type WindowState } from '../facts/pod-windows.js';
import { pauseFacts, pausesOf, pausesPool, type Pause } from '../facts/pauses.js';
import { bucketCount, disruptionReason } from './disruption-reasons.js';
import { EvaluationSpan, stateKey } from './evaluation-span.js';
import { NodeResultCache } from './node-result-cache.js';
import { nodeRow, PreparedNodeCache, type NodeRow } from './prepared-nodes.js';
import { alignedPositions, changedPositions, type Alignment } from './changed-nodes.js';
import { DueNodes } from './due-nodes.js';
import { MachinePlaces } from './machine-places.js';
import { withChanged, withMembers } from './verdict-record.js';
import { Combinations, DecisionKeys, type Memoised } from './fact-combinations.js';
import type { FactValidity } from '../facts/fact-validity.js';
import type { EvalOutput, NodeResult, PoolResult } from './output.js';
import { resolvePolicies, type Governed } from './resolve-policies.js';
import { counterOf, hasRateBudgets, rateKey, rateStartsOf, rateUses } from './rate-use.js';
import type { PoolStarts } from '../cluster/disruption-starts.js';
import { ownRecord } from '../cluster/own-keys.js';
import { countScopes, scopeHolds } from './budget-scopes.js';
import {
  CHANGED_LIMIT,
  MAX_CARRIED_ANSWERS,
  copyOfState,
  countIn,
  podTextsOf,
  sameInputs,
  sameShare,
  shareOf,
  stateChanges,
  type PoolCount,
  sameObjects,
  sameResult,
  type ChangedOnlyInputs,
  type LastPass,
} from './last-pass.js';
import { atText, inReasonOrder, nodeResult, pausedView, reasonsInScope } from './result-records.js';
import { pauseKey, poolWindowKey, windowFacts, type WindowFacts } from './window-facts.js';

export { reasonsInScope } from './result-records.js';

/** The names of the rows with a Node, in order: the keys of an evaluation's node record. */
function namesOf(rows: readonly NodeRow[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; i++) if (rows[i].sn.node !== undefined) out.push(rows[i].name);
  return out;
}

const sameElements = (a: readonly object[], b: readonly object[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** The policy a node falls back to when its NodePool is unknown: built-in rules only. */
export const ORPHAN: PolicySpec = basePolicy('(no nodepool)', 'karpenter', { kind: 'names', names: [] });

/** Compiled engines are kept per policy object across instants (the simulation re-evaluates every tick). */
export class Evaluator {
  private readonly engines = new WeakMap<PolicySpec, GraphEngine>();
  /** Every engine built so far, for rule coverage. */
  readonly built: GraphEngine[] = [];
  private readonly matchers = new WeakMap<PolicySpec, PodWindowMatcher>();
  /** Node verdicts reused across evaluations while their inputs hold (node-result-cache.ts). */
  private readonly verdicts = new NodeResultCache();
  /** Each node's derivation up to the clock, kept across evaluations while its inputs hold (prepared-nodes.ts). */
  private readonly preparedNodes = new PreparedNodeCache();
  /** Prepared nodes' decision keys per engine, for node-rule answers per combination (fact-combinations.ts). */
  private readonly decisionKeys = new WeakMap<GraphEngine, DecisionKeys>();
  private pdbs: readonly object[] = [];
  private pdbEpoch = 0;
  private pdbKey = '';
  /** The last whole evaluation and how long it holds (evaluation-span.ts). */
  private span: EvaluationSpan | undefined;
  /** The pauses of the last evaluated cluster (src/core/facts/pauses.ts), read once per ConfigMap list. */
  private pauseList: { from: readonly object[]; pauses: Pause[] } = { from: [], pauses: [] };
  /**
   * Node verdicts derived (cache misses) and reused, whole evaluations reused, nodes prepared (prepared-nodes.ts
   * misses) and node-rule answers shared with a node of the same combination, for tests of the caches and benchmarks.
   */
  readonly nodeStats = {
    derived: 0,
    reused: 0,
    evaluationsReused: 0,
    prepared: 0,
    shared: 0,
    /** Evaluations made from the last one by deriving only the changed nodes (changedOnly). */
    evaluationsIncremental: 0,
  };
  /**
   * Keep each node's prepared facts across evaluations (prepared-nodes.ts), so that a node derived
   * again reads only its pods that move with time. Switched off only to measure it and, in tests,
   * to compare with deriving every node from all its pods.
   */
  prepared = true;
  /**
   * Derive only the nodes whose objects changed since the last evaluation while nothing else it
   * read moved (changedOnly); off, every evaluation walks every node through the verdict cache.
   * Switched off only to measure it and, in tests, to compare with the whole pass.
   */
  incremental = true;
  /** The last resolvePolicies answer, with what it was made from (resolve). */
  private resolved: Resolved | undefined;
  /** The last evaluation, for the next one to start from (changedOnly). */
  private last: LastPass | undefined;

  /**
   * @param reuse keep node verdicts across evaluations. Sound when objects are never mutated in
   * place (the cluster stores freeze them); switched off only to measure what the cache saves.
   */
  constructor(
    public reuse = true,
    /**
     * Where pauses count: a controller honours only those in its own namespace, as it reads its
     * policies (a ConfigMap elsewhere must not stop its disruptions); undefined (`kpol eval` on a
     * snapshot) reads every namespace.
     */
    private readonly pauseNamespace?: string,
  ) {}

  private matcherFor(policy: PolicySpec): PodWindowMatcher {
    let m = this.matchers.get(policy);
    if (!m) {
      m = new PodWindowMatcher(policy);
      this.matchers.set(policy, m);
    }
    return m;
  }

  private decisionKeysFor(engine: GraphEngine): DecisionKeys {
    let k = this.decisionKeys.get(engine);
    if (!k) this.decisionKeys.set(engine, (k = new DecisionKeys(engine)));
    return k;
  }

  engineFor(policy: PolicySpec): GraphEngine {
    let e = this.engines.get(policy);
    if (!e) {
      e = new GraphEngine(compile(policy));
      this.engines.set(policy, e);
      this.built.push(e);
    }
    return e;
  }

  /**
   * The budget, freeze and pause events of a policy's pool rules for one of its NodePools at an
   * instant (govern mode asks ahead of now, too); the pauses are those of the last evaluation.
   */
  poolEvents(policy: PolicySpec, nowMs: number, pool?: string): Promise<FiredEvent[]> {
    const engine = this.engineFor(policy);
    const paused = pool === undefined ? {} : pauseFacts(this.pauseList.pauses, pool);
    return this.runPool(engine, windowFacts(engine, nowMs), nowMs, paused);
  }

  /** Which policy governs each NodePool, kept while the NodePool list and the policies are the same. */
  private resolve(pools: readonly NodePool[], policies: readonly PolicySpec[]): Resolved {
    const kept = this.resolved;
    if (kept?.pools === pools && kept.policies === policies) return kept;
    const { byPool, warnings } = resolvePolicies(pools, policies);
    const governing = new Set([...byPool.values()].map((g) => g.policy));
    const r: Resolved = {
      pools,
      policies,
      byPool,
      warnings,
      governing,
      policyOfPool: new Map([...byPool].map(([pool, g]) => [pool, g.policy])),
      rated: [...governing].some(hasRateBudgets),
    };
    this.resolved = r;
    return r;
  }

  /** The pauses among the cluster's ConfigMaps (kept while the list is the same). */
  pausesIn(index: ClusterIndex): readonly Pause[] {
    const from = index.snapshot.configMaps;
    if (!sameElements(this.pauseList.from, from)) {
      const ns = this.pauseNamespace;
      const here = ns === undefined ? from : from.filter((cm) => (cm.metadata.namespace ?? 'default') === ns);
      this.pauseList = { from, pauses: pausesOf(here) };
    }
    return this.pauseList.pauses;
  }

  private runPool(
    engine: GraphEngine,
    { windows, errors }: WindowFacts,
    nowMs: number,
    paused: Partial<PoolFacts> = {},
  ): Promise<FiredEvent[]> {
    return engine.runPool({ now: nowMs, budgetErrors: errors.length, ...windows, ...paused } as PoolFacts);
  }

  // eslint-disable-next-line complexity -- the evaluation's stages in order; split, they would pass a dozen locals
  async evaluate(
    index: ClusterIndex,
    policies: readonly PolicySpec[],
    nowMs: number,
    state: DisruptionState = NO_DISRUPTION_STATE,
  ): Promise<EvalOutput> {
    const resolved = this.resolve(index.snapshot.nodePools, policies);
    const { byPool, governing, policyOfPool } = resolved;
    const warnings = [...resolved.warnings];
    const pauses = this.pausesIn(index);
    // Each policy's window facts at this instant, computed once: the reuse check and the pool rules both read them.
    const windowsByPolicy = new Map<PolicySpec, WindowFacts>();
    const windowsOf = (policy: PolicySpec): WindowFacts => {
      let w = windowsByPolicy.get(policy);
      if (!w) windowsByPolicy.set(policy, (w = windowFacts(this.engineFor(policy), nowMs)));
      return w;
    };
    const stateNow = this.reuse ? stateKey(state) : undefined;
    // Rate budgets read the pools' disruption starts, which leave their windows as time passes.
    const rateStarts = resolved.rated ? rateStartsOf(index, policyOfPool, nowMs) : new Map<string, PoolStarts>();
    const poolWindows =
      stateNow === undefined
        ? ''
        : poolWindowKey(governing, nowMs, windowsOf, (p) => this.engineFor(p)) +
          pauseKey(pauses, nowMs) +
          rateKey(rateStarts, policyOfPool, nowMs);
    const kept = this.span;
    if (stateNow !== undefined && kept?.holds(index, policies, stateNow, poolWindows, nowMs)) {
      this.nodeStats.evaluationsReused++;
      const previous = kept.output!;
      return { ...previous, at: atText(nowMs), decisions: [], warnings: [...previous.warnings] };
    }
    if (!sameElements(this.pdbs, index.snapshot.pdbs)) {
      this.pdbs = index.snapshot.pdbs;
      const key = pdbVerdictKey(index.snapshot.pdbs);
      if (key !== this.pdbKey) this.pdbEpoch++;
      this.pdbKey = key;
    }
    const pdbEpoch = this.pdbEpoch;
    const last = this.last;
    this.last = undefined;
    if (last !== undefined && stateNow !== undefined && this.incremental && this.prepared) {
      const at = {
        index,
        policies,
        nowMs,
        state,
        stateNow,
        poolWindows,
        pauses,
        pdbEpoch,
        byPool,
        rateStarts,
        windowsOf,
      };
      const output = await this.changedOnly(last, at, warnings);
      if (output) return output;
    }
    const span = stateNow === undefined ? undefined : new EvaluationSpan(index, policies, stateNow, poolWindows);
    const pass: NodePass = { index, nowMs, state, pdbEpoch, span, sink: { warnings: [] } };
    const perPolicy = new Map<PolicySpec, PolicyPass>();
    const prepare = (policy: PolicySpec): PolicyPass => {
      let p = perPolicy.get(policy);
      if (!p) perPolicy.set(policy, (p = this.policyPass(policy, pass, windowsOf(policy))));
      return p;
    };

    const counts = new Map<string, PoolCount>();
    const counted: { sn: (typeof index.stateNodes)[number]; pool: string; disrupting: boolean }[] = [];
    const inFlight = state.reasons; // a getter on the reconciler's state: read once
    // The nodes as their pools count them, kept per index on the fast path (prepared-nodes.ts).
    const rows = this.prepared ? this.preparedNodes.rowsOf(index) : index.stateNodes.map(nodeRow);
    for (const row of rows) {
      if (!row.counted) continue;
      const { sn } = row;
      const pool = row.pool!;
      const c = counts.get(pool) ?? { nodes: 0, disrupting: 0, byReason: {} };
      c.nodes++;
      const disrupting = row.disrupting || (sn.providerID !== undefined && state.marked.has(sn.providerID));
      if (disrupting) {
        c.disrupting++;
        const r = disruptionReason(sn, inFlight) ?? 'unknown';
        c.byReason[r] = (c.byReason[r] ?? 0) + 1;
      }
      counts.set(pool, c);
      counted.push({ sn, pool, disrupting });
    }

    // Keyed by object names from the snapshot: without a prototype, so that a NodePool or Node
    // named `__proto__` or `constructor` is an entry like any other (src/core/cluster/own-keys.ts).
    const nodePools = ownRecord<PoolResult>();
    for (const np of index.snapshot.nodePools) {
      const name = np.metadata.name;
      const governed = byPool.get(name)!;
      const at = { nowMs, pauses, windows: windowsOf(governed.policy), starts: rateStarts.get(name) };
      nodePools[name] = await this.poolResult(name, governed, prepare(governed.policy), counts.get(name), at);
    }

    const nodes = ownRecord<NodeResult>();
    // Each node's pod warnings by its place, and when its facts next move with time, kept for
    // an evaluation of only the changed nodes.
    const warned: (readonly PodWarning[] | undefined)[] = new Array(rows.length);
    const due = span && this.prepared ? new DueNodes() : undefined;
    const podWarnings = new Map<string, PodWarning>();
    if (this.reuse) this.verdicts.beginPass();
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (!row.sn.node) continue;
      const policy = (row.pool !== undefined && byPool.get(row.pool)?.policy) || ORPHAN;
      const p = perPolicy.get(policy) ?? prepare(policy);
      // Awaiting only a node whose rule graph runs: an await per node is measurable at 5,000 nodes.
      let v = this.keptVerdict(row, policy, p, pass) ?? this.deriveVerdict(row, policy, p, pass);
      if (v instanceof Promise) v = await v;
      nodes[row.sn.name] = v.result;
      due?.push(v.validity.until, i);
      if (v.warnings.length > 0) {
        warned[i] = v.warnings;
        for (const w of v.warnings) podWarnings.set(`${w.pod}\u0000${w.message}`, w);
      }
    }
    if (this.reuse) this.verdicts.endPass();

    // Cluster and selector budgets (issue 15): counted over the node verdicts just made.
    const withScopes = [...governing].some((p) => p.scopedBudgets?.length);
    const scopes = withScopes
      ? countScopes({
          policyOf: policyOfPool,
          eventsOf: (policy) => perPolicy.get(policy)?.events ?? [],
          reasonsOf: reasonsInScope,
          counted,
          nodes,
        })
      : undefined;
    if (scopes) scopeHolds(nodes, scopes);

    const podTexts = [...podWarnings.values()].map((w) => `Pod ${w.pod}: ${w.message}`);
    warnings.push(...podTexts);
    const output: EvalOutput = {
      at: atText(nowMs),
      nodePools,
      nodes,
      ...(scopes && { scopes }),
      decisions: [], // filled by src/control/reconciler/plan.ts where a caller wants them (eval, fixtures)
      warnings,
    };
    if (span) span.output = { ...output, warnings: [...warnings] };
    this.span = span;
    if (span && due && !scopes)
      this.last = {
        index,
        policies,
        stateNow: stateNow!,
        poolWindows,
        pdbEpoch,
        pauses,
        nowMs,
        rated: rateStarts.size > 0,
        span,
        output: span.output!,
        warned,
        podTexts,
        due,
        combinations: new Map([...perPolicy].map(([policy, p]) => [policy, p.combinations])),
        counts,
        inFlight: copyOfState(state, inFlight),
      };
    return output;
  }

  /** A NodePool's result at an instant from its budget count, its policy's pool rules and the pauses naming it. */
  private async poolResult(
    name: string,
    governed: Governed,
    p: PolicyPass,
    count: PoolCount | undefined,
    at: { nowMs: number; pauses: readonly Pause[]; windows: WindowFacts; starts: PoolStarts | undefined },
  ): Promise<PoolResult> {
    const { nowMs, starts } = at;
    p.events ??= await this.runPool(p.engine, at.windows, nowMs);
    const { nodes, disrupting, byReason } = count ?? { nodes: 0, disrupting: 0, byReason: {} };
    const buckets = governed.policy.budgets.some((b) => b.perReason);
    const mine = at.pauses.filter((x) => pausesPool(x, name));
    // A pool no pause names reads the policy's one pool-rule run; a paused pool runs them with its pause facts.
    const events = mine.length ? await this.runPool(p.engine, at.windows, nowMs, pauseFacts(mine, name)) : p.events;
    const result: PoolResult = {
      policy: governed.policy.origin === 'kpol' ? governed.policy.name : `nodepool/${name}`,
      nodes,
      disrupting,
      ...(buckets && { disruptingByReason: inReasonOrder(byReason), boundByBucket: [] }),
      budgets: {},
      allowed: {},
      errors: [...governed.problems, ...p.errors, ...mine.flatMap((x) => (x.error ? [x.error] : []))],
      ...pausedView(mine, events, nowMs),
    };
    const started = counterOf(starts, nowMs);
    for (const reason of reasonsInScope(governed.policy)) {
      const a = allowanceFor(events, reason, {
        nodes,
        disrupting,
        disruptingFor: bucketCount(byReason, reason),
        started,
      });
      result.budgets[reason] = a.budget;
      result.allowed[reason] = a.allowed;
      if (a.bucket) (result.boundByBucket ??= []).push(reason);
    }
    if (starts) {
      const rates = rateUses(governed.policy, p.events, starts, nodes, nowMs);
      if (rates.length) result.rates = rates;
      if ('error' in starts) result.errors.push(starts.error);
    }
    return result;
  }

  /** A policy's part of one evaluation: its engine, window facts, fact deriver and rule answers per combination. */
  private policyPass(policy: PolicySpec, pass: NodePass, w: WindowFacts, from?: Combinations): PolicyPass {
    const engine = this.engineFor(policy);
    const { windows, errors } = w;
    let windowKey = '';
    for (const [id, on] of Object.entries(windows)) if (id.startsWith('window:w:')) windowKey += on ? '1' : '0';
    const warn = (x: PodWarning) => pass.sink.warnings.push(x);
    const deriver = new NodeFactDeriver(pass.index, engine.graph, pass.state, warn, this.matcherFor(policy));
    return {
      engine,
      windows,
      windowKey,
      errors,
      deriver,
      combinations: new Combinations(this.decisionKeysFor(engine), engine, deriver, windows, from),
      prepareNode: (sn: StateNode) => {
        this.nodeStats.prepared++;
        return deriver.prepare(sn);
      },
      preparedKey: preparedKeyOf(engine.graph),
      windowState: (spec, at) => deriver.windowState(spec, at),
    };
  }

  /** The node's kept verdict (node-result-cache.ts), when its inputs are unchanged and its facts still hold. */
  private keptVerdict(row: NodeRow, policy: PolicySpec, p: PolicyPass, pass: NodePass): NodeVerdict | undefined {
    if (!this.reuse) return undefined;
    const inputs = { policy, pdbEpoch: pass.pdbEpoch, windowKey: p.windowKey, state: pass.state };
    const cached = this.verdicts.get(pass.index, row.sn, inputs, pass.nowMs, p.windowState);
    if (cached === undefined) return undefined;
    pass.span?.add(cached.validity, p.deriver.windowStateOf);
    this.nodeStats.reused++;
    return cached;
  }

  /**
   * The node's verdict derived at the pass's instant, kept for the next evaluations; a promise
   * only when its rule graph must run (no node of its combination was answered yet). Without
   * closures per node: at 5,000 nodes their allocation shows.
   */
  private deriveVerdict(
    row: NodeRow,
    policy: PolicySpec,
    p: PolicyPass,
    pass: NodePass,
  ): NodeVerdict | Promise<NodeVerdict> {
    const { sn } = row;
    this.nodeStats.derived++;
    const warnings: PodWarning[] = (pass.sink.warnings = []);
    if (!this.prepared) {
      const derived = p.deriver.derive(sn, pass.nowMs, p.windows);
      pass.span?.add(derived.validity, p.deriver.windowStateOf);
      return p.engine.runNode(derived.facts).then((events) => {
        const result = nodeResult(events, derived.details, policy, row.pool);
        return this.keep(row, policy, p, pass, { result, warnings, validity: derived.validity });
      });
    }
    // The node's prepared facts and its facts at this instant; the rule graph runs, and its
    // answer becomes a verdict, once per combination of facts and the details messages name.
    const memoised = this.preparedNodes.get(row, policy, p.preparedKey, pass.pdbEpoch, p.prepareNode);
    const now = p.deriver.instant(memoised.prepared, sn, pass.nowMs);
    pass.span?.add(now.validity, p.deriver.windowStateOf);
    const key = p.combinations.key(memoised, now.facts);
    const known = p.combinations.known(key);
    if (known) return this.combinationVerdict(row, policy, p, pass, memoised, now, key, known, warnings);
    return p.combinations
      .answer(key, memoised.prepared, now.facts)
      .then((events) => this.combinationVerdict(row, policy, p, pass, memoised, now, key, events, warnings));
  }

  /** A derived node's verdict from its combination's answer: one result per combination and details, shared. */
  private combinationVerdict(
    row: NodeRow,
    policy: PolicySpec,
    p: PolicyPass,
    pass: NodePass,
    memoised: Memoised,
    now: NodeInstant,
    key: number,
    events: readonly FiredEvent[],
    warnings: PodWarning[],
  ): NodeVerdict {
    const detailsKey = p.combinations.detailsKey(memoised, events, now.details);
    let result = p.combinations.result(key, detailsKey);
    if (result) this.nodeStats.shared++;
    else {
      result = nodeResult(events, now.details, policy, row.pool);
      p.combinations.keep(key, detailsKey, result);
    }
    return this.keep(row, policy, p, pass, { result, warnings, validity: now.validity });
  }

  /** A derived verdict, kept in the verdict cache for the next evaluations. */
  private keep(row: NodeRow, policy: PolicySpec, p: PolicyPass, pass: NodePass, v: NodeVerdict): NodeVerdict {
    if (this.reuse) {
      const inputs = { policy, pdbEpoch: pass.pdbEpoch, windowKey: p.windowKey, state: pass.state };
      this.verdicts.set(pass.index, row.sn, inputs, v.validity, v);
    }
    return v;
  }

  /**
   * The evaluation at a later instant made from the last one by deriving only the nodes whose
   * StateNode changed or came (changed-nodes.ts), those whose facts moved with time since (their
   * thresholds passed, due-nodes.ts) and those the in-flight state changed for (last-pass.ts
   * stateChanges): undefined when anything else the last one read may have moved, and the caller
   * then evaluates every node. Everything else is compared here — the policies, every pool's
   * window, threshold and pause facts (the pool key), the PDBs' verdict epoch, the NodePools,
   * every window a node read — so every other node's verdict is the one a whole pass would give.
   * The pools' budget counts follow the nodes that changed, came, went or were marked: only the
   * pools whose count moved get their result made again, the others keep the last one. The rule
   * graphs still decide each node.
   */
  // eslint-disable-next-line complexity -- the stages of one evaluation from the last, in order
  private async changedOnly(
    last: LastPass,
    at: ChangedOnlyInputs,
    resolved: string[],
  ): Promise<EvalOutput | undefined> {
    const { index, nowMs, state } = at;
    const before = last.index;
    if (!sameInputs(last, at)) return undefined;
    // The machines in the same places with a few changed, else matched by name as some came or went.
    let align: Alignment | undefined;
    let changedAt = changedPositions(before.stateNodes, index.stateNodes, CHANGED_LIMIT);
    if (changedAt === undefined) {
      const [was, now] = [before.stateNodes, index.stateNodes];
      align = alignedPositions(was, now, CHANGED_LIMIT);
      if (align === undefined) return undefined;
      changedAt = align.changed;
    }
    // The in-flight state, and the machines whose flags or budget share it changed.
    const inFlight = state.reasons; // a getter on the reconciler's state: read once
    const flight = at.stateNow === last.stateNow ? last.inFlight : copyOfState(state, inFlight);
    const moved = flight === last.inFlight ? undefined : stateChanges(last.inFlight, flight);
    // Every node derived again pushes its next instant and the old one stays until it comes due:
    // past a few per node, a whole pass starts the queue afresh rather than let it grow for a month.
    if (last.due.size > 4 * index.stateNodes.length + 1024) return undefined;
    const oldRows = this.preparedNodes.rowsOf(before);
    // Every place kept from the last index moves to its place in this one.
    if (align !== undefined) last.due.renumber(align.after);
    // The nodes whose facts moved with time since, with the changed ones, each once and in order.
    const dueAt: number[] = [];
    last.due.takeDue(nowMs, dueAt);
    // The names that went (and did not come back elsewhere): their prepared facts and verdicts are dropped.
    const gone: string[] = [];
    if (align !== undefined) {
      const came = new Set(align.changed.map((j) => index.stateNodes[j].name));
      for (const i of align.gone) if (!came.has(oldRows[i].sn.name)) gone.push(oldRows[i].sn.name);
    }
    const rows =
      align === undefined
        ? this.preparedNodes.rowsAfter(index, before, changedAt)
        : this.preparedNodes.rowsAligned(index, before, align.before, gone);
    if (rows === undefined) return undefined;
    for (const name of gone) this.verdicts.forget(name);
    const stateAt = this.stateMoved(last, rows, index, moved, align, oldRows, changedAt);
    if (stateAt === undefined) return undefined;
    const extra = [...dueAt.filter((i) => i >= 0), ...stateAt];
    const positions = extra.length === 0 ? changedAt : [...new Set([...changedAt, ...extra])].sort((a, b) => a - b);
    if (positions.length > CHANGED_LIMIT) return undefined;
    let warned = last.warned;
    let warningsMoved = false;
    if (align !== undefined) {
      const from = align.before;
      warned = new Array<readonly PodWarning[] | undefined>(from.length);
      for (let j = 0; j < from.length; j++) warned[j] = from[j] < 0 ? undefined : last.warned[from[j]];
      for (const i of align.gone) if (last.warned[i] !== undefined) warningsMoved = true;
    }
    // The pools' counts: the machines that went taken away, the changed ones counted again.
    const counts = last.counts;
    const movedPools = new Set<string>();
    const recount = (share: ReturnType<typeof shareOf>, by: 1 | -1) => {
      if (share === undefined) return;
      countIn(counts, share, by);
      movedPools.add(share.pool);
    };
    if (align !== undefined)
      for (const i of align.gone) recount(shareOf(oldRows[i], last.inFlight.marked, last.inFlight.reasons), -1);
    const pass: NodePass = { index, nowMs, state, pdbEpoch: at.pdbEpoch, span: last.span, sink: { warnings: [] } };
    const perPolicy = new Map<PolicySpec, PolicyPass>();
    const passOf = (policy: PolicySpec): PolicyPass | undefined => {
      let p = perPolicy.get(policy);
      if (p === undefined) {
        const from = last.combinations.get(policy);
        if (from !== undefined && from.size > MAX_CARRIED_ANSWERS) return undefined;
        perPolicy.set(policy, (p = this.policyPass(policy, pass, at.windowsOf(policy), from)));
      }
      return p;
    };
    const changed: [string, NodeResult][] = [];
    // The record's names change when a Node came or went (not only a StateNode's objects).
    const goneNodes =
      align === undefined ? [] : align.gone.flatMap((i) => (oldRows[i].sn.node ? [oldRows[i].sn.name] : []));
    let namesMoved = goneNodes.length > 0;
    for (const i of positions) {
      const from = align === undefined ? i : align.before[i];
      const was = from < 0 ? undefined : oldRows[from];
      const row = rows[i];
      const { sn } = row;
      const wasShare = was && shareOf(was, last.inFlight.marked, last.inFlight.reasons);
      const share = shareOf(row, flight.marked, inFlight);
      if (!sameShare(wasShare, share)) {
        recount(wasShare, -1);
        recount(share, 1);
      }
      if (!was?.sn.node !== !sn.node) namesMoved = true;
      if (!sn.node) continue;
      const policy = (row.pool !== undefined && at.byPool.get(row.pool)?.policy) || ORPHAN;
      const p = passOf(policy);
      if (p === undefined) return undefined;
      let v = this.keptVerdict(row, policy, p, pass) ?? this.deriveVerdict(row, policy, p, pass);
      if (v instanceof Promise) v = await v;
      last.due.push(v.validity.until, i);
      if (v.warnings.length > 0 || warned[i] !== undefined) warningsMoved = true;
      warned[i] = v.warnings.length > 0 ? v.warnings : undefined;
      const previous = was?.sn.node ? last.output.nodes[sn.name] : undefined;
      // The same verdict for the same Node and NodeClaim: the last record stands for it, and so
      // do the views and events made from that record (verdict-digest.ts, blocked-events.ts).
      if (!was || !sameObjects(was.sn, sn) || !sameResult(previous, v.result)) changed.push([sn.name, v.result]);
    }
    // The pools whose count moved get their results made again; the others keep the last ones.
    let nodePools = last.output.nodePools;
    if (movedPools.size > 0) {
      nodePools = ownRecord<PoolResult>();
      for (const [name, kept] of Object.entries(last.output.nodePools)) {
        const governed = at.byPool.get(name);
        if (!movedPools.has(name) || governed === undefined) {
          nodePools[name] = kept;
          continue;
        }
        const p = passOf(governed.policy);
        if (p === undefined) return undefined;
        const w = { nowMs, pauses: at.pauses, windows: at.windowsOf(governed.policy), starts: at.rateStarts.get(name) };
        nodePools[name] = await this.poolResult(name, governed, p, counts.get(name), w);
      }
    }
    for (const [policy, p] of perPolicy) last.combinations.set(policy, p.combinations);
    // The last record with the changed verdicts laid over it, not a copy (verdict-record.ts); a
    // new record when Nodes came or went, in the order of the index as a whole pass makes it.
    const nodes = namesMoved
      ? withMembers(last.output.nodes, namesOf(rows), changed, goneNodes)
      : withChanged(last.output.nodes, changed);
    if (warningsMoved) last.podTexts = podTextsOf(warned);
    const output: EvalOutput = {
      at: atText(nowMs),
      nodePools,
      nodes,
      decisions: [],
      warnings: [...resolved, ...last.podTexts],
    };
    const kept = { ...output, warnings: [...output.warnings] };
    last.span.moveTo(index, kept, last.due.next(), at.stateNow);
    this.span = last.span;
    Object.assign(last, { index, nowMs, output: kept, warned, stateNow: at.stateNow, inFlight: flight });
    this.last = last;
    this.nodeStats.evaluationsIncremental++;
    return output;
  }

  /**
   * The places of the machines the in-flight state changed for (stateChanges), in `rows`: looked
   * up by providerID and name (machine-places.ts, kept in `last` and moved by the rows that
   * changed, came or went), else found by a walk over the rows; undefined past the limit.
   */
  private stateMoved(
    last: LastPass,
    rows: readonly NodeRow[],
    index: ClusterIndex,
    moved: { ids: ReadonlySet<string>; names: ReadonlySet<string> } | undefined,
    align: Alignment | undefined,
    oldRows: readonly NodeRow[],
    changedAt: readonly number[],
  ): number[] | undefined {
    if (last.places !== undefined) {
      const gone = align === undefined ? [] : align.gone.map((i) => oldRows[i]);
      const was = changedAt.flatMap((j) => {
        const i = align === undefined ? j : align.before[j];
        return i < 0 ? [] : [oldRows[i]];
      });
      last.places.move(
        [...gone, ...was],
        changedAt.map((j) => rows[j]),
      );
    }
    if (moved === undefined || (moved.ids.size === 0 && moved.names.size === 0)) return [];
    last.places ??= new MachinePlaces(rows);
    const found = last.places.placesOf(rows, index.joined, moved.ids, moved.names);
    if (found !== undefined) return found.length > CHANGED_LIMIT ? undefined : found;
    const out: number[] = [];
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if ((row.id !== undefined && moved.ids.has(row.id)) || moved.names.has(row.name)) out.push(i);
      if (out.length > CHANGED_LIMIT) return undefined;
    }
    return out;
  }
}

/** resolvePolicies' answer and what the evaluation reads of it, for a NodePool list and policies. */
interface Resolved {
  pools: readonly NodePool[];
  policies: readonly PolicySpec[];
  byPool: Map<string, Governed>;
  /** Pool-level warnings (overlapping selectors); copied by each evaluation, which adds its own. */
  warnings: readonly string[];
  governing: Set<PolicySpec>;
  policyOfPool: Map<string, PolicySpec>;
  /** Some governing policy has rate budgets: the pools' disruption starts are read. */
  rated: boolean;
}

/** What one evaluation passes to each node's verdict. */
interface NodePass {
  index: ClusterIndex;
  nowMs: number;
  state: DisruptionState;
  pdbEpoch: number;
  span: EvaluationSpan | undefined;
  /** The pod warnings of the node being derived: the derivers' warn appends to it. */
  sink: { warnings: PodWarning[] };
}

/** A policy's part of one evaluation (Evaluator.policyPass). */
interface PolicyPass {
  engine: GraphEngine;
  windows: Record<string, boolean>;
  windowKey: string;
  errors: string[];
  /** Its pool rules' events, run once per evaluation when a pool it governs is evaluated. */
  events?: FiredEvent[];
  deriver: NodeFactDeriver;
  combinations: Combinations;
  prepareNode: (sn: StateNode) => PreparedNode;
  /** What preparing a node reads of the policy (preparedKeyOf). */
  preparedKey: string;
  windowState: (spec: WindowSpec, nowMs: number) => WindowState;
}

interface NodeVerdict {
  result: NodeResult;
  warnings: readonly PodWarning[];
  /** How long its facts hold, its objects unchanged. */
  validity: FactValidity;
}

/**
 * What node verdicts read of the PodDisruptionBudgets (pdbBlock in src/core/cluster/state.ts): which
 * exist, whom they select, whether they allow no disruption, their unhealthy-pod policy. A PDB
 * whose allowance moves from 3 to 2 — every eviction elsewhere in a drain — changes no verdict.
 */
function pdbVerdictKey(pdbs: readonly PodDisruptionBudget[]): string {
  let key = '';
  for (const p of pdbs) {
    const blocking = (p.status?.disruptionsAllowed ?? 0) === 0;
    key += `${p.metadata.namespace}/${p.metadata.name}|${JSON.stringify(p.spec.selector)}|`;
    key += `${p.spec.unhealthyPodEvictionPolicy ?? ''}|${blocking}\n`;
  }
  return key;
}
