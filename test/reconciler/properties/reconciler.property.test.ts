// SPDX-License-Identifier: Apache-2.0
// Property tests (issue 3, "Property tests (fast-check)"): random small clusters, workloads,
// .kpol policies and perturbations, run on the real Runtime for 2–4 simulated hours at 30 s
// steps, with four properties checked over every tick of the recorded trace:
//   1. disrupting nodes never exceed the allowance (KARPENTER.md#budget-counting);
//   2. no voluntary disruption takes a node held by a do-not-disrupt pod, a pod outside its
// disruption window, or a maintenance window (KARPENTER.md#candidates rows 10–11, KARPENTER.md#pod-predicates; kpol pod
// and
//      maintenance windows), except eventual reasons under a terminationGracePeriod;
//   3. a command's candidates are deleted only once every replacement it launched is
//      Initialized (KARPENTER.md#commands);
//   4. a gone NodeClaim's instance is gone, and nothing is orphaned at the end (KARPENTER.md#termination);
//   5. no start takes a pool past a rate budget `N per D` in any sliding window (issue 15).
// The simulations are shared between the four properties (same seed, memoized by case), so
// the file costs one set of runs. Each property also has a negative control: its checker fed
// a fabricated trace that violates it must report the violation.
//
// Reproduce a failure: KPOL_PROPERTY_SEED=<seed printed by fast-check> npx vitest run test/reconciler/properties
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { Node, NodeClaim, Pod } from '../../../src/core/cluster/types.js';
import type { PoolResult } from '../../../src/core/eval/output.js';
import {
  checkBuckets,
  checkBudgets,
  checkHolds,
  checkInstances,
  checkReplacementsFirst,
  checkRates,
  checkScopedBudgets,
} from './checks.js';
import { caseArb, RATED_CASE } from './generators.js';
import { runCase, type CommandObs, type NcObs, type StartObs, type TickObs, type Trace } from './harness.js';
import { renderPolicies, type CaseSpec, type PolicyGen } from './model.js';

const NUM_RUNS = Number(process.env.KPOL_PROPERTY_RUNS ?? 25);
const SEED = Number(process.env.KPOL_PROPERTY_SEED ?? Date.now() % 2 ** 31);
const TIMEOUT_MS = 240_000;

const traces = new Map<string, Promise<Trace>>();
const trace = (spec: CaseSpec) => {
  const key = JSON.stringify(spec);
  let t = traces.get(key);
  if (!t) traces.set(key, (t = runCase(spec)));
  return t;
};

const coverage = new Map<string, number>();
afterAll(() => {
  console.log(
    `reconciler properties: seed ${SEED}, ${NUM_RUNS} runs, commands ` +
      `started: ${JSON.stringify(Object.fromEntries(coverage))}`,
  );
});

function explain(spec: CaseSpec, violations: string[]): string {
  const policies = renderPolicies(spec.policies, spec.clusterBudget);
  const shown = violations.slice(0, 8).join('\n');
  const head = `${violations.length} violation(s):\n${shown}`;
  return `${head}\n--- policies ---\n${policies}--- case ---\n${JSON.stringify(spec)}`;
}

const property =
  (check: (t: Trace) => string[], count = false) =>
  async () => {
    await fc.assert(
      fc.asyncProperty(caseArb(), async (spec) => {
        const t = await trace(spec);
        if (count)
          for (const s of t.starts)
            coverage.set(
              `${s.command.method}/${s.command.reason}`,
              (coverage.get(`${s.command.method}/${s.command.reason}`) ?? 0) + 1,
            );
        const v = check(t);
        if (v.length) throw new Error(explain(spec, v));
      }),
      { seed: SEED, numRuns: NUM_RUNS, endOnFailure: true, examples: [[RATED_CASE]] },
    );
  };

describe('reconciler properties over random clusters, policies and perturbations', () => {
  it(
    '1. voluntarily disrupting nodes never exceed the allowance computed when their command started',
    async () => {
      await property(checkBudgets, true)();
      // The harness is live: some command started somewhere (guards against policies that never act).
      expect([...coverage.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    },
    TIMEOUT_MS,
  );
  it(
    '2. no voluntary disruption of a node held by do-not-disrupt, a pod window or a ' +
      'maintenance window (eventual + TGP excepted)',
    property(checkHolds),
    TIMEOUT_MS,
  );
  it(
    '3. candidates are deleted only after every replacement their command launched is initialized',
    property(checkReplacementsFirst),
    TIMEOUT_MS,
  );
  it("4. a gone NodeClaim's or Node's instance is gone; no instance is orphaned", property(checkInstances), TIMEOUT_MS);
  it(
    '5. nodes voluntarily disrupted inside a cluster or selector budget never exceed its count (issue 15)',
    async () => {
      let scoped = 0;
      await property((t) => {
        if (t.spec.clusterBudget || t.spec.policies.some((p) => p.zoneBudgets?.length)) scoped++;
        return checkScopedBudgets(t);
      })();
      // The generator does reach scoped budgets (guards against a generator that never writes one).
      if (NUM_RUNS >= 10) expect(scoped).toBeGreaterThan(0);
    },
    TIMEOUT_MS,
  );
  it(
    '6. no start ever exceeds a `per reason` bucket (issue 15), judged from the policy, not the evaluation',
    property(checkBuckets),
    TIMEOUT_MS,
  );
  it(
    '7. no tick starts more disruptions than a rate budget allows in any sliding window',
    async () => {
      await property(checkRates)();
      // Live: the fixed rated case drifts its six nodes, so its rate budget (1 per 10 min) both
      // admits starts and holds some back — more than one start, spread over several windows.
      const t = await trace(RATED_CASE);
      const drifts = t.starts.filter((st) => st.command.reason === 'Drifted').map((st) => st.t);
      expect(drifts.length).toBeGreaterThan(1);
      expect(Math.max(...drifts) - Math.min(...drifts)).toBeGreaterThanOrEqual(10 * 60_000);
    },
    TIMEOUT_MS,
  );
});

// ---- negative controls: fabricated traces that violate each property ----

const T = Date.parse('2026-11-23T12:00:00Z');
const nc = (name: string, o: Partial<NcObs> = {}): NcObs => ({
  name,
  pool: 'p0',
  providerID: `pid-${name}`,
  nodeName: `node-${name}`,
  initializedAt: T - 60_000,
  instanceTerminating: false,
  ...o,
});
const nodesOf = (ncs: NcObs[]) =>
  ncs.map((n) => ({ name: n.nodeName!, providerID: n.providerID, pool: n.pool, initialized: true, deleting: false }));
const tick = (i: number, ncs: NcObs[], o: Partial<TickObs> = {}): TickObs => ({
  i,
  t: T + i * 30_000,
  ncs,
  nodes: nodesOf(ncs),
  inflight: [],
  expired: [],
  interrupted: [],
  instances: ncs.map((n) => ({ providerID: n.providerID!, state: 'running' as const })),
  ...o,
});
const cmd = (id: string, names: string[], o: Partial<CommandObs> = {}): CommandObs => ({
  id,
  method: 'Drift',
  reason: 'Drifted',
  launched: [],
  candidates: names.map((n) => ({
    node: `node-${n}`,
    nodeClaim: n,
    providerID: `pid-${n}`,
    nodePool: 'p0',
    price: 0.1,
    capacityType: 'on-demand',
  })),
  ...o,
});
const poolResult = (allowed: number, disrupting = 0): PoolResult => ({
  policy: 'pol0',
  nodes: 4,
  disrupting,
  budgets: { Drifted: allowed + disrupting },
  allowed: { Drifted: allowed },
  errors: [],
});
const start = (i: number, c: CommandObs, o: Partial<StartObs> = {}): StartObs => ({
  i,
  t: T + i * 30_000,
  command: c,
  pools: { p0: poolResult(1) },
  verdicts: Object.fromEntries(
    c.candidates.map((x) => [x.node, { nodePool: 'p0', candidate: true, reasons: [c.reason], blocked: [] }]),
  ),
  pods: [],
  nodes: c.candidates.map(
    (x) =>
      ({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: x.node, labels: { 'topology.kubernetes.io/zone': 'us-west-2a' } },
        spec: {},
      }) as Node,
  ),
  nodeClaims: c.candidates.map(
    (x) =>
      ({ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: x.nodeClaim }, spec: {} }) as NodeClaim,
  ),
  ...o,
});
const pod = (name: string, node: string, annotations: Record<string, string> = {}, app = 'web'): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels: { app }, annotations },
  spec: { nodeName: node },
  status: { phase: 'Running', startTime: new Date(T - 10 * 60_000).toISOString() },
});
const policy = (o: Partial<PolicyGen> = {}): PolicyGen => ({
  name: 'pol0',
  pools: ['p0'],
  consolidate: 'underutilized',
  after: '0s',
  budgets: [],
  podWindows: [],
  maintenance: [],
  ...o,
});
const spec = (policies: PolicyGen[] = []): CaseSpec => ({
  pools: [{ name: 'p0', types: ['m5.large'] }],
  replicaSets: [],
  policies,
  perturbations: [],
  stepMs: 30_000,
  ticks: 3,
  quietTicks: 0,
});

describe('negative controls: each checker reports a fabricated violation', () => {
  it('5. buckets: a drift start while a drift holds a bucket of 1 is reported; other reasons do not count', () => {
    const a = nc('a'),
      b = nc('b'),
      c = nc('c');
    const bucketed = spec([
      policy({ budgets: [{ kind: 'budget', nodes: '1', reasons: ['Drifted'], perReason: true }] }),
    ]);
    const first = cmd('cmd-1', ['a']),
      second = cmd('cmd-2', ['b']);
    expect(
      checkBuckets({
        spec: bucketed,
        ticks: [tick(0, [a, b, c], { inflight: [first] }), tick(1, [a, b, c], { inflight: [first, second] })],
        starts: [start(0, first), start(1, second)],
      }),
    ).toEqual([
      'tick 1: cmd-2 (Drift/Drifted) took 1 nodes of pool p0 with 1 already disrupted for Drifted: ' +
        'bucket `budget 1 per reason` holds 1',
    ]);
    // a consolidation in flight does not use the Drifted bucket…
    const consolidation = cmd('cmd-1', ['a'], { method: 'SingleNodeConsolidation', reason: 'Underutilized' });
    expect(
      checkBuckets({
        spec: bucketed,
        ticks: [
          tick(0, [a, b, c], { inflight: [consolidation] }),
          tick(1, [a, b, c], { inflight: [consolidation, second] }),
        ],
        starts: [start(0, consolidation), start(1, second)],
      }),
    ).toEqual([]);
    // …while the same history under a shared budget is not the bucket checker's business
    expect(
      checkBuckets({
        spec: spec([policy({ budgets: [{ kind: 'budget', nodes: '1', reasons: ['Drifted'] }] })]),
        ticks: [tick(0, [a, b, c], { inflight: [first] }), tick(1, [a, b, c], { inflight: [first, second] })],
        starts: [start(0, first), start(1, second)],
      }),
    ).toEqual([]);
  });

  it(
    '1. budgets: a command taking 2 nodes with allowance 1, and a second start while 2 were ' +
      'already disrupting but counted as 0',
    () => {
      const a = nc('a'),
        b = nc('b'),
        c = nc('c');
      const two = cmd('cmd-1', ['a', 'b']);
      expect(checkBudgets({ ticks: [tick(0, [a, b, c], { inflight: [two] })], starts: [start(0, two)] })).toEqual([
        'tick 0: cmd-1 (Drift/Drifted) took 2 nodes of pool p0, allowed 1',
        'tick 0: 2 nodes voluntarily disrupted for p0/Drifted (a, b), the last start allowed 1',
      ]);
      const one = cmd('cmd-1', ['a']),
        next = cmd('cmd-2', ['c']);
      const deleting = nc('a', { deleting: T + 30_000 });
      const bad = checkBudgets({
        ticks: [tick(0, [a, b, c], { inflight: [one] }), tick(1, [deleting, b, c], { inflight: [next] })],
        starts: [start(0, one), start(1, next, { pools: { p0: poolResult(1, 0) } })],
      });
      expect(bad).toEqual([
        'tick 1: pool p0 had 1 nodes voluntarily disrupted before cmd-2 started, the evaluation counted 0 disrupting',
        'tick 1: 2 nodes voluntarily disrupted for p0/Drifted (a, c), the last start allowed 1',
      ]);
      // …and the same history within the allowance passes.
      expect(
        checkBudgets({
          ticks: [tick(0, [a, b, c], { inflight: [one] }), tick(1, [deleting, b, c], { inflight: [next] })],
          starts: [start(0, one), start(1, next, { pools: { p0: poolResult(1, 1) } })],
        }),
      ).toEqual([]);
    },
  );

  it(
    '2. holds: do-not-disrupt, a closed pod window, an annotation window and a maintenance ' +
      'window are all reported; TGP excepts only eventual reasons',
    () => {
      const c = cmd('cmd-1', ['a'], { method: 'SingleNodeConsolidation', reason: 'Underutilized' });
      const pods = [
        pod('dnd', 'node-a', { 'karpenter.sh/do-not-disrupt': 'true' }),
        pod('dnd-30m', 'node-a', { 'karpenter.sh/do-not-disrupt': '30m' }), // started 10 min ago: still active
        pod('dnd-5m', 'node-a', { 'karpenter.sh/do-not-disrupt': '5m' }), // elapsed: not a hold
        pod('ml', 'node-a', {}, 'ml'),
        pod('ann', 'node-a', { 'karpenter.sh/disruption-schedule': '0 3 * * *' }, 'ann'),
      ];
      const pol = policy({
        graceMin: 10,
        podWindows: [{ app: 'ml', mode: 'only', window: { minute: 0, hour: 2, durationMin: 60 } }],
        maintenance: [
          {
            name: 'mw0',
            reasons: ['Underutilized'],
            zones: ['us-west-2a'],
            window: { minute: 0, hour: 11, durationMin: 120 },
          },
        ],
      });
      const s = {
        ...spec([pol]),
        replicaSets: [{ name: 'ann', replicas: 1, cpu: '1', schedule: { minute: 0, hour: 3, durationMin: 60 } }],
      };
      const bad = checkHolds({ spec: s, starts: [start(0, c, { pods, pools: {} })] });
      expect(bad.map((x) => x.replace(/^.*took node-a /, ''))).toEqual([
        'with pod dnd under an active do-not-disrupt (true, started 2026-11-23T11:50:00.000Z)',
        'with pod dnd-30m under an active do-not-disrupt (30m, started 2026-11-23T11:50:00.000Z)',
        'with pod ml outside its disruption window (pod window only for app=ml)',
        'with pod ann outside its disruption window (disruption-schedule annotation)',
        'in us-west-2a during maintenance window mw0',
      ]);
      // Drift under a termination grace period: the pod holds are excepted, the maintenance window is not (README §3.4,
      // §3.10).
      const d = cmd('cmd-2', ['a']);
      const eventual = policy({ ...pol, maintenance: [{ ...pol.maintenance[0], reasons: ['Drifted'] }] });
      expect(
        checkHolds({ spec: { ...s, policies: [eventual] }, starts: [start(0, d, { pods })] }).map((x) =>
          x.replace(/^.*took node-a /, ''),
        ),
      ).toEqual(['in us-west-2a during maintenance window mw0']);
      // A candidate the rule graph did not list for the reason.
      expect(
        checkHolds({
          spec: spec(),
          starts: [
            start(0, d, {
              verdicts: {
                'node-a': {
                  nodePool: 'p0',
                  candidate: false,
                  reasons: [],
                  blocked: [{ code: 'DoNotDisruptPod', message: '' }],
                },
              },
            }),
          ],
        }),
      ).toEqual([
        'tick 0 2026-11-23T12:00:00.000Z: cmd-2 (Drift/Drifted) took node-a but the evaluation ' +
          'lists it for [] (blocked: DoNotDisruptPod)',
      ]);
    },
  );

  it(
    '3. replacements first: a candidate deleted before its replacement initialized is reported;' +
      ' forceful expiration is not',
    () => {
      const a = nc('a'),
        r = nc('r', { initializedAt: undefined });
      const c = cmd('cmd-1', ['a'], { launched: ['r'] });
      const st = start(0, c);
      const bad = checkReplacementsFirst({
        ticks: [tick(0, [a, r], { inflight: [c] }), tick(1, [nc('a', { deleting: T + 30_000 }), r])],
        starts: [st],
      });
      expect(bad).toEqual([
        'tick 1: cmd-1 candidate a deleting at 2026-11-23T12:00:30.000Z but replacement r is not initialized',
      ]);
      const late = nc('r', { initializedAt: T + 60_000 });
      expect(
        checkReplacementsFirst({
          ticks: [tick(0, [a, r], { inflight: [c] }), tick(1, [nc('a', { deleting: T + 30_000 }), late])],
          starts: [st],
        }),
      ).toEqual([
        'tick 1: cmd-1 candidate a deleting at 2026-11-23T12:00:30.000Z but replacement r ' +
          'initialized only at 2026-11-23T12:01:00.000Z',
      ]);
      expect(
        checkReplacementsFirst({
          ticks: [
            tick(0, [a, r], { inflight: [c] }),
            tick(1, [nc('a', { deleting: T + 30_000 }), r], { expired: ['a'] }),
          ],
          starts: [st],
        }),
      ).toEqual([]);
      const ready = nc('r', { initializedAt: T + 30_000 });
      expect(
        checkReplacementsFirst({
          ticks: [tick(0, [a, r], { inflight: [c] }), tick(1, [nc('a', { deleting: T + 30_000 }), ready])],
          starts: [st],
        }),
      ).toEqual([]);
    },
  );

  it('4. instances: a gone NodeClaim or Node with a live instance and an orphan at the end are reported', () => {
    const a = nc('a'),
      b = nc('b');
    const bad = checkInstances({
      ticks: [
        tick(0, [a, b]),
        tick(1, [b], {
          nodes: nodesOf([a, b]),
          instances: [
            { providerID: 'pid-a', state: 'terminating' },
            { providerID: 'pid-b', state: 'running' },
          ],
        }),
      ],
      final: {
        instances: [
          { providerID: 'pid-b', state: 'running' },
          { providerID: 'pid-x', state: 'pending' },
        ],
        orphans: ['pid-x'],
        ncs: [b],
      },
    });
    expect(bad).toEqual([
      'tick 1: NodeClaim a is gone but its instance pid-a is still terminating',
      'end: the cloud reports pid-x orphaned',
      'end: instance pid-x is pending with no NodeClaim',
    ]);
    expect(
      checkInstances({
        ticks: [tick(0, [a, b]), tick(1, [b], { instances: [{ providerID: 'pid-b', state: 'running' }] })],
        final: { instances: [{ providerID: 'pid-b', state: 'running' }], orphans: [], ncs: [b] },
      }),
    ).toEqual([]);
    // A Node gone (NodeClaim still there) while its instance runs.
    expect(
      checkInstances({
        ticks: [tick(0, [a]), tick(1, [a], { nodes: [] })],
        final: { instances: [{ providerID: 'pid-a', state: 'running' }], orphans: [], ncs: [a] },
      }),
    ).toEqual(['tick 1: Node node-a is gone but its instance pid-a is still running']);
  });

  it('5. scoped budgets: two nodes drifting at once in a cluster or zone budget of 1 are reported', () => {
    const a = nc('a');
    const b = nc('b', { pool: 'p1' });
    const c = nc('c');
    const two = cmd('c1', ['a', 'b']);
    two.candidates[1].nodePool = 'p1';
    const policy = (name: string, pools: string[]): PolicyGen => ({
      name,
      pools,
      consolidate: 'never',
      after: '0s',
      budgets: [],
      podWindows: [],
      maintenance: [],
    });
    const spec = (o: Partial<CaseSpec>): CaseSpec => ({
      pools: [],
      replicaSets: [],
      policies: [policy('pol0', ['p0']), policy('pol1', ['p1'])],
      perturbations: [],
      stepMs: 30_000,
      ticks: 1,
      quietTicks: 0,
      ...o,
    });
    const ticks = [tick(0, [a, b, c], { inflight: [two] })];
    const starts = [start(0, two)];
    expect(checkScopedBudgets({ spec: spec({ clusterBudget: { nodes: 1 } }), ticks, starts })).toEqual([
      'tick 0: 2 nodes voluntarily disrupted in cluster budget 1 over p0, p1: a (p0/Drifted), b (p1/Drifted)',
    ]);
    // Within the count, for another reason, or over pools the command did not touch: nothing to report.
    expect(checkScopedBudgets({ spec: spec({ clusterBudget: { nodes: 2 } }), ticks, starts })).toEqual([]);
    expect(
      checkScopedBudgets({ spec: spec({ clusterBudget: { nodes: 1, reasons: ['Empty'] } }), ticks, starts }),
    ).toEqual([]);
    expect(checkScopedBudgets({ spec: spec({ clusterBudget: { nodes: 1, pools: ['p0'] } }), ticks, starts })).toEqual(
      [],
    );
    // A selector budget counts only its policy's nodes in its zones.
    const zoned = (zones: string[]) => ({ ...policy('pol0', ['p0', 'p1']), zoneBudgets: [{ nodes: 1, zones }] });
    const zonedTicks = [
      tick(0, [a, b, c], {
        inflight: [two],
        nodes: nodesOf([a, b, c]).map((n) => ({ ...n, zone: 'us-west-2a' })),
      }),
    ];
    expect(
      checkScopedBudgets({ spec: spec({ policies: [zoned(['us-west-2a'])] }), ticks: zonedTicks, starts }),
    ).toEqual([
      'tick 0: 2 nodes voluntarily disrupted in pol0 zone budget 1 over p0, p1 in us-west-2a: ' +
        'a (p0/Drifted), b (p1/Drifted)',
    ]);
    expect(
      checkScopedBudgets({ spec: spec({ policies: [zoned(['us-west-2b'])] }), ticks: zonedTicks, starts }),
    ).toEqual([]);
  });
});

describe('negative control for rate budgets', () => {
  it('5. rates: a third drift within the hour under `budget 2 per 1h for Drifted`, none once the hour passed', () => {
    const rated = spec([policy({ budgets: [{ kind: 'budget', nodes: '2', perMin: 60, reasons: ['Drifted'] }] })]);
    const at = (i: number, id: string, names: string[]) => start(i, cmd(id, names));
    // Three single-node drifts at 0, 30 s and 59.5 min: the third is the third start in its hour.
    const starts = [at(0, 'cmd-1', ['a']), at(1, 'cmd-2', ['b']), at(119, 'cmd-3', ['c'])];
    expect(checkRates({ spec: rated, starts })).toEqual([
      'tick 119 2026-11-23T12:59:30.000Z: cmd-3 (Drift/Drifted) made 3 starts in pool p0 within 60m, ' +
        'rate budget 2 per 60m',
    ]);
    // At exactly one hour the first start has left the window: (t − 1h, t].
    expect(
      checkRates({ spec: rated, starts: [at(0, 'cmd-1', ['a']), at(1, 'cmd-2', ['b']), at(120, 'cmd-3', ['c'])] }),
    ).toEqual([]);
    // A consolidation does not count against a Drifted-only rate; a percentage rounds up (34% of 4 nodes = 2).
    const other = start(119, cmd('cmd-3', ['c'], { reason: 'Underutilized', method: 'SingleNodeConsolidation' }));
    expect(checkRates({ spec: rated, starts: [at(0, 'cmd-1', ['a']), at(1, 'cmd-2', ['b']), other] })).toEqual([]);
    const percent = spec([policy({ budgets: [{ kind: 'budget', nodes: '34%', perMin: 60 }] })]);
    expect(checkRates({ spec: percent, starts: [at(0, 'cmd-1', ['a', 'b'])] })).toEqual([]);
    expect(checkRates({ spec: percent, starts: [at(0, 'cmd-1', ['a', 'b', 'c'])] })).toHaveLength(1);
  });
});
