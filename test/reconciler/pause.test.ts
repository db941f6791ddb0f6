// SPDX-License-Identifier: Apache-2.0
// `kpol pause` in the standalone controller: a pause ConfigMap of Drifted on the pool holds the
// drift of every node until its end — the nodes stay Drifted candidates, the budget is 0 — and
// the drift starts on the first tick at or after the end, with nobody deleting the pause. The
// NodePool gets `DisruptionPaused` events naming it; an unreadable pause a `PauseInvalid` Warning.
import { describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/core/cluster/types.js';
import { makeNodePool } from '../support/cluster-builder.js';
import { Scenario, T0, policies, replicaSet } from './scenario.js';

const UNTIL = T0 + 40 * 60_000;

const pauseOf = (name: string, data: Record<string, string>): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'kpol-system', labels: { 'kpol.dev/pause': 'true' } },
  data,
});

describe('pause', () => {
  it('holds drift until the pause ends, then drift starts on the first tick after it', async () => {
    const s = new Scenario(
      [
        makeNodePool('default', { consolidateAfter: 'Never' }),
        replicaSet('a', 2, { cpu: '3' }),
        pauseOf('kpol-pause-drift', {
          nodepools: 'default',
          reasons: 'Drifted',
          until: new Date(UNTIL).toISOString(),
          note: 'rollout',
        }),
        pauseOf('kpol-pause-typo', { nodepools: 'other', reasons: 'Drifted', until: 'later' }),
      ],
      policies('policy p for nodepool default {\n  consolidate never\n  budget 1 for Drifted\n}\n'),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 2, 10 * 60_000)).toBe(true);
    await s.rt.cluster.patch(
      { kind: 'NodePool', name: 'default' },
      { spec: { template: { metadata: { labels: { team: 'platform' } } } } },
    );
    let drifted = false;
    while (s.clock.now() < UNTIL) {
      const r = await s.tick();
      expect(r.disruption.started?.method, `a Drift started at ${new Date(s.clock.now()).toISOString()}`).not.toBe(
        'Drift',
      );
      const pool = r.disruption.evaluation.nodePools.default!;
      drifted ||= Object.values(r.disruption.evaluation.nodes).some((n) => n.reasons.includes('Drifted'));
      if (drifted) expect(pool.allowed.Drifted).toBe(0);
    }
    expect(drifted, 'the nodes were Drifted candidates while paused').toBe(true);
    const first = await s.tick();
    expect(s.clock.now() - 10_000).toBe(UNTIL); // that tick was at the end itself
    expect(first.disruption.started?.method).toBe('Drift');

    const events = s.rt.events.list();
    const paused = events.find((e) => e.reason === 'DisruptionPaused');
    expect(paused).toMatchObject({ type: 'Normal', object: { kind: 'NodePool', name: 'default' } });
    expect(paused!.message).toMatch(/^Drifted paused by kpol pause until .*: rollout \[ConfigMap\/kpol-system\//);
    const invalid = events.find((e) => e.reason === 'PauseInvalid');
    // The broken pause names a pool the cluster does not have: no pool is paused by it, so no event either.
    expect(invalid).toBeUndefined();
  });

  it('an unreadable pause fails its pool closed with a Warning on the ConfigMap', async () => {
    const s = new Scenario(
      [
        makeNodePool('default', { consolidateAfter: 'Never' }),
        replicaSet('a', 2, { cpu: '3' }),
        pauseOf('kpol-pause-broken', { reasons: 'Drift', until: new Date(UNTIL).toISOString() }),
      ],
      policies('policy p for nodepool default {\n  consolidate never\n  budget 1 for Drifted\n}\n'),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 2, 10 * 60_000)).toBe(true);
    await s.rt.cluster.patch(
      { kind: 'NodePool', name: 'default' },
      { spec: { template: { metadata: { labels: { team: 'platform' } } } } },
    );
    // Past the pause's `until`: an unreadable pause has no end, it holds until it is fixed.
    for (let t = 0; t < 60; t++) expect((await s.tick(60_000)).disruption.started).toBeUndefined();
    const last = s.history.at(-1)!.disruption.evaluation.nodePools.default!;
    expect(last.errors).toEqual([
      'ConfigMap/kpol-system/kpol-pause-broken: reasons: unknown reason "Drift" (did you mean Drifted?); ' +
        'one of Empty, Drifted, Underutilized, Expired',
    ]);
    const invalid = s.rt.events.list().find((e) => e.reason === 'PauseInvalid');
    expect(invalid).toMatchObject({
      type: 'Warning',
      object: { kind: 'ConfigMap', namespace: 'kpol-system', name: 'kpol-pause-broken' },
    });
    expect(invalid!.message).toMatch(
      /^paused \(fail closed, every reason\): ConfigMap\/kpol-system\/kpol-pause-broken: /,
    );
  });
});
