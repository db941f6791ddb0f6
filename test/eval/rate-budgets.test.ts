// SPDX-License-Identifier: Apache-2.0
// Rate budgets in an evaluation (rules/README §3.6.1): the table of allowances and rate uses over
// the example's cluster at instants around a start leaving its window, the why-not in `explain`,
// an unreadable record failing the pool's rate closed, a reused evaluation noticing a start leave
// its window with no object changed (or a start taken as now moving with the clock), and the
// record kept by the same code in standalone and govern.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { DISRUPTION_STARTS_ANNOTATION, parseStarts } from '../../src/core/cluster/disruption-starts.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import { loadSnapshot } from '../../src/core/cluster/snapshot.js';
import { indexCluster, type ClusterIndex } from '../../src/core/cluster/state.js';
import type { KubeObject, NodeClaim, NodePool } from '../../src/core/cluster/types.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { explainNode, renderExplanation } from '../../src/core/eval/explain.js';
import { renderText } from '../../src/core/eval/output.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { recordObservedStarts, recordStarts } from '../../src/control/reconciler/disruption-record.js';
import { governedBudgets } from '../../src/control/govern/karpenter-budgets.js';
import { counterOf, rateStartsOf } from '../../src/core/eval/rate-use.js';

const ROOT = new URL('../../rules/examples/', import.meta.url).pathname;
const POLICY = readFileSync(`${ROOT}steady-rollout.kpol`, 'utf8');
const CLUSTER = readFileSync(`${ROOT}clusters/steady-rollout.yaml`, 'utf8');
const at = (iso: string) => Date.parse(iso);

function setup(edit?: (objects: KubeObject[]) => void) {
  const loaded = loadPolicies([{ fileName: 'steady-rollout.kpol', text: POLICY }]);
  expect(loaded.ok).toBe(true);
  const { snapshot } = loadSnapshot(CLUSTER, 'steady-rollout.yaml');
  const objects: KubeObject[] = [...snapshot!.nodePools, ...snapshot!.nodeClaims, ...snapshot!.nodes];
  edit?.(objects);
  const index: ClusterIndex = indexCluster({
    ...snapshot!,
    nodePools: objects.filter((o): o is NodePool => o.kind === 'NodePool'),
  });
  return { policies: loaded.policies, index, objects, snapshot: snapshot! };
}

describe('rate budgets in eval', () => {
  it.each([
    // at, Drifted allowed, Empty allowed, Drifted starts in the hour, next drift
    ['2026-11-23T10:30:00Z', 0, 0, 2, '2026-11-23T10:40:00Z'],
    ['2026-11-23T10:39:59Z', 0, 0, 2, '2026-11-23T10:40:00Z'],
    ['2026-11-23T10:40:00Z', 1, 0, 1, undefined],
    ['2026-11-23T11:10:00Z', 1, 0, 0, undefined], // the rate leaves 2; 30% of 6 less 1 deleting binds
    ['2026-11-23T12:00:00Z', 1, 1, 0, undefined],
  ])('at %s: Drifted %i, Empty %i, %i drifts in the hour, next %s', async (iso, drifted, empty, started, next) => {
    const { policies, index } = setup();
    const out = await new Evaluator().evaluate(index, policies, at(iso));
    const web = out.nodePools.web!;
    expect(web.allowed).toMatchObject({ Drifted: drifted, Empty: empty, Underutilized: empty });
    expect(web.rates?.[0]).toMatchObject({ budget: 'budget 2 per 1h for Drifted', limit: 2, started });
    expect(web.rates?.[0]?.next).toBe(next);
  });

  it('says why not in eval text and in explain', async () => {
    const { policies, index } = setup();
    const now = at('2026-11-23T10:30:00Z');
    const text = renderText(await new Evaluator().evaluate(index, policies, now));
    expect(text).toContain(
      'web: rate budget 2 per 1h for Drifted used: 2 disruptions started in the last 1h ' +
        '(the oldest at 2026-11-23T09:40:00Z); next at 2026-11-23T10:40:00Z',
    );
    const e = await explainNode(index, policies, 'ip-10-191-0-3.us-west-2.compute.internal', now);
    const explained = renderExplanation(e!);
    expect(explained).toContain('Drifted: allowed 0 (budget 0)');
    expect(explained).toContain('rate budget 2 per 1h for Drifted used: 2 disruptions started in the last 1h');
    expect(explained).toMatch(/✔ fired {2}steady-rollout.kpol:7 → budget/);
  });

  it('fails the rate closed, with the reason in errors, when the record cannot be read', async () => {
    const { policies, index } = setup((objects) => {
      const np = objects.find((o) => o.kind === 'NodePool')!;
      np.metadata.annotations = { ...np.metadata.annotations, [DISRUPTION_STARTS_ANNOTATION]: '{"broken":' };
    });
    const out = await new Evaluator().evaluate(index, policies, at('2026-11-24T12:00:00Z'));
    expect(out.nodePools.web!.allowed).toMatchObject({ Drifted: 0, Empty: 0, Underutilized: 0 });
    expect(out.nodePools.web!.errors).toEqual(['kpol.dev/disruption-starts on NodePool web is not JSON']);
    expect(out.nodePools.web!.rates?.[0]).toMatchObject({ started: null, left: 0 });
  });

  it('does not reuse a whole evaluation once a start has left its window (no object changed)', async () => {
    const { policies, index } = setup();
    const ev = new Evaluator();
    expect((await ev.evaluate(index, policies, at('2026-11-23T10:39:59Z'))).nodePools.web!.allowed.Drifted).toBe(0);
    expect((await ev.evaluate(index, policies, at('2026-11-23T10:40:00Z'))).nodePools.web!.allowed.Drifted).toBe(1);
    // Within a span where nothing moves the evaluation is reused (the cache still works).
    await ev.evaluate(index, policies, at('2026-11-23T10:40:01Z'));
    expect(ev.nodeStats.evaluationsReused).toBeGreaterThan(0);
  });
  it('does not reuse an evaluation whose rate use moves with the clock (a start without its time)', async () => {
    // Without its transition time, web-aaaa1's start is taken as now: its rate use says so at each instant.
    const { policies, index } = setup((objects) => {
      for (const o of objects) {
        if (o.kind !== 'NodeClaim' || o.metadata.name !== 'web-aaaa1') continue;
        const c = (o as NodeClaim).status!.conditions!.find((x) => x.type === 'DisruptionReason')!;
        delete c.lastTransitionTime;
      }
    });
    const ev = new Evaluator();
    const first = await ev.evaluate(index, policies, at('2026-11-23T10:45:00Z'));
    expect(first.nodePools.web!.rates?.[0]).toMatchObject({ started: 1, oldest: '2026-11-23T10:45:00Z' });
    for (const iso of ['2026-11-23T10:45:10Z', '2026-11-23T10:46:00Z']) {
      const kept = await ev.evaluate(index, policies, at(iso));
      const fresh = await new Evaluator().evaluate(index, policies, at(iso));
      expect(kept.nodePools.web!.rates).toEqual(fresh.nodePools.web!.rates);
      expect(kept.nodePools.web!.rates?.[0]?.oldest).toBe(iso);
    }
  });
});

describe("kpol's record, written by the same code in every mode", () => {
  it('adds starts at command start and seen on NodeClaims, once each; leaves an unreadable record alone', async () => {
    const { snapshot } = setup();
    const now = at('2026-11-23T10:30:00Z');
    const cluster = new MemoryCluster(new FakeClock(now), [...snapshot.nodePools, ...snapshot.nodeClaims]);
    const record = async () => {
      const np = await cluster.get<NodePool>({ kind: 'NodePool', name: 'web' });
      return parseStarts(np!.metadata.annotations?.[DISRUPTION_STARTS_ANNOTATION]);
    };
    await recordStarts(cluster, 'web', [{ nodeClaim: 'web-aaaa2', reason: 'Drifted', atMs: now }], now);
    // The live NodeClaim web-aaaa1 shows its start (10:10) in its condition: recorded once, twice over.
    const index = indexCluster({
      ...snapshot,
      nodePools: [(await cluster.get<NodePool>({ kind: 'NodePool', name: 'web' }))!],
    });
    await recordObservedStarts(cluster, index, () => true, now);
    await recordObservedStarts(cluster, index, () => true, now);
    expect(await record()).toEqual({
      starts: [
        { nodeClaim: 'web-aaaa2', reason: 'Drifted', atMs: now },
        { nodeClaim: 'web-aaaa1', reason: 'Drifted', atMs: at('2026-11-23T10:10:00Z') },
        { nodeClaim: 'web-old01', reason: 'Drifted', atMs: at('2026-11-23T09:40:00Z') },
        { nodeClaim: 'web-old02', reason: 'Underutilized', atMs: at('2026-11-22T12:00:00Z') },
      ],
    });
    // A pool without a rate budget is never written.
    const before = (await cluster.get<NodePool>({ kind: 'NodePool', name: 'web' }))!.metadata.resourceVersion;
    await recordObservedStarts(cluster, index, () => false, now + 1000);
    expect((await cluster.get<NodePool>({ kind: 'NodePool', name: 'web' }))!.metadata.resourceVersion).toBe(before);
    await cluster.patch(
      { kind: 'NodePool', name: 'web' },
      { metadata: { annotations: { [DISRUPTION_STARTS_ANNOTATION]: 'x' } } },
    );
    await recordStarts(cluster, 'web', [{ nodeClaim: 'web-aaaa3', reason: 'Drifted', atMs: now }], now);
    expect(await record()).toEqual({ error: 'is not JSON' });
  });

  it('govern mode writes the count the rate leaves now, which Karpenter then caps in flight', async () => {
    const { policies, index } = setup();
    const ev = new Evaluator();
    const policy = policies[0]!;
    const written = async (iso: string) => {
      const now = at(iso);
      const starts = rateStartsOf(index, new Map([['web', policy]]), now);
      const budgets = await governedBudgets(
        (t) => ev.poolEvents(policy, t),
        now,
        6,
        now + 120_000,
        undefined,
        counterOf(starts.get('web'), now),
      );
      return budgets.filter((b) => !b.schedule);
    };
    expect(await written('2026-11-23T10:30:00Z')).toEqual([
      { nodes: '0', reasons: ['Empty', 'Drifted', 'Underutilized'] },
    ]);
    expect(await written('2026-11-23T10:40:00Z')).toEqual([
      { nodes: '0', reasons: ['Empty', 'Underutilized'] },
      { nodes: '1', reasons: ['Drifted'] },
    ]);
    // From noon the rates leave 2 and 1; 30% of 6 is 2 too, and at a tie the rate's count is written.
    expect(await written('2026-11-23T12:00:00Z')).toEqual([
      { nodes: '1', reasons: ['Empty', 'Underutilized'] },
      { nodes: '2', reasons: ['Drifted'] },
    ]);
  });
});
