// SPDX-License-Identifier: Apache-2.0
// The evaluator reuses a node's verdict across evaluations only while nothing it depends on moved:
// an object change is seen on the next evaluation, and so is time crossing a window boundary,
// consolidateAfter, expireAfter or a duration-valued do-not-disrupt — with no object change.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { KubeObject } from '../../src/core/cluster/types.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { ClusterView, VIEW_KINDS } from '../../src/control/reconciler/cluster-view.js';
import { makeNodeClaimAndNode, makeNodePool, makePdb, makePod } from '../support/cluster-builder.js';

const T0 = Date.parse('2026-08-21T00:00:00Z'); // a Friday

const POLICY = `policy p for nodepool default {
  consolidate when empty or underutilized after 30m
  expire after 1000h
  pods where app = "batch" disruptable only during "0 2 * * *" for 1h
  window z blocks Drifted on nodes where topology.kubernetes.io/zone in (us-west-2b) during "0 9 * * *" for 2h
}
`;

function policies() {
  const loaded = loadPolicies([{ fileName: 'p.kpol', text: POLICY }]);
  expect(loaded.ok).toBe(true);
  return loaded.policies;
}

/** Six machines, each showing one time-dependent fact, created so that expiry falls inside the run. */
function objects(): KubeObject[] {
  const out: KubeObject[] = [makeNodePool('default', { consolidateAfter: '30m' })];
  for (let i = 0; i < 6; i++) {
    const { nodeClaim, node } = makeNodeClaimAndNode('default', i, {
      drifted: true,
      createdAt: i === 5 ? '2026-07-11T00:00:00Z' : '2026-08-20T23:50:00Z',
    });
    out.push(nodeClaim, node);
    const labels = { app: i === 1 ? 'batch' : `web-${i}` };
    const annotations: Record<string, string> = i === 3 ? { 'karpenter.sh/do-not-disrupt': '3h' } : {};
    out.push(makePod(`pod-${i}`, node.metadata.name, { labels, annotations, startTime: '2026-08-21T00:00:00Z' }));
  }
  out.push(makePdb('web-4', { matchLabels: { app: 'web-4' } }, { minAvailable: 1, disruptionsAllowed: 1 }));
  return out;
}

function setup() {
  const clock = new FakeClock(T0);
  const cluster = new MemoryCluster(clock, objects());
  const view = new ClusterView(cluster, { changeStamp: () => VIEW_KINDS.map((k) => cluster.kindVersion(k)).join('/') });
  return { clock, cluster, view };
}

const podOf = (i: number) => ({ kind: 'Pod' as const, name: `pod-${i}`, namespace: 'default' });

describe('node verdicts reused across evaluations', () => {
  it('agree with a fresh evaluation at every 10-minute step over two days', async () => {
    const { view } = setup();
    const index = await view.current();
    const ps = policies();
    const cached = new Evaluator();
    for (let t = T0; t < T0 + 2 * 86_400_000; t += 600_000) {
      const fresh = await new Evaluator(false).evaluate(index, ps, t);
      expect(await cached.evaluate(index, ps, t)).toEqual(fresh);
    }
    // Most instants change nothing for most nodes: the cache is used, and still re-derives at boundaries.
    // (A whole evaluation reused counts its six nodes as reused.)
    expect(cached.nodeStats.reused + 6 * cached.nodeStats.evaluationsReused).toBeGreaterThan(
      cached.nodeStats.derived * 10,
    );
    expect(cached.nodeStats.evaluationsReused).toBeGreaterThan(100);
  });

  it(
    'whole evaluations reused across instants agree with a fresh one at every minute across ' +
      'freeze and budget-window edges',
    async () => {
      const { view } = setup();
      const index = await view.current();
      const loaded = loadPolicies([
        {
          fileName: 'p.kpol',
          text: `policy p for nodepool default {
  consolidate when empty or underutilized after 30m
  budget 0 for Drifted during "30 1 * * *" for 20m
  freeze Underutilized from "2026-08-21 01:07" to "2026-08-21 01:13"
}
`,
        },
      ]);
      expect(loaded.ok).toBe(true);
      const cached = new Evaluator();
      let previous = '';
      let flips = 0;
      for (let t = T0 + 30 * 60_000; t < T0 + 150 * 60_000; t += 60_000) {
        const fresh = await new Evaluator(false).evaluate(index, loaded.policies, t);
        const got = await cached.evaluate(index, loaded.policies, t);
        expect(got).toEqual(fresh);
        const now = JSON.stringify([got.nodePools, got.nodes]);
        if (now !== previous) flips++;
        previous = now;
      }
      // The freeze and the budget window each open and close inside the run, with no object change,
      expect(flips).toBeGreaterThanOrEqual(5);
      // and most minutes reuse the whole previous answer.
      expect(cached.nodeStats.evaluationsReused).toBeGreaterThan(60);
    },
  );

  it('see each time-dependent fact move with no object change', async () => {
    const { view } = setup();
    const index = await view.current();
    const ps = policies();
    const ev = new Evaluator();
    const at = async (iso: string) => (await ev.evaluate(index, ps, Date.parse(iso))).nodes;
    const name = (i: number) => index.stateNodes[i].name;
    const codes = (n: { blocked: { code: string }[] }) => n.blocked.map((b) => b.code);
    let nodes = await at('2026-08-21T00:10:00Z');
    expect(nodes[name(0)].reasons).toEqual(['Drifted']); // not yet consolidatable
    expect(codes(nodes[name(1)])).toContain('PodDisruptionWindow');
    expect(codes(nodes[name(3)])).toContain('DoNotDisruptPod');
    expect(nodes[name(5)].blocked).toEqual([]);
    nodes = await at('2026-08-21T00:25:00Z'); // consolidateAfter has run out: the node may be consolidated now
    expect(nodes[name(0)].reasons).toEqual(['Drifted', 'Underutilized']);
    nodes = await at('2026-08-21T02:30:00Z'); // pod window open; consolidateAfter elapsed; do-not-disrupt 3h still on
    expect(codes(nodes[name(1)])).not.toContain('PodDisruptionWindow');
    expect(codes(nodes[name(3)])).toContain('DoNotDisruptPod');
    nodes = await at('2026-08-21T03:00:00Z'); // do-not-disrupt for 3h since pod start runs out; pod window closes
    expect(codes(nodes[name(3)])).not.toContain('DoNotDisruptPod');
    expect(codes(nodes[name(1)])).toContain('PodDisruptionWindow');
    nodes = await at('2026-08-21T09:30:00Z'); // maintenance window on zone b (node 1 and 4)
    expect(codes(nodes[name(4)])).toContain('MaintenanceWindow');
    nodes = await at('2026-08-21T11:00:00Z');
    expect(codes(nodes[name(4)])).not.toContain('MaintenanceWindow');
    expect((await ev.evaluate(index, ps, Date.parse('2026-08-21T11:00:00Z'))).nodes).toEqual(
      (await new Evaluator(false).evaluate(index, ps, Date.parse('2026-08-21T11:00:00Z'))).nodes,
    );
  });

  it('see a change to one pod annotation, one PDB and the in-flight state on the next evaluation', async () => {
    const { view, cluster } = setup();
    const ps = policies();
    const ev = new Evaluator();
    const t = Date.parse('2026-08-21T05:00:00Z');
    const first = await ev.evaluate(await view.current(), ps, t);
    const node0 = (await view.current()).stateNodes[0].name;
    expect(first.nodes[node0].blocked).toEqual([]);

    await cluster.patch(podOf(0), { metadata: { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } });
    const second = await ev.evaluate(await view.current(), ps, t);
    expect(second.nodes[node0].blocked.map((b) => b.code)).toEqual(['DoNotDisruptPod']);

    const node4 = (await view.current()).stateNodes[4].name;
    expect(second.nodes[node4].blocked).toEqual([]);
    // An allowance that stays above zero changes no verdict: nothing is derived again.
    const derivedBefore = ev.nodeStats.derived;
    await cluster.patch(
      { kind: 'PodDisruptionBudget', name: 'web-4', namespace: 'default' },
      { status: { disruptionsAllowed: 2 } },
    );
    expect((await ev.evaluate(await view.current(), ps, t)).nodes[node4].blocked).toEqual([]);
    expect(ev.nodeStats.derived).toBe(derivedBefore);
    await cluster.patch(
      { kind: 'PodDisruptionBudget', name: 'web-4', namespace: 'default' },
      { status: { disruptionsAllowed: 0 } },
    );
    const third = await ev.evaluate(await view.current(), ps, t);
    expect(third.nodes[node4].blocked.map((b) => b.code)).toEqual(['PDBBlocked']);

    const sn2 = (await view.current()).stateNodes[2];
    const marked = { queued: new Set<string>(), marked: new Set([sn2.providerID!]), nominated: new Set<string>() };
    const fourth = await ev.evaluate(await view.current(), ps, t, marked);
    expect(fourth.nodes[sn2.name].candidate).toBe(false);
    expect(fourth.nodePools.default.disrupting).toBe(1);
    // Only the changed nodes were derived again.
    const before = ev.nodeStats.derived;
    await ev.evaluate(await view.current(), ps, t, marked);
    expect(ev.nodeStats.derived).toBe(before);
  });
});
