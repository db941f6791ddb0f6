// SPDX-License-Identifier: Apache-2.0
// `kpol run --mode govern --dry-run`: every write govern mode would make is reported, with the
// fields it would change, and nothing is written — only reads reach the API server.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { KubeObject, NodePool } from '../../src/core/cluster/types.js';
import { Governor } from '../../src/control/govern/governor.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { createLogger } from '../../src/core/observe/logger.js';
import { RecordingClient } from '../deploy/api-inventory.js';
import { makeNodeClaimAndNode, makeNodePool, makePod } from '../support/cluster-builder.js';

const T0 = Date.parse('2026-08-21T10:00:00Z');
const POLICY = `policy p for nodepool default {
  allow 1 Drifted only during "0 2 * * *" for 1h in "Europe/Berlin"
  pods where app = "batch" disruptable only during "0 2 * * sat" for 6h
}
`;

async function run(dryRun: boolean) {
  const clock = new FakeClock(T0);
  const objects: KubeObject[] = [makeNodePool('default', { budgets: [{ nodes: '10%' }] })];
  const { nodeClaim, node } = makeNodeClaimAndNode('default', 0);
  objects.push(
    nodeClaim,
    node,
    makePod('batch-0', node.metadata.name, { labels: { app: 'batch' }, startTime: '2026-08-21T00:00:00Z' }),
  );
  const raw = new MemoryCluster(clock, objects);
  const rec = new RecordingClient(raw);
  const lines: Record<string, unknown>[] = [];
  const governor = new Governor({
    client: rec,
    clock,
    logger: createLogger({ clock, sink: (l) => lines.push(JSON.parse(l)) }),
    failClosedAfterMs: 120_000,
    dryRun,
  });
  governor.policies = loadPolicies([{ fileName: 'p.kpol', text: POLICY }]).policies;
  const tick = await governor.tick();
  const pool = (await raw.get<NodePool>({ kind: 'NodePool', name: 'default' }))!;
  return { tick, lines, pool, verbs: [...rec.requests.values()].map((r) => r.verb) };
}

describe('govern --dry-run', () => {
  it('reports the NodePool and node writes with their changes, and writes nothing', async () => {
    const dry = await run(true);
    expect(dry.tick.writes.map((w) => `${w.action} ${w.object.split('/')[0]}`)).toEqual([
      'govern NodePool',
      'hold Node',
    ]);
    expect(dry.tick.writes[0].changes['spec.disruption.budgets'].from).toEqual([{ nodes: '10%' }]);
    expect(dry.lines.filter((l) => l.msg === 'dry run: would write')).toHaveLength(2);
    expect(dry.pool.spec.disruption?.budgets).toEqual([{ nodes: '10%' }]);
    expect(dry.pool.metadata.annotations?.['kpol.dev/governed-by']).toBeUndefined();
    expect(new Set(dry.verbs)).toEqual(new Set(['list', 'watch']));
  });

  it('without it, the same tick writes both (the contrast that makes the test mean something)', async () => {
    const wet = await run(false);
    expect(wet.pool.metadata.annotations?.['kpol.dev/governed-by']).toBe('p');
    expect(wet.verbs).toContain('patch');
  });
});
