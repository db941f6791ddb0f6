// SPDX-License-Identifier: Apache-2.0
// The reconciler's scans kept across ticks (Runtime.incrementalScans: pod events reading only
// the dirty nodes' NodeClaims, expiration's due instants per changed NodeClaim, the clean-up's
// taint scan per changed machine, termination skipped while nothing is deleting, Unconsolidatable
// events per changed verdict, the rate-budget answers per pool) must make the same writes and
// decisions as scanning everything every tick: two runtimes on the same seeded cluster, given
// the same random events (pod relabels and deletions, left-over disrupted taints, NodeClaims
// that expire soon or are deleted, a NodePool deleted, policies switched) and time steps, hold
// the same objects, record the same events and metrics, and report the same tick results.
import { describe, expect, it } from 'vitest';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { KubeObject, Node, NodeClaim, Pod } from '../../src/core/cluster/types.js';
import { FakeClock } from '../../src/core/clock.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import type { PolicySpec } from '../../rules/model.js';
import { Runtime } from '../../src/control/runtime/runtime.js';
import { generateCluster } from '../bench/generate.js';
import { seededRandom } from '../support/seeded-random.js';

const T0 = Date.parse('2026-11-23T10:00:00Z'); // the generated machines were created 34 h before

const POLICIES = [
  `policy teams for nodepool pool-0 {
  consolidate when empty or underutilized after 10m
  budget 20%
}
`,
  `policy steady for nodepool pool-1 {
  consolidate when empty after 5m
  budget 2
  expire after 36h gracefully
}
`,
  `policy aging for nodepool pool-0, pool-2 {
  expire after 40h
  termination grace 20m
}
`,
];

function policySets(): readonly (readonly PolicySpec[])[] {
  const [teams, steady, aging] = POLICIES.map((text) => {
    const loaded = loadPolicies([{ fileName: 'p.kpol', text }]);
    if (!loaded.ok) throw new Error(`test policy does not load: ${JSON.stringify(loaded)}`);
    return loaded.policies[0];
  });
  return [[teams!, steady!], [], [aging!, steady!]];
}

/** One random change, the same for both runtimes; returns what it did (and whether the server refused it). */
type Step = (rt: Runtime) => Promise<string>;

/** Busy: every kind of change often. Calm: mostly pod relabels, with long idle stretches for termination. */
const BUSY = ['pod', 'pod', 'pod', 'evict', 'taint', 'untaint', 'expire', 'claim', 'delete', 'policy', 'none'];
const CALM = [...BUSY.filter((k) => k !== 'delete' && k !== 'evict'), ...Array<string>(12).fill('pod')];

function randomSteps(seed: number, count: number, calm: boolean): { step: Step; advanceMs: number }[] {
  const r = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const sets = policySets();
  const out: { step: Step; advanceMs: number }[] = [];
  for (let i = 0; i < count; i++) {
    // A calm run deletes one NodeClaim, a third of the way in.
    const kind = calm && i === Math.floor(count / 3) ? 'delete' : pick(calm ? CALM : BUSY);
    const x = r();
    const rank = Math.floor(r() * 1e6);
    const expireAfter = pick(['34h30m', '35h', '36h', '40h', 'Never']);
    const step: Step = async (rt) => {
      const cluster = rt.cluster as MemoryCluster;
      const of = <T>(k: 'Pod' | 'Node' | 'NodeClaim' | 'NodePool') =>
        (cluster.objects() as unknown as T[]).filter((o) => (o as { kind: string }).kind === k);
      const nth = <T>(xs: T[]): T | undefined => xs[rank % Math.max(1, xs.length)];
      try {
        switch (kind) {
          case 'pod': {
            const p = nth(of<Pod>('Pod'));
            if (!p) return 'no pod';
            const key = { kind: 'Pod' as const, namespace: p.metadata.namespace!, name: p.metadata.name };
            await rt.cluster.patch(key, { metadata: { labels: { 'test.kpol.dev/step': String(i) } } });
            return `relabel ${p.metadata.name}`;
          }
          case 'evict': {
            const p = nth(of<Pod>('Pod'));
            if (!p) return 'no pod';
            await rt.cluster.delete({ kind: 'Pod', namespace: p.metadata.namespace!, name: p.metadata.name });
            return `delete pod ${p.metadata.name}`;
          }
          case 'taint':
          case 'untaint': {
            const n = nth(of<Node>('Node'));
            if (!n) return 'no node';
            const others = (n.spec.taints ?? []).filter((t) => t.key !== 'karpenter.sh/disrupted');
            const taints =
              kind === 'taint' ? [...others, { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' as const }] : others;
            await rt.cluster.patch({ kind: 'Node', name: n.metadata.name }, { spec: { taints } });
            return `${kind} ${n.metadata.name}`;
          }
          case 'expire': {
            const c = nth(of<NodeClaim>('NodeClaim'));
            if (!c) return 'no claim';
            await rt.cluster.patch({ kind: 'NodeClaim', name: c.metadata.name }, { spec: { expireAfter } });
            return `expireAfter ${expireAfter} on ${c.metadata.name}`;
          }
          case 'claim': {
            const c = nth(of<NodeClaim>('NodeClaim'));
            if (!c) return 'no claim';
            await rt.cluster.patch(
              { kind: 'NodeClaim', name: c.metadata.name },
              { metadata: { annotations: { 'test.kpol.dev/step': String(i) } } },
            );
            return `annotate ${c.metadata.name}`;
          }
          case 'delete': {
            if (x < 0.15 && seed === 1) {
              const pool = nth(of<{ metadata: { name: string } }>('NodePool'));
              if (!pool) return 'no pool';
              await rt.cluster.delete({ kind: 'NodePool', name: pool.metadata.name });
              return `delete pool ${pool.metadata.name}`;
            }
            const c = nth(of<NodeClaim>('NodeClaim'));
            if (!c) return 'no claim';
            await rt.cluster.delete({ kind: 'NodeClaim', name: c.metadata.name });
            return `delete claim ${c.metadata.name}`;
          }
          case 'policy':
            rt.policies = sets[rank % sets.length]!;
            return `policies ${rank % sets.length}`;
          default:
            return 'quiet';
        }
      } catch (e) {
        return `refused: ${(e as Error).message}`;
      }
    };
    // Mostly the controller's 10 s, sometimes long enough to reach an expiry or a drain's deadline.
    const advanceMs = x < 0.8 ? 10_000 : x < 0.93 ? 5 * 60_000 : 90 * 60_000;
    out.push({ step, advanceMs });
  }
  return out;
}

/**
 * The generated cluster without do-not-disrupt pods (a drain ends). Calm: also no drifted
 * machines and full nodes whose consolidateAfter starts now, so nothing is disrupted until an
 * event asks for it and the controllers have idle stretches between events.
 */
function cluster(nodes: number, calm: boolean): KubeObject[] {
  const objects = generateCluster({ pools: 3, nodes, pods: nodes * (calm ? 30 : 6), replicaSets: true });
  return objects.map((o) => {
    const annotations = { ...o.metadata.annotations };
    delete annotations['karpenter.sh/do-not-disrupt'];
    const out = { ...o, metadata: { ...o.metadata, annotations } };
    if (calm && o.kind === 'NodeClaim') {
      const status = { ...(o as NodeClaim).status };
      status.conditions = status.conditions?.filter((c) => c.type !== 'Drifted');
      status.lastPodEventTime = new Date(T0).toISOString();
      return { ...out, status } as NodeClaim;
    }
    return out;
  });
}

async function compare(seed: number, nodes: number, steps: number, calm: boolean) {
  const sets = policySets();
  const make = (incremental: boolean) => {
    const clock = new FakeClock(T0);
    const objects = cluster(nodes, calm);
    const rt = new Runtime({ clock, objects, policies: sets[0]! });
    rt.incrementalScans = incremental;
    return { rt, clock };
  };
  const fast = make(true);
  const slow = make(false);
  expect(fast.rt.incrementalScans).toBe(true);
  expect(slow.rt.incrementalScans).toBe(false);
  const seen = { expired: 0, started: 0, kept: 0, skipped: 0, steps: new Set<string>() };
  const plan = randomSteps(seed, steps, calm);
  for (const [i, { step, advanceMs }] of plan.entries()) {
    const did = await step(fast.rt);
    expect(await step(slow.rt), `step ${i}`).toBe(did);
    seen.steps.add(did.split(' ')[0]!);
    const a = await fast.rt.tick();
    const b = await slow.rt.tick();
    const result = (t: typeof a) => ({
      expired: t.expired,
      interrupted: t.interrupted,
      started: t.disruption.started?.candidates,
      waiting: t.disruption.waitingValidation?.candidates,
    });
    expect(result(a), `tick ${i} after ${did}`).toEqual(result(b));
    expect((fast.rt.cluster as MemoryCluster).objects(), `objects after tick ${i}`).toEqual(
      (slow.rt.cluster as MemoryCluster).objects(),
    );
    expect(fast.rt.events.list(), `events after tick ${i}`).toEqual(slow.rt.events.list());
    expect(fast.rt.metrics.render(), `metrics after tick ${i}`).toEqual(slow.rt.metrics.render());
    seen.expired += a.expired.length;
    if (a.disruption.started) seen.started++;
    fast.clock.advance(advanceMs);
    slow.clock.advance(advanceMs);
  }
  const parts = fast.rt as unknown as {
    expiration: { kept: { passes: { rebuilt: number; kept: number } } };
    termination: { skipped: number };
  };
  // The kept paths were taken: expiration's due instants, and termination's skipped passes.
  seen.kept = parts.expiration.kept.passes.kept;
  seen.skipped = parts.termination.skipped;
  return seen;
}

describe('incremental reconciler scans', () => {
  it.each([
    [1, 'busy'],
    [3, 'busy'],
    [4, 'calm'],
    [5, 'calm'],
  ])(
    'make the same writes, events and decisions as full scans (seed %i, %s cluster)',
    async (seed, shape) => {
      const seen = await compare(seed, 24 + 6 * seed, 70, shape === 'calm');
      // The runs exercise what the kept scans decide: expirations, disruptions, left-over taints
      // cleaned up, Unconsolidatable events and terminations.
      expect(seen.expired).toBeGreaterThan(0);
      expect(seen.kept).toBeGreaterThan(20);
      if (shape === 'calm') expect(seen.skipped).toBeGreaterThan(10);
      else expect(seen.started).toBeGreaterThan(0);
      expect([...seen.steps]).toEqual(expect.arrayContaining(['relabel', 'taint', 'delete', 'expireAfter']));
    },
    300_000,
  );
});
