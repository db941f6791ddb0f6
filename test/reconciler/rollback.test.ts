// SPDX-License-Identifier: Apache-2.0
// Rollback when a replacement fails (KARPENTER.md#commands steps 5–6): a drift command whose
// replacement NodeClaim disappears (insufficient capacity, or a launch that keeps failing until
// the launch timeout deletes it) is unrecoverable — the candidate's taint comes off, its
// DisruptionReason is cleared, it is unmarked, it is never deleted and its pods never move —
// and a later attempt succeeds once the cloud launches again.
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/core/observe/logger.js';
import { CloudError } from '../../src/world/cloud/provider.js';
import { TAINT_DISRUPTED, type Node, type NodeClaim } from '../../src/core/cluster/types.js';
import { Scenario, policies, pool, replicaSet } from './scenario.js';

function captureLog(): { logger: Logger; lines: { msg: string; fields: Record<string, unknown> }[] } {
  const lines: { msg: string; fields: Record<string, unknown> }[] = [];
  const logger: Logger = {
    debug: () => {},
    warn: () => {},
    error: () => {},
    info: (msg, fields = {}) => void lines.push({ msg, fields }),
    child: () => logger,
  };
  return { logger, lines };
}

const hasTaint = (n: Node | undefined) => (n?.spec.taints ?? []).some((t) => t.key === TAINT_DISRUPTED);
const reasonOf = (nc: NodeClaim | undefined) => nc?.status?.conditions?.find((c) => c.type === 'DisruptionReason');

async function setup(): Promise<{
  s: Scenario;
  log: ReturnType<typeof captureLog>;
  node: string;
  nodeClaim: string;
  pods: string[];
}> {
  const log = captureLog();
  const s = new Scenario(
    [pool('default', ['m5.xlarge']), replicaSet('web', 1, { cpu: '3' })],
    policies('policy p for nodepool default {\n  consolidate never\n  budget 1 for Drifted\n}\n'),
    { logger: log.logger },
  );
  expect(await s.until(async () => (await s.runningPods()).length === 1, 15 * 60_000)).toBe(true);
  const [nc] = await s.nodeClaims();
  const pods = (await s.runningPods()).map((p) => p.metadata.uid!);
  return { s, log, node: nc.status!.nodeName!, nodeClaim: nc.metadata.name, pods };
}

/** Ticks until the queue abandons a command; checks the candidate is never deleted meanwhile. */
async function untilRollback(
  s: Scenario,
  log: ReturnType<typeof captureLog>,
  nodeClaim: string,
  pods: string[],
  maxMs: number,
): Promise<string> {
  let why = '';
  const ok = await s.until(
    () => {
      const hit = log.lines.find((l) => l.msg === 'abandoning disruption command');
      if (hit) why = String(hit.fields.reason);
      return hit !== undefined;
    },
    maxMs,
    10_000,
    async () => {
      const nc = await s.rt.cluster.get<NodeClaim>({ kind: 'NodeClaim', name: nodeClaim });
      expect(nc?.metadata.deletionTimestamp).toBeUndefined();
      expect((await s.runningPods()).map((p) => p.metadata.uid)).toEqual(pods);
    },
  );
  expect(ok).toBe(true);
  return why;
}

async function expectRolledBack(s: Scenario, node: string, nodeClaim: string, pods: string[]): Promise<void> {
  const n = await s.rt.cluster.get<Node>({ kind: 'Node', name: node });
  const nc = await s.rt.cluster.get<NodeClaim>({ kind: 'NodeClaim', name: nodeClaim });
  expect(n?.metadata.deletionTimestamp).toBeUndefined();
  expect(nc?.metadata.deletionTimestamp).toBeUndefined();
  expect(hasTaint(n)).toBe(false);
  expect(reasonOf(nc)).toBeUndefined();
  expect(s.rt.state.commands.size).toBe(0);
  expect(s.rt.state.marked.has(nc!.status!.providerID!)).toBe(false);
  // No pod lost: the same pod, still Running on the same node.
  const running = await s.runningPods();
  expect(running.map((p) => p.metadata.uid)).toEqual(pods);
  expect(running[0].spec.nodeName).toBe(node);
}

async function expectDriftCompletes(s: Scenario, nodeClaim: string): Promise<void> {
  expect(
    await s.until(async () => {
      const ncs = await s.nodeClaims();
      return (
        !ncs.some((nc) => nc.metadata.name === nodeClaim) && ncs.length === 1 && (await s.runningPods()).length === 1
      );
    }, 60 * 60_000),
  ).toBe(true);
  expect(s.rt.cloud.orphans(await s.nodeClaims())).toEqual([]);
  const nodes = await s.nodes();
  expect(nodes).toHaveLength(1);
  expect(hasTaint(nodes[0])).toBe(false);
}

describe('rollback when the replacement fails', () => {
  it('insufficient capacity for the replacement: rolled back at once, retried, then succeeds', async () => {
    const { s, log, node, nodeClaim, pods } = await setup();
    // The next launch — the drift replacement — hits insufficient capacity; the agent deletes
    // the NodeClaim at once (Karpenter's launch controller does the same).
    s.rt.cloud.failNextCreates(1, new CloudError('InsufficientInstanceCapacity: simulated', true));
    await s.rt.cluster.patch(
      { kind: 'NodePool', name: 'default' },
      { spec: { template: { metadata: { labels: { rev: '2' } } } } },
    );

    // The command starts: candidate tainted, DisruptionReason=Drifted, one replacement launched.
    expect(await s.until(() => s.rt.state.commands.size > 0, 5 * 60_000)).toBe(true);
    const [cmd] = [...s.rt.state.commands.values()];
    expect(cmd.candidates.map((c) => c.nodeClaim)).toEqual([nodeClaim]);
    expect(cmd.launched).toHaveLength(1);
    expect(hasTaint(await s.rt.cluster.get<Node>({ kind: 'Node', name: node }))).toBe(true);
    expect(reasonOf(await s.rt.cluster.get<NodeClaim>({ kind: 'NodeClaim', name: nodeClaim }))?.reason).toBe('Drifted');

    const why = await untilRollback(s, log, nodeClaim, pods, 5 * 60_000);
    expect(why).toBe('replacement was deleted');
    expect(s.rt.events.list({ reason: 'InsufficientCapacityError', name: cmd.launched[0] })).toHaveLength(1);
    await expectRolledBack(s, node, nodeClaim, pods);
    // An unrecoverable command counts its uninitialized replacements (KARPENTER.md#commands step 6).
    expect(
      s.rt.metrics.value('karpenter_voluntary_disruption_queue_failures_total', {
        decision: 'replace',
        reason: 'drifted',
        consolidation_type: 'replace',
      }),
    ).toBe(1);

    // The cloud works again: the next loop drifts the node for real.
    await expectDriftCompletes(s, nodeClaim);
    const drifts = s.history.map((h) => h.disruption.started).filter((c) => c?.method === 'Drift');
    expect(drifts).toHaveLength(2);
  });

  it(
    'a replacement that keeps failing to launch is deleted after the 5 min launch timeout and ' +
      'the command rolled back',
    async () => {
      const { s, log, node, nodeClaim, pods } = await setup();
      const failing = new CloudError('simulated launch failure');
      s.rt.cloud.failCreatesWhen((nc) =>
        nc.metadata.annotations?.['kpol.dev/creation-reason'] === 'drifted' ? failing : undefined,
      );
      await s.rt.cluster.patch(
        { kind: 'NodePool', name: 'default' },
        { spec: { template: { metadata: { labels: { rev: '2' } } } } },
      );
      expect(await s.until(() => s.rt.state.commands.size > 0, 5 * 60_000)).toBe(true);
      const startedAt = s.clock.now();
      const [cmd] = [...s.rt.state.commands.values()];

      const why = await untilRollback(s, log, nodeClaim, pods, 15 * 60_000);
      expect(why).toBe('replacement was deleted');
      // Launched=False for LaunchTimeout (5 min) before the NodeClaim goes.
      expect(s.clock.now() - startedAt).toBeGreaterThanOrEqual(5 * 60_000);
      expect(s.clock.now() - startedAt).toBeLessThan(7 * 60_000);
      expect(await s.rt.cluster.get<NodeClaim>({ kind: 'NodeClaim', name: cmd.launched[0] })).toBeUndefined();
      await expectRolledBack(s, node, nodeClaim, pods);
      expect(
        s.rt.metrics.value('karpenter_voluntary_disruption_queue_failures_total', {
          decision: 'replace',
          reason: 'drifted',
          consolidation_type: 'replace',
        }),
      ).toBe(1);

      s.rt.cloud.failCreatesWhen(undefined);
      await expectDriftCompletes(s, nodeClaim);
    },
  );
});
