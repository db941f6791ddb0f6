// SPDX-License-Identifier: Apache-2.0
// Govern mode with a rate budget (rules/README §3.6.1): Karpenter starts the disruptions, so each
// tick kpol records the starts it sees on NodeClaims (DisruptionReason) in the NodePool's
// annotation and writes, for the rated reason, the count the rate leaves. A restarted governor
// (a new process: nothing in memory) still counts a start whose NodeClaim is gone, and the
// budget rises again once the start leaves its window. The governor only lists, watches and
// patches NodePools, as its role allows (deploy/20-rbac.yaml), and hands a pool back without its record.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { DISRUPTION_STARTS_ANNOTATION, parseStarts } from '../../src/core/cluster/disruption-starts.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { KubeObject, NodeClaim, NodePool } from '../../src/core/cluster/types.js';
import { Governor } from '../../src/control/govern/governor.js';
import { createLogger } from '../../src/core/observe/logger.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { RecordingClient } from '../deploy/api-inventory.js';
import { makeNodeClaimAndNode, makeNodePool } from '../support/cluster-builder.js';

const T0 = Date.parse('2026-08-21T10:00:00Z');
const POLICY = 'policy p for nodepool default {\n  budget 3\n  budget 2 per 1h for Drifted\n}\n';
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

describe('govern mode with a rate budget', () => {
  it('records the starts Karpenter makes and lowers the written Drifted budget as the rate is used', async () => {
    const clock = new FakeClock(T0);
    const objects: KubeObject[] = [makeNodePool('default')];
    for (let i = 0; i < 4; i++) {
      const { nodeClaim, node } = makeNodeClaimAndNode('default', i, { drifted: true });
      objects.push(nodeClaim, node);
    }
    const raw = new MemoryCluster(clock, objects);
    const client = new RecordingClient(raw);
    const governor = () => {
      const g = new Governor({
        client,
        clock,
        logger: createLogger({ clock, sink: () => {} }),
        failClosedAfterMs: 120_000,
        dryRun: false,
      });
      g.policies = loadPolicies([{ fileName: 'p.kpol', text: POLICY }]).policies;
      return g;
    };
    const pool = async () => (await raw.get<NodePool>({ kind: 'NodePool', name: 'default' }))!;
    const drifted = async () =>
      (await pool()).spec.disruption?.budgets?.find((b) => !b.schedule && b.reasons?.includes('Drifted'))?.nodes;
    // Karpenter starts a drift: the NodeClaim's DisruptionReason condition.
    const disrupt = async (name: string, atMs: number) => {
      const nc = (await raw.get<NodeClaim>({ kind: 'NodeClaim', name }))!;
      const conditions = [
        ...(nc.status?.conditions ?? []),
        { type: 'DisruptionReason', status: 'True', reason: 'Drifted', lastTransitionTime: iso(atMs) },
      ];
      await raw.patch({ kind: 'NodeClaim', name }, { status: { conditions } });
    };

    const first = governor();
    await first.tick();
    expect(await drifted()).toBe('2');
    await disrupt('default-aaaa0', T0 - 10 * 60_000);
    clock.advance(1000);
    await first.tick();
    expect(await drifted()).toBe('1');
    expect(parseStarts((await pool()).metadata.annotations?.[DISRUPTION_STARTS_ANNOTATION])).toEqual({
      starts: [{ nodeClaim: 'default-aaaa0', reason: 'Drifted', atMs: T0 - 10 * 60_000 }],
    });

    // Karpenter finishes: the NodeClaim is gone. A new governor process still counts its start.
    await raw.patch({ kind: 'NodeClaim', name: 'default-aaaa0' }, { metadata: { finalizers: null } });
    await raw.delete({ kind: 'NodeClaim', name: 'default-aaaa0' });
    expect(await raw.get({ kind: 'NodeClaim', name: 'default-aaaa0' })).toBeUndefined();
    const restarted = governor();
    clock.advance(1000);
    await restarted.tick();
    expect(await drifted()).toBe('1');
    await disrupt('default-aaaa1', T0 + 2000);
    clock.advance(1000);
    await restarted.tick();
    expect(await drifted()).toBe('0');

    // 50 minutes after the first start it leaves the hour; the second still counts.
    clock.advance(T0 + 50 * 60_000 - clock.now());
    await restarted.tick();
    expect(await drifted()).toBe('1');
    // The governor never read a NodePool by name: list, watch and patch only.
    const verbs = [...client.requests.values()].filter((r) => r.resource === 'nodepools').map((r) => r.verb);
    expect(verbs).not.toContain('get');
    expect(verbs).toContain('patch');

    // No policy governs the pool any more: it is handed back without any kpol.dev/ annotation, the record too.
    restarted.policies = [];
    clock.advance(1000);
    await restarted.tick();
    expect(Object.keys((await pool()).metadata.annotations ?? {}).filter((k) => k.startsWith('kpol.dev/'))).toEqual([]);
  });
});
