// SPDX-License-Identifier: Apache-2.0
// Pauses (`kpol pause`) in the evaluator: read from labelled ConfigMaps in the snapshot, they act
// through the pool rules (`pause:<reason>`) like a freeze of the named reasons on the named
// pools, end by themselves at `until` on the evaluation's clock, and a pause kpol cannot read
// fails closed for the pools it names (every pool when those cannot be read), with a located error.
import { describe, expect, it } from 'vitest';
import { emptySnapshot } from '../../src/core/cluster/snapshot.js';
import { indexCluster } from '../../src/core/cluster/state.js';
import type { ConfigMap, KubeObject, Node, NodeClaim, NodePool } from '../../src/core/cluster/types.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { explainNode, renderExplanation } from '../../src/core/eval/explain.js';
import { renderText } from '../../src/core/eval/output.js';
import { evaluationView } from '../../src/control/runtime/status-source.js';
import { renderStatusPage } from '../../src/edge/server/status-page.js';
import { LABEL_PAUSE, pauseFacts, PAUSED_FOREVER, readPause } from '../../src/core/facts/pauses.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { makeNodeClaimAndNode, makeNodePool } from '../support/cluster-builder.js';

const T0 = Date.parse('2026-08-21T10:00:00Z');
const UNTIL = '2026-08-21T11:00:00Z';

function pause(name: string, data: Record<string, string>): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'kpol-system', labels: { [LABEL_PAUSE]: 'true' } },
    data,
  };
}

/** Two pools of four drifted nodes each: `web` governed by a policy, `batch` by its own spec.disruption. */
function index(extra: ConfigMap[]) {
  const objects: KubeObject[] = [makeNodePool('web'), makeNodePool('batch', { budgets: [{ nodes: '2' }] })];
  for (const pool of ['web', 'batch'])
    for (let i = 0; i < 4; i++) {
      const { nodeClaim, node } = makeNodeClaimAndNode(pool, i, { drifted: true });
      objects.push(nodeClaim, node);
    }
  const s = emptySnapshot();
  for (const o of objects) {
    if (o.kind === 'NodePool') s.nodePools.push(o as NodePool);
    if (o.kind === 'NodeClaim') s.nodeClaims.push(o as NodeClaim);
    if (o.kind === 'Node') s.nodes.push(o as Node);
  }
  s.configMaps.push(...extra);
  return indexCluster(s);
}

function policies() {
  const loaded = loadPolicies([{ fileName: 'web.kpol', text: 'policy web for nodepool web {\n  budget 3\n}\n' }]);
  expect(loaded.ok).toBe(true);
  return loaded.policies;
}

describe('reading a pause', () => {
  it('reads pools, reasons, the end, who and why', () => {
    const p = readPause(
      pause('kpol-pause-a', { nodepools: 'web, batch', reasons: 'Drifted', until: UNTIL, by: 'ci', note: 'rollout' }),
    );
    expect(p).toEqual({
      source: 'ConfigMap/kpol-system/kpol-pause-a',
      nodePools: ['web', 'batch'],
      reasons: ['Drifted'],
      untilMs: Date.parse(UNTIL),
      by: 'ci',
      note: 'rollout',
    });
    expect(readPause(pause('all', { until: '2026-08-21T12:00:00+01:00' }))).toMatchObject({
      nodePools: null,
      reasons: null,
      untilMs: Date.parse(UNTIL),
    });
  });

  it('locates every problem and fails closed for what it can read', () => {
    const bad = readPause(pause('bad', { nodepools: 'web', reasons: 'Drift', until: 'tomorrow' }));
    expect(bad.error).toBe(
      'ConfigMap/kpol-system/bad: reasons: unknown reason "Drift" (did you mean Drifted?); one of Empty, Drifted, ' +
        'Underutilized, Expired; ConfigMap/kpol-system/bad: until: "tomorrow" is not an RFC 3339 instant ' +
        '(2026-11-25T21:00:00Z)',
    );
    expect(bad).toMatchObject({ nodePools: ['web'], reasons: null, untilMs: PAUSED_FOREVER });
    const pools = readPause(pause('pools', { nodepools: 'Web_1', until: UNTIL }));
    expect(pools.error).toMatch(/^ConfigMap\/kpol-system\/pools: nodepools: "Web_1" is not a NodePool name/);
    expect(pools.nodePools).toBeNull();
    expect(readPause(pause('none', {})).error).toBe(
      'ConfigMap/kpol-system/none: until: missing (an RFC 3339 instant such as 2026-11-25T21:00:00Z)',
    );
    // A date that does not exist is not an instant, whatever Date.parse would make of it.
    expect(readPause(pause('feb', { until: '2026-02-30T00:00:00Z' })).error).toMatch(/until: .* is not an RFC 3339/);
  });

  it('gives each pool the latest end of the pauses naming it and the reason', () => {
    const a = readPause(pause('a', { nodepools: 'web', reasons: 'Drifted', until: UNTIL }));
    const b = readPause(pause('b', { reasons: 'Drifted,Empty', until: '2026-08-21T12:00:00Z' }));
    expect(pauseFacts([a, b], 'web')).toEqual({
      'pause:Empty': Date.parse('2026-08-21T12:00:00Z'),
      'pause:Drifted': Date.parse('2026-08-21T12:00:00Z'),
      'pause:Underutilized': 0,
      'pause:Expired': 0,
    });
    expect(pauseFacts([a], 'batch')['pause:Drifted']).toBe(0);
  });
});

describe('a pause in the evaluation', () => {
  it('holds the paused reasons at 0 on the paused pools until it ends, on governed and plain pools', async () => {
    const idx = index([pause('kpol-pause-a', { reasons: 'Drifted', until: UNTIL, by: 'ci', note: 'rollout' })]);
    const ev = new Evaluator();
    const during = await ev.evaluate(idx, policies(), T0);
    for (const pool of ['web', 'batch']) {
      expect(during.nodePools[pool]!.allowed.Drifted).toBe(0);
      expect(during.nodePools[pool]!.paused).toEqual([
        {
          source: 'ConfigMap/kpol-system/kpol-pause-a',
          reasons: ['Drifted'],
          until: UNTIL,
          by: 'ci',
          note: 'rollout',
          message:
            'Drifted paused by kpol pause until 2026-08-21T11:00:00Z (by ci): rollout ' +
            '[ConfigMap/kpol-system/kpol-pause-a]',
        },
      ]);
    }
    // Other reasons keep their budgets.
    expect(during.nodePools.web!.allowed.Empty).toBe(3);
    expect(during.nodePools.batch!.allowed.Empty).toBe(2);
    expect(renderText(during)).toContain('paused:\n  web: Drifted paused by kpol pause until 2026-08-21T11:00:00Z');

    // One millisecond before the end it still holds; at the end (exclusive) it is gone, with the same cluster.
    const justBefore = await ev.evaluate(idx, policies(), Date.parse(UNTIL) - 1);
    expect(justBefore.nodePools.web!.allowed.Drifted).toBe(0);
    const after = await ev.evaluate(idx, policies(), Date.parse(UNTIL));
    expect(after.nodePools.web!.allowed.Drifted).toBe(3);
    expect(after.nodePools.batch!.allowed.Drifted).toBe(2);
    expect(after.nodePools.web!.paused).toBeUndefined();
  });

  it('a controller honours only the pauses in its own namespace', async () => {
    const idx = index([pause('p', { reasons: 'Drifted', until: UNTIL })]);
    const elsewhere = await new Evaluator(true, 'team-a').evaluate(idx, policies(), T0);
    expect(elsewhere.nodePools.web!.allowed.Drifted).toBe(3);
    const home = await new Evaluator(true, 'kpol-system').evaluate(idx, policies(), T0);
    expect(home.nodePools.web!.allowed.Drifted).toBe(0);
  });

  it('a whole evaluation kept across quiet instants is not kept past the end of a pause', async () => {
    const idx = index([pause('p', { reasons: 'Drifted', until: UNTIL })]);
    const ev = new Evaluator();
    const pol = policies();
    await ev.evaluate(idx, pol, Date.parse(UNTIL) - 2000);
    await ev.evaluate(idx, pol, Date.parse(UNTIL) - 1000);
    expect(ev.nodeStats.evaluationsReused).toBe(1); // nothing moved: the kept answer is reused
    const after = await ev.evaluate(idx, pol, Date.parse(UNTIL));
    expect(after.nodePools.web!.allowed.Drifted).toBe(3);
    expect(ev.nodeStats.evaluationsReused).toBe(1);
  });

  it('pauses only the pools it names', async () => {
    const idx = index([pause('p', { nodepools: 'batch', until: UNTIL })]);
    const out = await new Evaluator().evaluate(idx, policies(), T0);
    expect(out.nodePools.batch!.allowed).toEqual({ Empty: 0, Drifted: 0, Underutilized: 0 });
    expect(out.nodePools.web!.allowed).toEqual({ Empty: 3, Drifted: 3, Underutilized: 3 });
    expect(out.nodePools.web!.paused).toBeUndefined();
  });

  it(
    'an unreadable pause fails closed with a located error, for every pool when its pools ' + 'cannot be read',
    async () => {
      const idx = index([pause('bad', { nodepools: 'batch', reasons: 'Drifted', until: 'soon' })]);
      const out = await new Evaluator().evaluate(idx, policies(), Date.parse('2030-01-01T00:00:00Z'));
      expect(out.nodePools.batch!.allowed.Drifted).toBe(0);
      expect(out.nodePools.batch!.allowed.Empty).toBe(2);
      expect(out.nodePools.batch!.errors).toEqual([
        'ConfigMap/kpol-system/bad: until: "soon" is not an RFC 3339 instant (2026-11-25T21:00:00Z)',
      ]);
      expect(out.nodePools.web!.allowed.Drifted).toBe(3);

      const unreadable = index([pause('bad', { nodepools: 'NOT A POOL', until: UNTIL })]);
      const all = await new Evaluator().evaluate(unreadable, policies(), T0);
      for (const pool of ['web', 'batch']) expect(all.nodePools[pool]!.allowed.Drifted).toBe(0);
    },
  );

  it('explain names the pause on the pool rule that fired', async () => {
    const idx = index([pause('kpol-pause-a', { reasons: 'Drifted', until: UNTIL, note: 'rollout' })]);
    const node = idx.stateNodes.find((sn) => sn.node && sn.name.includes('-10-'))!;
    const e = await explainNode(idx, policies(), node.name, T0);
    const text = renderExplanation(e!);
    expect(text).toContain(
      '✔ fired  Drifted paused by kpol pause until 2026-08-21T11:00:00Z: rollout ' +
        '[ConfigMap/kpol-system/kpol-pause-a] → pause',
    );
    expect(text).toContain('✔ pause:Drifted after now (fact: ends 2026-08-21T11:00:00.000Z)');
    expect(text).toContain('✘ not    kpol pause of Empty (none in force) → pause');
  });

  it('the status page lists the pauses in force and the pools failing closed', async () => {
    const idx = index([
      pause('kpol-pause-a', { nodepools: 'web', reasons: 'Drifted', until: UNTIL, note: 'rollout' }),
      pause('bad', { nodepools: 'batch', until: 'never' }),
    ]);
    const view = evaluationView(await new Evaluator().evaluate(idx, policies(), T0));
    expect(view.nodePools.web!.paused).toEqual([
      'Drifted paused by kpol pause until 2026-08-21T11:00:00Z: rollout [ConfigMap/kpol-system/kpol-pause-a]',
    ]);
    const html = renderStatusPage({ at: '', clockSpeed: 1, ...view, decisions: [], events: [] });
    const section = html.slice(html.indexOf('<section id="pauses">'), html.indexOf('<section id="nodes">'));
    expect(section).toContain('<td>web</td><td>Drifted paused by kpol pause until 2026-08-21T11:00:00Z: rollout');
    expect(section).toContain('<td>batch</td><td class="warn">ConfigMap/kpol-system/bad: until: &quot;never&quot;');
  });
});
