// SPDX-License-Identifier: Apache-2.0
// The simulated world's controllers read only what changed (Runtime.incrementalControllers: the
// PDB status controller computes only the budgets whose object, pods or ReplicaSets changed, from
// tallies kept pod by pod; the node agent skips its NodeClaim, Node and cloud scan while nothing
// there needs it; the kubelet pass reads only the changed pods) and must write exactly what a pass
// reading everything writes: the same objects, fields and resourceVersions, tick after tick. Two
// runtimes over the same seeded cluster take the same seeded events — pods relabelled into and out
// of budgets, made unready, deleted and evicted; budgets created, reselected and deleted;
// ReplicaSets scaled; pods adopted by another ReplicaSet or orphaned; NodeClaims and Nodes
// touched; instances interrupted; NotReady Nodes reported Ready again (the heartbeat reads only the
// changed Nodes while the cloud is unchanged) — one with the world's controllers incremental and one
// without, and every object is compared after every tick.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { ClusterClient } from '../../src/core/cluster/client.js';
import type { KubeObject, Node, NodeClaim, Pod, PodDisruptionBudget } from '../../src/core/cluster/types.js';
import { pdbStatusOf } from '../../src/core/cluster/memory/api-fields.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { Runtime } from '../../src/control/runtime/runtime.js';
import { generateCluster } from '../bench/generate.js';
import { makePdb } from '../support/cluster-builder.js';
import { seededRandom } from '../support/seeded-random.js';

const T0 = Date.parse('2026-11-23T22:00:00Z');

const POLICY = `policy teams for nodepool pool-0, pool-1, pool-2 {
  consolidate when empty or underutilized after 5m
  budget 30%
}
`;

const KINDS = ['NodeClaim', 'Node', 'Pod', 'PodDisruptionBudget', 'ReplicaSet'] as const;

/** One event, chosen from the incremental runtime's objects and applied to both runtimes alike. */
type Step = (c: ClusterClient, rt: Runtime) => Promise<unknown>;

/** Runs a write, ignoring the refusals a random event can meet (a pod gone, a budget that forbids). */
const tolerant = async (write: () => Promise<unknown>): Promise<void> => {
  try {
    await write();
  } catch {
    // 404, 409, 429, 500 from the API: the same on both sides, and the state says so.
  }
};

const podKey = (p: Pod) => ({
  kind: 'Pod' as const,
  namespace: p.metadata.namespace ?? 'default',
  name: p.metadata.name,
});

// eslint-disable-next-line complexity -- one case per kind of event, each a few lines
async function nextStep(rt: Runtime, r: () => number, n: number): Promise<Step | undefined> {
  const pick = <T>(xs: readonly T[]): T | undefined => (xs.length ? xs[Math.floor(r() * xs.length)] : undefined);
  const pods = await rt.cluster.list<Pod>('Pod');
  const pod = pick(pods);
  const app = `app-${Math.floor(r() * 8)}`;
  switch (Math.floor(r() * 15)) {
    case 0: // into or out of the budgets selecting by app
      return pod && ((c) => tolerant(() => c.patch(podKey(pod), { metadata: { labels: { app } } })));
    case 1: // a label no budget reads
      return pod && ((c) => tolerant(() => c.patch(podKey(pod), { metadata: { labels: { seen: String(n) } } })));
    case 2: // a container stops being ready
      return (
        pod &&
        ((c) =>
          tolerant(() =>
            c.patch(podKey(pod), {
              status: {
                conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: new Date(T0).toISOString() }],
              },
            }),
          ))
      );
    case 3:
      return pod && ((c) => tolerant(() => c.delete(podKey(pod))));
    case 4:
    case 5: // evictions record disruptedPods, which expire with time alone
      return pod && ((c) => tolerant(() => c.evict(pod.metadata.namespace ?? 'default', pod.metadata.name)));
    case 6: {
      const ns = `team-${Math.floor(r() * 3)}`;
      const name = `extra-${Math.floor(r() * 4)}`;
      const spec = r() < 0.5 ? { minAvailable: Math.floor(r() * 3) } : { maxUnavailable: r() < 0.5 ? '30%' : 1 };
      const remove = r() < 0.3;
      return (c) =>
        tolerant(async () => {
          const old = await c.get<PodDisruptionBudget>({ kind: 'PodDisruptionBudget', namespace: ns, name });
          if (old === undefined) await c.create(makePdb(name, { matchLabels: { app } }, { namespace: ns, ...spec }));
          else if (remove) await c.delete({ kind: 'PodDisruptionBudget', namespace: ns, name });
          else
            await c.patch(
              { kind: 'PodDisruptionBudget', namespace: ns, name },
              { spec: { selector: { matchLabels: { app } } } },
            );
        });
    }
    case 7: {
      const rs = pick(await rt.cluster.list<KubeObject>('ReplicaSet'));
      const replicas = Math.floor(r() * 6);
      return (
        rs &&
        ((c) =>
          tolerant(() =>
            c.patch(
              { kind: 'ReplicaSet', namespace: rs.metadata.namespace, name: rs.metadata.name },
              { spec: { replicas } },
            ),
          ))
      );
    }
    case 8: {
      const nc = pick(await rt.cluster.list<KubeObject>('NodeClaim'));
      return (
        nc &&
        ((c) =>
          tolerant(() =>
            c.patch({ kind: 'NodeClaim', name: nc.metadata.name }, { metadata: { labels: { seen: String(n) } } }),
          ))
      );
    }
    case 9: {
      const node = pick(await rt.cluster.list<KubeObject>('Node'));
      return (
        node &&
        ((c) =>
          tolerant(() =>
            c.patch({ kind: 'Node', name: node.metadata.name }, { metadata: { labels: { seen: String(n) } } }),
          ))
      );
    }
    case 10: {
      const nc = pick((await rt.cluster.list<NodeClaim>('NodeClaim')).filter((x) => x.status?.providerID));
      const id = nc?.status?.providerID;
      // Both clouds hold the same instances; one no longer there throws on both.
      return id ? (_c, side) => tolerant(async () => side.cloud.interrupt(id)) : undefined;
    }
    case 11:
    case 12: {
      // An eviction recorded whose pod has not begun to terminate (on a real API server, the
      // moment between the two writes): only time takes it out of the budget's status.
      const pdb = pick(await rt.cluster.list<PodDisruptionBudget>('PodDisruptionBudget'));
      const selected = pdb?.spec.selector?.matchLabels?.app;
      const victim = pick(
        pods.filter(
          (p) =>
            p.metadata.namespace === pdb?.metadata.namespace &&
            p.metadata.labels?.app === selected &&
            p.metadata.deletionTimestamp === undefined,
        ),
      );
      const at = new Date(rt.clock.now() - Math.floor(r() * 30) * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
      if (pdb === undefined || victim === undefined) return undefined;
      const key = { kind: 'PodDisruptionBudget' as const, namespace: pdb.metadata.namespace, name: pdb.metadata.name };
      return (c) => tolerant(() => c.patch(key, { status: { disruptedPods: { [victim.metadata.name]: at } } }));
    }
    case 13: {
      // A pod changes owner: adopted by another ReplicaSet of its namespace, or orphaned. Both
      // ReplicaSets must sync (the one it left makes a replacement, the one it joined may delete).
      const others = (await rt.cluster.list<KubeObject>('ReplicaSet', pod?.metadata.namespace)).filter(
        (x) => !pod?.metadata.ownerReferences?.some((o) => o.name === x.metadata.name),
      );
      const to = r() < 0.7 ? pick(others) : undefined;
      const ownerReferences = to
        ? [
            {
              apiVersion: 'apps/v1',
              kind: 'ReplicaSet',
              name: to.metadata.name,
              uid: to.metadata.uid,
              controller: true,
            },
          ]
        : null;
      return pod && ((c) => tolerant(() => c.patch(podKey(pod), { metadata: { ownerReferences } })));
    }
    default:
      return undefined; // a quiet tick
  }
}

/**
 * Every 20 ticks an instance goes at once (tick 3), and the Nodes its heartbeat marked NotReady
 * are reported Ready again (tick 4) while the cloud stands still: the heartbeat, reading only the
 * changed Nodes then, must mark them again; and a notice is scheduled to fall due before the next
 * tick (tick 9). Picks no random number, so the seeded events stay.
 */
async function scheduled(t: number, rt: Runtime): Promise<Step | undefined> {
  if (t % 20 === 3) {
    const id = (await rt.cloud.list()).find((i) => i.state === 'running')?.providerID;
    return id ? (_c, side) => tolerant(async () => side.cloud.interrupt(id, 'InstanceTerminating')) : undefined;
  }
  if (t % 20 === 9) {
    // A notice falling due between ticks: the first cloud call after it delivers it, and the
    // instance goes at once; the node agent's reads of the cloud must deliver it where a listing does.
    const id = (await rt.cloud.list()).filter((i) => i.state === 'running').at(-1)?.providerID;
    const at = rt.clock.now() + 5_000;
    return id
      ? (_c, side) => tolerant(async () => side.cloud.scheduleInterruption(id, at, 'InstanceTerminating'))
      : undefined;
  }
  if (t % 20 !== 4) return undefined;
  const down = (await rt.cluster.list<Node>('Node')).filter((x) =>
    x.status?.conditions?.some((c) => c.type === 'Ready' && c.status !== 'True'),
  );
  if (down.length === 0) return undefined;
  revived += down.length;
  return (c) =>
    tolerant(async () => {
      for (const node of down) {
        const conditions = (node.status?.conditions ?? []).map((x) =>
          x.type === 'Ready' ? { ...x, status: 'True' } : x,
        );
        await c.patch({ kind: 'Node', name: node.metadata.name }, { status: { conditions } });
      }
    });
}

/** Nodes reported Ready again by scheduled() in the current comparison. */
let revived = 0;

async function dump(rt: Runtime): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const kind of KINDS) out[kind] = await rt.cluster.list(kind);
  out.instances = await rt.cloud.list();
  out.events = rt.events.list();
  return out;
}

async function compare(
  seed: number,
  ticks: number,
): Promise<{ disrupted: number; pdbWrites: number; revived: number; cloudLists: { fast: number; full: number } }> {
  const loaded = loadPolicies([{ fileName: 'p.kpol', text: POLICY }]);
  expect(loaded.ok).toBe(true);
  const side = (incremental: boolean) => {
    const clock = new FakeClock(T0);
    const objects = generateCluster({ pools: 3, nodes: 18 + 3 * seed, pods: (18 + 3 * seed) * 8, replicaSets: true });
    // Seed 2's incremental side keeps a cloud change log of two entries: its node agent is often
    // behind it and must read every instance then.
    const cloud = incremental && seed === 2 ? { changeLogKept: 2 } : {};
    const rt = new Runtime({ clock, objects, policies: loaded.policies, cloud });
    rt.incrementalControllers = incremental;
    return { rt, clock };
  };
  const fast = side(true);
  const full = side(false);
  expect(fast.rt.incrementalControllers).toBe(true);
  expect(full.rt.incrementalControllers).toBe(false);
  const r = seededRandom(seed);
  revived = 0;
  let disrupted = 0;
  let pdbWrites = 0;
  fast.rt.cluster.watch('PodDisruptionBudget', (e) => {
    pdbWrites++;
    if (pdbStatusOf(e.object as PodDisruptionBudget).disruptedPods !== undefined) disrupted++;
  });
  for (let t = 0; t < ticks; t++) {
    for (let k = Math.floor(r() * 3); k > 0; k--) {
      const step = await nextStep(fast.rt, r, t);
      if (step === undefined) continue;
      await step(fast.rt.cluster, fast.rt);
      await step(full.rt.cluster, full.rt);
    }
    const planned = await scheduled(t, fast.rt);
    if (planned !== undefined) {
      await planned(fast.rt.cluster, fast.rt);
      await planned(full.rt.cluster, full.rt);
    }
    await fast.rt.tick();
    await full.rt.tick();
    const [a, b] = [await dump(fast.rt), await dump(full.rt)];
    expect(a, `seed ${seed}, tick ${t}`).toEqual(b);
    const dt = [10_000, 30_000, 60_000, 150_000][Math.floor(r() * 4)];
    fast.clock.advance(dt);
    full.clock.advance(dt);
  }
  const lists = (rt: Runtime) => rt.cloud.calls.filter((c) => c.op === 'list').length;
  return { disrupted, pdbWrites, revived, cloudLists: { fast: lists(fast.rt), full: lists(full.rt) } };
}

describe('the world controllers reading only what changed', () => {
  it.each([1, 2, 3])(
    'write what reading everything writes, tick by tick (seed %i)',
    async (seed) => {
      const { pdbWrites, disrupted, revived: back, cloudLists } = await compare(seed, 150);
      // Some NotReady Node came back Ready while the cloud stood still.
      expect(back).toBeGreaterThan(0);
      // The events reached the budgets: their statuses were written many times over, with evictions recorded.
      expect(pdbWrites).toBeGreaterThan(50);
      expect(disrupted).toBeGreaterThan(5);
      // And the node agent skipped its machine part on some ticks (it lists the cloud only there).
      expect(cloudLists.fast).toBeLessThan(cloudLists.full);
    },
    300_000,
  );
});
