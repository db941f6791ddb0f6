// SPDX-License-Identifier: Apache-2.0
// Govern mode and `kpol pause`: a pause ConfigMap in the cluster makes the governor write a
// budget of 0 for the paused reasons into the paused NodePool (and only that one), and the
// policy's own budgets come back on the first tick after the pause ends, with nobody deleting it.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { ConfigMap, KubeObject, NodePool } from '../../src/core/cluster/types.js';
import { Governor } from '../../src/control/govern/governor.js';
import { LABEL_PAUSE } from '../../src/core/facts/pauses.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { createLogger } from '../../src/core/observe/logger.js';
import { RecordingClient } from '../deploy/api-inventory.js';
import { makeNodeClaimAndNode, makeNodePool } from '../support/cluster-builder.js';

const T0 = Date.parse('2026-08-21T10:00:00Z');
const POLICY = 'policy p for nodepool web, batch {\n  budget 3\n}\n';

const pause: ConfigMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'kpol-pause-web', namespace: 'kpol-system', labels: { [LABEL_PAUSE]: 'true' } },
  data: { nodepools: 'web', reasons: 'Drifted', until: '2026-08-21T10:30:00Z', note: 'rollout' },
};

describe('govern mode with a pause', () => {
  it('writes 0 for the paused reason into the paused pool until the pause ends', async () => {
    const clock = new FakeClock(T0);
    const objects: KubeObject[] = [makeNodePool('web'), makeNodePool('batch'), pause];
    for (const pool of ['web', 'batch']) {
      const { nodeClaim, node } = makeNodeClaimAndNode(pool, 0);
      objects.push(nodeClaim, node);
    }
    const cluster = new MemoryCluster(clock, objects);
    const governor = new Governor({
      client: new RecordingClient(cluster), // server-side apply over the in-memory API server
      clock,
      logger: createLogger({ clock, sink: () => {} }),
      failClosedAfterMs: 120_000,
      dryRun: false,
    });
    governor.policies = loadPolicies([{ fileName: 'p.kpol', text: POLICY }]).policies;
    const budgetsOf = async (name: string) =>
      (await cluster.get<NodePool>({ kind: 'NodePool', name }))!.spec.disruption!.budgets!.filter((b) => !b.schedule);

    const tick = await governor.tick();
    expect(tick.evaluation.nodePools.web!.paused?.[0]?.note).toBe('rollout');
    expect(tick.failures).toEqual([]);
    expect(await budgetsOf('web')).toEqual([
      { nodes: '3', reasons: ['Empty', 'Underutilized'] },
      { nodes: '0', reasons: ['Drifted'] },
    ]);
    expect(await budgetsOf('batch')).toEqual([{ nodes: '3', reasons: ['Empty', 'Drifted', 'Underutilized'] }]);
    expect(governor.events.list().find((e) => e.reason === 'DisruptionPaused')).toMatchObject({
      object: { kind: 'NodePool', name: 'web' },
      message: expect.stringMatching(/^Drifted paused by kpol pause until 2026-08-21T10:30:00Z: rollout/),
    });

    clock.set(Date.parse('2026-08-21T10:30:00Z'));
    await governor.tick();
    expect(await budgetsOf('web')).toEqual([{ nodes: '3', reasons: ['Empty', 'Drifted', 'Underutilized'] }]);
    // The pause ended by the clock alone: its ConfigMap is still there.
    expect(await cluster.get({ kind: 'ConfigMap', name: 'kpol-pause-web', namespace: 'kpol-system' })).toBeDefined();
  });

  it(
    'a pool no policy governs gets its own settings plus 0 for the paused reasons, and them ' + 'alone back after',
    async () => {
      const clock = new FakeClock(T0);
      const solo = makeNodePool('solo', { budgets: [{ nodes: '2' }] });
      const plain = makeNodePool('plain'); // no budgets: Karpenter's 10% default
      const all: ConfigMap = {
        ...pause,
        metadata: { ...pause.metadata, name: 'kpol-pause-all' },
        data: { reasons: 'Drifted', until: '2026-08-21T10:30:00Z' },
      };
      const cluster = new MemoryCluster(clock, [solo, plain, all]);
      const governor = new Governor({
        client: new RecordingClient(cluster),
        clock,
        logger: createLogger({ clock, sink: () => {} }),
        failClosedAfterMs: 120_000,
        dryRun: false,
      });
      governor.policies = [];
      const poolOf = async (name: string) => (await cluster.get<NodePool>({ kind: 'NodePool', name }))!;

      const plainBefore = (await poolOf('plain')).spec.disruption?.budgets; // the API server's default, if any
      expect((await governor.tick()).failures).toEqual([]);
      expect((await poolOf('solo')).spec.disruption?.budgets).toEqual([
        { nodes: '2' },
        { nodes: '0', reasons: ['Drifted'] },
      ]);
      expect((await poolOf('solo')).metadata.annotations?.['kpol.dev/governed-by']).toBe('kpol-pause');
      expect((await poolOf('plain')).spec.disruption?.budgets).toEqual([
        { nodes: '10%' },
        { nodes: '0', reasons: ['Drifted'] },
      ]);
      // A second tick while paused writes nothing new (the pool already holds it).
      expect((await governor.tick()).writes).toEqual([]);

      clock.set(Date.parse('2026-08-21T10:30:00Z'));
      await governor.tick();
      expect((await poolOf('solo')).spec.disruption?.budgets).toEqual([{ nodes: '2' }]);
      expect((await poolOf('solo')).metadata.annotations?.['kpol.dev/governed-by']).toBeUndefined();
      expect((await poolOf('plain')).spec.disruption?.budgets).toEqual(plainBefore);
    },
  );
});
