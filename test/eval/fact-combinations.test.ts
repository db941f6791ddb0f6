// SPDX-License-Identifier: Apache-2.0
// The every-node evaluation's fast path — each node's derivation up to the clock prepared once
// and kept across instants (prepared-nodes.ts), the node rules run once per distinct combination
// of facts (fact-combinations.ts) — must give exactly the answer of deriving every node from all
// its pods and running its rules on its own. Compared in full (nodes, pools, scopes, warnings)
// over generated clusters and policies at many instants, with objects changing between them.
// And an evaluation that derives only the nodes whose objects changed since the last one (from a
// live index fed watch events, evaluate-cluster.ts changedOnly) must give the answer of deriving
// every node from scratch, with the verdict digest followed through the changes equal to one built afresh.
import { describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../src/core/cluster/client.js';
import { INDEX_BUCKETS, LiveIndex } from '../../src/core/cluster/live-index.js';
import { ownRecord } from '../../src/core/cluster/own-keys.js';
import { emptySnapshot, type Snapshot } from '../../src/core/cluster/snapshot.js';
import { byNamespaceAndName } from '../../src/core/cluster/sorted-objects.js';
import { indexCluster, type ClusterIndex } from '../../src/core/cluster/state.js';
import type {
  ConfigMap,
  KubeObject,
  Node,
  NodeClaim,
  NodePool,
  Pod,
  PodDisruptionBudget,
} from '../../src/core/cluster/types.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import type { EvalOutput } from '../../src/core/eval/output.js';
import { changeOf, differenceOf } from '../../src/core/eval/verdict-record.js';
import { stateKey } from '../../src/core/eval/evaluation-span.js';
import { digestOf } from '../../src/control/reconciler/methods/verdict-digest.js';
import { NodeFactDeriver, preparedKeyOf, type DisruptionState } from '../../src/core/facts/node-facts.js';
import { PodWindowMatcher } from '../../src/core/facts/pod-windows.js';
import { nodePoolOf } from '../../src/core/cluster/state.js';
import { compile, type RuleGraph } from '../../rules/compile.js';
import { LABEL_PAUSE } from '../../src/core/facts/pauses.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { keepUnchanged } from '../../src/core/policy/unchanged-policies.js';
import type { PolicySpec } from '../../rules/model.js';
import { makeNodeClaimAndNode, makeNodePool, makePdb, makePod } from '../support/cluster-builder.js';
import { seededRandom } from '../support/seeded-random.js';

const T0 = Date.parse('2026-11-23T20:00:00Z'); // a Monday evening in UTC
const HOUR = 3_600_000;

const POLICIES = `schedule nightly = "0 1 * * mon-fri" for 4h in "Europe/Berlin"

cluster budget 6 for Drifted
cluster budget 0 for Drifted during "0 9 * * 1-5" for 8h in "America/New_York"

policy web for nodepool web, api {
  timezone "Europe/Berlin"
  consolidate when empty or underutilized after 30m
  expire after 30h gracefully
  termination grace 2h
  budget 2 for Drifted per reason
  budget 1 for Underutilized per reason
  budget 40%
  budget 2 per 1h for Drifted
  budget 1 for Drifted on nodes where topology.kubernetes.io/zone = us-west-2a
  budget 0 for Underutilized during "0 1 * * *" for 2h
  allow 3 Drifted only during nightly
  freeze Drifted from "2026-11-24 03:10" to "2026-11-24 03:40"
  pods where app = "batch" disruptable only during "0 4 * * *" for 1h
  pods where app = "coredns" in namespace kube-system never Underutilized
  window zone-a blocks Underutilized on nodes where topology.kubernetes.io/zone in (us-west-2a) during "0 6 * \
* *" for 90m
}

policy batch for nodepool batch {
  timezone "America/New_York"
  consolidate when empty after 10m
  expire after 20h
  budget 3 per 2h for Empty, Underutilized
  budget 50%
  pods where app = "web" disruptable never during "0 22 * * *" for 3h
  window night blocks Drifted, Empty during "0 23 * * *" for 2h in "Asia/Tokyo"
}
`;

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** Pods that exercise every pod-derived fact: do-not-disrupt (for ever, for a while, invalid), windows, PDBs. */
function podsFor(node: string, n: number, pick: <T>(xs: readonly T[]) => T, r: () => number): Pod[] {
  const pods: Pod[] = [];
  for (let k = 0; k < n; k++) {
    const annotations: Record<string, string> = {};
    const dnd = pick(['', '', '', '', 'true', '2h', '45m', 'bogus', '-1h']);
    if (dnd) annotations['karpenter.sh/do-not-disrupt'] = dnd;
    const schedule = pick(['', '', '', '', '0 3 * * *', '30 21 * * *', 'not a cron']);
    if (schedule) annotations['karpenter.sh/disruption-schedule'] = schedule;
    if (schedule && r() < 0.5) annotations['karpenter.sh/disruption-schedule-duration'] = pick(['2h', '10s']);
    const app = pick(['web', 'web', 'batch', 'coredns', 'api', 'shared']);
    pods.push(
      makePod(`${node}-p${k}`, node, {
        namespace: app === 'coredns' ? 'kube-system' : 'default',
        labels: { app, ...(r() < 0.3 ? { tier: 'a' } : {}) },
        annotations,
        startTime: iso(T0 - HOUR + Math.floor(r() * 4) * 30 * 60_000),
        owner: pick(['ReplicaSet', 'ReplicaSet', 'ReplicaSet', 'DaemonSet', 'StatefulSet', 'Node']),
        phase: pick(['Running', 'Running', 'Running', 'Running', 'Succeeded']),
        ...(r() < 0.1 ? { deletionTimestamp: iso(T0 - 2 * 60_000) } : {}),
        ...(r() < 0.15 ? { ready: 'False' as const } : {}),
        ...(r() < 0.1 ? { tolerations: [{ key: 'karpenter.sh/disrupted', operator: 'Exists' as const }] } : {}),
      }),
    );
  }
  return pods;
}

/** A cluster of four governed pools and one under its own spec.disruption, with PDBs, pauses and disruption starts. */
function generate(seed: number): KubeObject[] {
  const r = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const out: KubeObject[] = [];
  for (const pool of ['web', 'api', 'batch', 'legacy']) {
    const np = makeNodePool(pool, {
      consolidateAfter: '15m',
      ...(pool === 'legacy' ? { budgets: [{ nodes: '1', reasons: ['Drifted'] }] } : {}),
    });
    if (pool === 'web')
      np.metadata.annotations = {
        ...np.metadata.annotations,
        'kpol.dev/disruption-starts': JSON.stringify([
          { nodeClaim: 'gone-1', reason: 'Drifted', at: iso(T0 - 30 * 60_000) },
          { nodeClaim: 'gone-2', reason: 'Drifted', at: iso(T0 + 20 * 60_000) },
        ]),
      };
    out.push(np);
    const count = 6 + Math.floor(r() * 8);
    for (let i = 0; i < count; i++) {
      const { nodeClaim, node } = makeNodeClaimAndNode(pool, i, {
        drifted: r() < 0.5,
        // Some expire inside the run (30h and 20h policies, 720h for legacy).
        createdAt: iso(T0 - pick([2, 10, 19, 25, 29, 700]) * HOUR - Math.floor(r() * 6) * 10 * 60_000),
        initialized: r() > 0.08,
        deleting: r() < 0.06,
        instanceTerminating: r() < 0.03,
        ready: pick(['True', 'True', 'True', 'True', 'True', 'False'] as const),
        instanceType: pick(['m5.large', 'm5.large', 'c5.xlarge']),
        ...(r() < 0.05 ? { nodeAnnotations: { 'karpenter.sh/do-not-disrupt': 'true' } } : {}),
        ...(r() < 0.1 ? { terminationGracePeriod: '1h' } : {}),
      });
      // The last pod event moves consolidateAfter into the run for some nodes.
      if (r() < 0.6) nodeClaim.status = { ...nodeClaim.status, lastPodEventTime: iso(T0 + r() * 3 * HOUR) };
      if (r() < 0.15)
        nodeClaim.status!.conditions = [
          ...(nodeClaim.status!.conditions ?? []),
          { type: 'DisruptionReason', status: 'True', reason: pick(['Drifted', 'Underutilized', 'Empty']) },
        ];
      out.push(nodeClaim, node, ...podsFor(node.metadata.name, Math.floor(r() * 5), pick, r));
    }
  }
  out.push(
    makePdb('web', { matchLabels: { app: 'web' } }, { minAvailable: 1, disruptionsAllowed: 1 }),
    makePdb('batch', { matchLabels: { app: 'batch' } }, { maxUnavailable: 0, disruptionsAllowed: 0 }),
    makePdb('tier-a', { matchLabels: { tier: 'a' } }, { minAvailable: 1, disruptionsAllowed: 2 }),
    makePdb(
      'api',
      { matchLabels: { app: 'api' } },
      { maxUnavailable: 0, disruptionsAllowed: 0, unhealthyPodEvictionPolicy: 'AlwaysAllow' },
    ),
  );
  const pause: ConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kpol-pause-web', namespace: 'kpol-system', labels: { [LABEL_PAUSE]: 'true' } },
    data: { nodepools: 'web, legacy', reasons: 'Underutilized', until: iso(T0 + 5 * HOUR) },
  };
  out.push(pause);
  return out;
}

function indexOf(objects: readonly KubeObject[]): ClusterIndex {
  const s = emptySnapshot();
  for (const o of objects) {
    if (o.kind === 'NodePool') s.nodePools.push(o as NodePool);
    if (o.kind === 'NodeClaim') s.nodeClaims.push(o as NodeClaim);
    if (o.kind === 'Node') s.nodes.push(o as Node);
    if (o.kind === 'Pod') s.pods.push(o as Pod);
    if (o.kind === 'PodDisruptionBudget') s.pdbs.push(o as PodDisruptionBudget);
    if (o.kind === 'ConfigMap') s.configMaps.push(o as ConfigMap);
  }
  return indexCluster(s);
}

/** One object replaced by a changed copy (a new object, as the cluster stores hand out); the rest kept. */
function change(objects: KubeObject[], step: number, r: () => number): KubeObject[] {
  const next = [...objects];
  const of = (kind: string) => next.flatMap((o, i) => (o.kind === kind ? [i] : []));
  const at = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  switch (step % 5) {
    case 0: {
      const i = at(of('Pod'));
      const pod = next[i] as Pod;
      const dnd = pod.metadata.annotations?.['karpenter.sh/do-not-disrupt']
        ? {}
        : { 'karpenter.sh/do-not-disrupt': '1h' };
      next[i] = { ...pod, metadata: { ...pod.metadata, annotations: dnd } } as Pod;
      break;
    }
    case 1: {
      const i = next.findIndex((o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === 'web');
      const pdb = next[i] as PodDisruptionBudget;
      const allowed = pdb.status?.disruptionsAllowed === 0 ? 1 : 0;
      next[i] = { ...pdb, status: { ...pdb.status, disruptionsAllowed: allowed } } as PodDisruptionBudget;
      break;
    }
    case 2: {
      const i = at(of('Node'));
      const node = next[i] as Node;
      const zone = node.metadata.labels?.['topology.kubernetes.io/zone'] === 'us-west-2a' ? 'us-west-2b' : 'us-west-2a';
      next[i] = {
        ...node,
        metadata: { ...node.metadata, labels: { ...node.metadata.labels, 'topology.kubernetes.io/zone': zone } },
      } as Node;
      break;
    }
    case 3: {
      const i = at(of('NodeClaim'));
      const nc = next[i] as NodeClaim;
      next[i] = { ...nc, status: { ...nc.status, lastPodEventTime: iso(T0 + step * 20 * 60_000) } } as NodeClaim;
      break;
    }
    default: {
      // A pod goes away.
      next.splice(at(of('Pod')), 1);
    }
  }
  return next;
}

/** The in-flight state at a step: some nodes queued, marked, nominated; now and then a per-pool instance-type list. */
function inFlight(index: ClusterIndex, step: number): DisruptionState {
  const ids = index.stateNodes.flatMap((sn) => (sn.providerID ? [sn.providerID] : []));
  const names = index.stateNodes.map((sn) => sn.name);
  const every = (xs: string[], n: number, k: number) => new Set(xs.filter((_, i) => (i + k) % n === 0));
  const types = new Set(['m5.large']);
  return {
    queued: every(ids, 7, step),
    marked: every(ids, 11, step),
    nominated: every(names, 13, step),
    ...(step % 4 === 3 && { instanceTypes: (pool: string) => (pool === 'batch' ? types : undefined) }),
  };
}

/** Deriving every node from all its pods and running its rules on its own: no fast path, nothing kept. */
async function reference(index: ClusterIndex, policies: PolicySpec[], at: number, state: DisruptionState) {
  const ev = new Evaluator(false);
  ev.prepared = false;
  return ev.evaluate(index, policies, at, state);
}

function policies(): PolicySpec[] {
  const loaded = loadPolicies([{ fileName: 'fleet.kpol', text: POLICIES }]);
  expect(loaded.files.flatMap((f) => f.diagnostics.filter((d) => d.severity === 'error'))).toEqual([]);
  return loaded.policies;
}

describe('every-node evaluation per fact combination', () => {
  it.each([1, 2, 3])(
    'gives the answer of deriving every node on its own, cluster %i, at every 25 minutes over 30 hours',
    async (seed) => {
      const ps = policies();
      const r = seededRandom(seed * 7919);
      let objects = generate(seed);
      const fast = new Evaluator(false); // every node derived at every instant, through the fast path
      const cached = new Evaluator(); // and with verdicts and whole evaluations reused
      let index = indexOf(objects);
      const seen = { blocked: new Set<string>(), candidates: 0, warnings: 0, scopes: 0 };
      let step = 0;
      for (let t = T0; t < T0 + 30 * HOUR; t += 25 * 60_000, step++) {
        // Objects change every third instant, so prepared nodes are both kept and invalidated.
        if (step % 3 === 2) index = indexOf((objects = change(objects, step, r)));
        const state = inFlight(index, step);
        const want: EvalOutput = await reference(index, ps, t, state);
        expect(await fast.evaluate(index, ps, t, state)).toEqual(want);
        expect(await cached.evaluate(index, ps, t, state)).toEqual(want);
        for (const n of Object.values(want.nodes)) {
          for (const b of n.blocked) seen.blocked.add(b.code);
          if (n.candidate) seen.candidates++;
        }
        seen.warnings += want.warnings.length;
        seen.scopes += Object.keys(want.scopes ?? {}).length;
      }
      // The run met what the fast path must get right: every kind of block, candidates, warnings, scopes.
      expect([...seen.blocked].sort()).toEqual(
        expect.arrayContaining([
          'DoNotDisruptPod',
          'PDBBlocked',
          'PodDisruptionWindow',
          'MaintenanceWindow',
          'NotConsolidatable',
        ]),
      );
      expect(seen.candidates).toBeGreaterThan(100);
      expect(seen.warnings).toBeGreaterThan(0);
      expect(seen.scopes).toBeGreaterThan(0);
      // And the fast path was taken: nodes prepared far fewer times than derived, rule answers shared.
      expect(fast.nodeStats.derived).toBeGreaterThan(3 * fast.nodeStats.prepared);
      // (Few here: the generated nodes differ in nearly everything; a real pool's nodes mostly do not.)
      expect(fast.nodeStats.shared).toBeGreaterThan(50);
    },
    120_000,
  );
});

describe('a policy edited between instants', () => {
  // Each edit of the web policy (of the same length, so the others' source ranges stay), and
  // whether nodes prepared under the policy before it still serve (preparedKeyOf: what preparing
  // a node reads of its policy is unchanged).
  const EDITS: [string, (text: string) => string, boolean][] = [
    ['a budget', (t) => t.replace('budget 40%', 'budget 35%'), true],
    ['a freeze', (t) => t.replace('03:40', '03:50'), true],
    ['consolidateAfter', (t) => t.replace('underutilized after 30m', 'underutilized after 45m'), false],
    ['expireAfter', (t) => t.replace('expire after 30h gracefully', 'expire after 31h gracefully'), false],
    ['termination grace', (t) => t.replace('termination grace 2h', 'termination grace 3h'), false],
    ['a pod window', (t) => t.replace('app = "batch" disruptable', 'app = "bulk1" disruptable'), false],
    [
      'a label a rule reads',
      (t) => t.replace('topology.kubernetes.io/zone = us-west-2a', 'topology.kubernetes.io/rack = us-west-2a'),
      false,
    ],
  ];
  it.each(EDITS)(
    'edited %s: the answer of deriving every node afresh, its nodes prepared again only when preparing reads it',
    async (_, edit, alike) => {
      const load = (text: string) => loadPolicies([{ fileName: 'fleet.kpol', text }]).policies;
      const before = load(POLICIES);
      const edited = keepUnchanged(before, load(edit(POLICIES)));
      expect(edited.filter((p, i) => p !== before[i]).map((p) => p.name)).toEqual(['web']);
      const index = indexOf(generate(4));
      const fast = new Evaluator(false);
      const state = inFlight(index, 0);
      expect(await fast.evaluate(index, before, T0, state)).toEqual(await reference(index, before, T0, state));
      const prepared = fast.nodeStats.prepared;
      const at = T0 + 25 * 60_000;
      expect(await fast.evaluate(index, edited, at, state)).toEqual(await reference(index, edited, at, state));
      const web = index.stateNodes.filter((sn) =>
        /^(web|api)$/.test(sn.nodeClaim?.metadata.labels?.['karpenter.sh/nodepool'] ?? ''),
      );
      expect(web.length).toBeGreaterThan(5);
      expect(fast.nodeStats.prepared - prepared).toBe(alike ? 0 : web.filter((sn) => sn.node).length);
    },
  );
});

describe('what preparing a node reads of its policy', () => {
  // preparedKeyOf is written beside prepare() by hand: a field prepare() came to read that the key
  // leaves out would let a node prepared under the old policy serve the edited one. Both are run
  // on a graph whose reads are recorded, and prepare() may read only what the key reads.
  function recording(graph: RuleGraph, reads: Set<string>): RuleGraph {
    const record = <T extends object>(target: T, prefix: string): T =>
      new Proxy(target, {
        get(t, k, receiver) {
          if (typeof k === 'string') reads.add(prefix + k);
          return Reflect.get(t, k, receiver);
        },
      });
    return record({ ...graph, spec: record(graph.spec, 'spec.') }, '');
  }

  it.each([0, 1])('policy %i: every field prepare() reads of the spec and graph is part of the key', (which) => {
    const index = indexOf(generate(5));
    const spec = policies()[which]!;
    const graph = compile(spec);
    const keyReads = new Set<string>();
    preparedKeyOf(recording(graph, keyReads));
    const prepareReads = new Set<string>();
    const watched = recording(graph, prepareReads);
    const deriver = new NodeFactDeriver(
      index,
      watched,
      inFlight(index, 0),
      () => {},
      new PodWindowMatcher(watched.spec),
    );
    const pooled = index.stateNodes.filter((sn) => nodePoolOf(sn) !== undefined);
    for (const sn of pooled) deriver.prepare(sn);
    expect(pooled.length).toBeGreaterThan(10);
    expect(prepareReads.size).toBeGreaterThan(3); // the recording sees reads at all
    expect([...prepareReads].filter((k) => !keyReads.has(k))).toEqual([]);
  });
});

// The policies above without the cluster, selector and rate budgets: a budget counted over
// verdicts across pools, or a rate whose next start moves with the clock, makes every evaluation
// a whole one, so these let the changed-nodes path run.
const UNSCOPED = POLICIES.split('\n')
  .filter((l) => !l.startsWith('cluster budget') && !l.includes('on nodes where topology'))
  .filter((l) => !/budget \d+ per \d/.test(l))
  .join('\n');

/** The objects in list order (namespace, then name) as a snapshot, which a LiveIndex starts from. */
function liveSnapshot(objects: readonly KubeObject[]): Snapshot {
  const s = emptySnapshot();
  for (const o of [...objects].sort(byNamespaceAndName))
    (s[INDEX_BUCKETS[o.kind as keyof typeof INDEX_BUCKETS]] as KubeObject[]).push(o);
  return s;
}

/**
 * One watch event, as the stores make them (a changed object is a new object): pods' protections,
 * labels and lifecycle, a NodeClaim's last pod event (consolidateAfter moves), a Node's labels or
 * readiness (its pool's count moves), a PDB's allowance.
 */
function liveEvent(objects: Map<string, KubeObject>, r: () => number, at: number, step: number): WatchEvent {
  const of = (kind: string) => [...objects.values()].filter((o) => o.kind === kind);
  const any = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const x = r();
  const modified = (object: KubeObject): WatchEvent => ({ type: 'MODIFIED', object });
  if (x < 0.2) {
    const pod = any(of('Pod')) as Pod;
    const dnd = pod.metadata.annotations?.['karpenter.sh/do-not-disrupt']
      ? {}
      : { 'karpenter.sh/do-not-disrupt': any(['true', '1h', '20m']) };
    return modified({ ...pod, metadata: { ...pod.metadata, annotations: dnd } } as Pod);
  }
  if (x < 0.4) {
    const pod = any(of('Pod')) as Pod;
    const labels = { ...pod.metadata.labels, app: any(['web', 'batch', 'api', 'shared']), seen: String(step) };
    return modified({ ...pod, metadata: { ...pod.metadata, labels } } as Pod);
  }
  if (x < 0.5) return { type: 'DELETED', object: any(of('Pod')) };
  if (x < 0.6) {
    const node = any(of('Node')) as Node;
    const r2 = seededRandom(step);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(r2() * xs.length)];
    return { type: 'ADDED', object: podsFor(node.metadata.name, 1, pick, r2).map((p) => withName(p, step))[0] };
  }
  if (x < 0.8) {
    const nc = any(of('NodeClaim')) as NodeClaim;
    return modified({ ...nc, status: { ...nc.status, lastPodEventTime: iso(at - Math.floor(r() * 40) * 60_000) } });
  }
  if (x < 0.9) {
    const node = any(of('Node')) as Node;
    const zone = node.metadata.labels?.['topology.kubernetes.io/zone'] === 'us-west-2a' ? 'us-west-2b' : 'us-west-2a';
    const labels = { ...node.metadata.labels, 'topology.kubernetes.io/zone': zone };
    return modified({ ...node, metadata: { ...node.metadata, labels } } as Node);
  }
  if (x < 0.95) {
    const node = any(of('Node')) as Node;
    const conditions = (node.status?.conditions ?? []).map((c) =>
      c.type === 'Ready' ? { ...c, status: c.status === 'True' ? 'False' : 'True' } : c,
    );
    return modified({ ...node, status: { ...node.status, conditions } } as Node);
  }
  const pdb = of('PodDisruptionBudget').find((o) => o.metadata.name === 'web') as PodDisruptionBudget;
  const allowed = pdb.status?.disruptionsAllowed === 0 ? 1 : 0;
  return modified({ ...pdb, status: { ...pdb.status, disruptionsAllowed: allowed } } as PodDisruptionBudget);
}

const withName = (p: Pod, step: number): Pod => ({ ...p, metadata: { ...p.metadata, name: `added-${step}` } });
const keyOf = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** The in-flight state: the same sets (so the same state key) for stretches of steps, then others. */
function stretchState(index: ClusterIndex, step: number): DisruptionState {
  const state = inFlight(index, Math.floor(step / 12));
  return { queued: state.queued, marked: state.marked, nominated: state.nominated };
}

describe('evaluation of only the changed nodes', () => {
  it.each([1, 2, 3])(
    'gives the answer of deriving every node from scratch, cluster %i, over watch events and time steps',
    async (seed) => {
      const ps = loadPolicies([{ fileName: 'fleet.kpol', text: UNSCOPED }]).policies;
      const r = seededRandom(seed * 104_729);
      const objects = new Map(generate(seed).map((o) => [keyOf(o), o]));
      const live = new LiveIndex(liveSnapshot([...objects.values()]));
      const incremental = new Evaluator();
      let t = T0;
      let views = 0;
      for (let step = 0; step < 240; step++) {
        // Mostly one event between evaluations, sometimes several or none; time moves on by
        // seconds to hours, so windows open and close and consolidateAfter passes between them.
        const events: WatchEvent[] = [];
        for (let k = r() < 0.15 ? 0 : 1 + Math.floor(r() * r() * 4); k > 0; k--) {
          const e = liveEvent(objects, r, t, step);
          if (e.type === 'DELETED') objects.delete(keyOf(e.object));
          else objects.set(keyOf(e.object), e.object);
          events.push(e);
        }
        const index = live.apply(events);
        t += [10_000, 60_000, 5 * 60_000, 17 * 60_000, 90 * 60_000][Math.floor(r() * 5)];
        const state = stretchState(index, step);
        const want = await reference(index, ps, t, state);
        const got = await incremental.evaluate(index, ps, t, state);
        expect(got, `seed ${seed} step ${step}`).toEqual(want);
        // The disruption loop's views of the verdicts, followed through the changes, are those built afresh.
        const digest = digestOf(got);
        const fresh = digestOf({ ...want, nodes: ownRecord(want.nodes) });
        expect(new Map(digest.byReason), `seed ${seed} step ${step}`).toEqual(new Map(fresh.byReason));
        expect(digest.blocked).toEqual(fresh.blocked);
        if (changeOf(got.nodes)) views++;
      }
      // The changed-nodes path was taken, verdicts changed on it, and whole passes came between.
      expect(incremental.nodeStats.evaluationsIncremental).toBeGreaterThan(50);
      expect(views).toBeGreaterThan(20);
      expect(incremental.nodeStats.evaluationsIncremental).toBeLessThan(230);
    },
    120_000,
  );
});

/**
 * A watch event that brings or takes a machine, or moves one in its pool's budget count: a new
 * NodeClaim (not joined yet), its Node registering, a Node or NodeClaim deleted, a NodeClaim's
 * DisruptionReason set or dropped, a Node deleting (disrupting by its own objects).
 */
function machineEvent(
  objects: Map<string, KubeObject>,
  pending: Map<string, Node>,
  r: () => number,
  step: number,
): WatchEvent | undefined {
  const of = (kind: string) => [...objects.values()].filter((o) => o.kind === kind);
  const any = <T>(xs: T[]) => (xs.length ? xs[Math.floor(r() * xs.length)] : undefined);
  const x = r();
  if (x < 0.25) {
    const pool = any(['web', 'api', 'batch', 'legacy'])!;
    const made = makeNodeClaimAndNode(pool, 300 + step, { drifted: r() < 0.5, createdAt: iso(T0 - HOUR) });
    pending.set(made.nodeClaim.metadata.name, made.node);
    return { type: 'ADDED', object: made.nodeClaim };
  }
  if (x < 0.5) {
    // A claim without its Node registers it.
    const claim = any([...pending.keys()].filter((name) => objects.has(`NodeClaim//${name}`)));
    if (claim === undefined) return undefined;
    const node = pending.get(claim)!;
    pending.delete(claim);
    return { type: 'ADDED', object: node };
  }
  if (x < 0.65) {
    const o = any(of('Node'));
    return o && { type: 'DELETED', object: o };
  }
  if (x < 0.75) {
    const o = any(of('NodeClaim'));
    return o && { type: 'DELETED', object: o };
  }
  if (x < 0.9) {
    const nc = any(of('NodeClaim')) as NodeClaim | undefined;
    if (nc === undefined) return undefined;
    const others = (nc.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionReason');
    const reason = any(['Drifted', 'Underutilized', 'Empty', 'Expired', 'Bogus', ''])!;
    const conditions = reason ? [...others, { type: 'DisruptionReason', status: 'True', reason }] : others;
    return { type: 'MODIFIED', object: { ...nc, status: { ...nc.status, conditions } } };
  }
  const node = any(of('Node')) as Node | undefined;
  if (node === undefined) return undefined;
  const deleting = node.metadata.deletionTimestamp ? {} : { deletionTimestamp: iso(T0) };
  const { deletionTimestamp: _, ...metadata } = node.metadata;
  return { type: 'MODIFIED', object: { ...node, metadata: { ...metadata, ...deleting } } as Node };
}

/**
 * An in-flight state that moves a little most steps, as the reconciler's does: a command's
 * machines queued and marked with its reason, a command finishing (its marks kept or rolled
 * back), nominations coming and going. Never a per-pool instance-type list (that makes every
 * evaluation a whole one).
 */
function movingState(index: ClusterIndex, was: DisruptionState, r: () => number): DisruptionState {
  const ids = index.stateNodes.flatMap((sn) => (sn.providerID ? [sn.providerID] : []));
  const names = index.stateNodes.map((sn) => sn.name);
  const any = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const queued = new Set(was.queued);
  const marked = new Set(was.marked);
  const nominated = new Set(was.nominated);
  const reasons = new Map(was.reasons);
  const x = r();
  if (x < 0.3 && ids.length) {
    const id = any(ids);
    queued.add(id);
    marked.add(id);
    reasons.set(id, any(['Drifted', 'Underutilized', 'Empty'] as const));
  } else if (x < 0.5 && queued.size) {
    const id = any([...queued]);
    queued.delete(id);
    reasons.delete(id);
    if (r() < 0.5) marked.delete(id);
  } else if (x < 0.6 && reasons.size) {
    const id = any([...reasons.keys()]);
    reasons.set(id, reasons.get(id) === 'Drifted' ? 'Empty' : 'Drifted');
  } else if (x < 0.8) {
    const name = any(names);
    if (nominated.has(name)) nominated.delete(name);
    else nominated.add(name);
  }
  return { queued, marked, nominated, reasons };
}

describe('evaluation of only the changed nodes as machines come and go and the in-flight state moves', () => {
  it.each([1, 2, 3, 4])(
    'gives the answer of deriving every node from scratch, cluster %i, with budget counts moving',
    async (seed) => {
      const ps = loadPolicies([{ fileName: 'fleet.kpol', text: UNSCOPED }]).policies;
      const r = seededRandom(seed * 15_485_863);
      const objects = new Map(generate(seed).map((o) => [keyOf(o), o]));
      const live = new LiveIndex(liveSnapshot([...objects.values()]));
      const incremental = new Evaluator();
      let t = T0;
      let state: DisruptionState = { queued: new Set(), marked: new Set(), nominated: new Set(), reasons: new Map() };
      let lastIndex = live.apply([]);
      const seen = { members: 0, counts: 0, state: 0, records: 0 };
      const pending = new Map<string, Node>();
      let previousPools: EvalOutput['nodePools'] = {};
      for (let step = 0; step < 240; step++) {
        const events: WatchEvent[] = [];
        for (let k = r() < 0.2 ? 0 : 1 + Math.floor(r() * r() * 3); k > 0; k--) {
          const e = r() < 0.6 ? machineEvent(objects, pending, r, step) : liveEvent(objects, r, t, step);
          if (e === undefined) continue;
          if (e.type === 'DELETED') objects.delete(keyOf(e.object));
          else objects.set(keyOf(e.object), e.object);
          events.push(e);
        }
        const index = live.apply(events);
        t += [10_000, 60_000, 60_000, 5 * 60_000, 40 * 60_000][Math.floor(r() * 5)];
        const wasState = state;
        state = movingState(index, state, r);
        const want = await reference(index, ps, t, state);
        const before = incremental.nodeStats.evaluationsIncremental;
        const got = await incremental.evaluate(index, ps, t, state);
        expect(got, `seed ${seed} step ${step}`).toEqual(want);
        expect(Object.keys(got.nodes), `seed ${seed} step ${step}`).toEqual(Object.keys(want.nodes));
        const digest = digestOf(got);
        const fresh = digestOf({ ...want, nodes: ownRecord(want.nodes) });
        expect(new Map(digest.byReason), `seed ${seed} step ${step}`).toEqual(new Map(fresh.byReason));
        expect(digest.blocked).toEqual(fresh.blocked);
        if (incremental.nodeStats.evaluationsIncremental > before) {
          if (index.stateNodes.length !== lastIndex.stateNodes.length) seen.members++;
          if (differenceOf(got.nodes) && !changeOf(got.nodes)) seen.records++;
          if (JSON.stringify(got.nodePools) !== JSON.stringify(previousPools)) seen.counts++;
          if (stateKey(state) !== stateKey(wasState)) seen.state++;
        }
        previousPools = got.nodePools;
        lastIndex = index;
      }
      // The path was taken where it matters: machines came and went, pools' counts moved, the state moved.
      expect(seen.members).toBeGreaterThan(30);
      expect(seen.records).toBeGreaterThan(40);
      expect(seen.counts).toBeGreaterThan(60);
      expect(seen.state).toBeGreaterThan(120);
    },
    120_000,
  );
});
