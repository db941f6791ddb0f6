// SPDX-License-Identifier: Apache-2.0
// Karpenter's consolidation events (KARPENTER.md#events-and-metrics): `ConsolidationCandidate` for
// every command computeConsolidation finds and `ConsolidationRejected` when validation drops one,
// each on the candidate's Node and its NodeClaim, named as Karpenter names a command before it has
// an ID, with the estimated savings; deduplicated on the object and command, not the message.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { EventLog } from '../../src/core/observe/event-log.js';
import { consolidationCandidate } from '../../src/core/observe/event-reasons.js';
import { commandForNode, estimatedSavings } from '../../src/control/reconciler/methods/command.js';
import type { Command } from '../../src/control/reconciler/methods/command.js';
import type { Pod } from '../../src/core/cluster/types.js';
import { Scenario, policies, pool, replicaSet } from './scenario.js';

const CANDIDATE =
  /^Consolidation candidate: (delete|replace): \[([^\]]+)\]( -> \[1 replacement\])? \(savings: \$\d+\.\d\d\)$/;

/** On-demand nodes (a spot node is not replaced by spot) running 6 pods, then 1: a command is computed. */
async function commandWaiting(s: Scenario): Promise<Command> {
  expect(await s.until(async () => (await s.runningPods()).length === 6, 15 * 60_000)).toBe(true);
  await s.rt.cluster.patch({ kind: 'ReplicaSet', name: 'web', namespace: 'default' }, { spec: { replicas: 1 } });
  const waiting = () => s.history.at(-1)!.disruption.waitingValidation;
  expect(await s.until(() => waiting() !== undefined, 30 * 60_000, 5_000)).toBe(true);
  return waiting()!;
}

const scenario = () =>
  new Scenario(
    [
      pool('default', ['m5.large', 'm5.xlarge', 'm5.2xlarge', 'm5.4xlarge']),
      replicaSet('web', 6, { cpu: '2', memory: '2Gi' }),
    ],
    policies('policy p for nodepool default {\n  consolidate when empty or underutilized after 0s\n}\n'),
  );

describe('consolidation events', () => {
  it("names each command found on its candidates' Node and NodeClaim, with its savings", async () => {
    const s = scenario();
    const cmd = await commandWaiting(s);
    const savings = estimatedSavings(cmd.candidates, cmd.replacements);
    const events = s.rt.events.list({ reason: 'ConsolidationCandidate' });
    for (const c of cmd.candidates) {
      const command = commandForNode(cmd.candidates, cmd.replacements.length, c.node);
      const message = `Consolidation candidate: ${command} (savings: $${savings.toFixed(2)})`;
      expect(events.filter((e) => e.object.name === c.node).map((e) => [e.object.kind, e.message])).toContainEqual([
        'Node',
        message,
      ]);
      expect(events.filter((e) => e.object.name === c.nodeClaim).map((e) => [e.object.kind, e.message])).toContainEqual(
        ['NodeClaim', message],
      );
    }
    // Every one in Karpenter's words, and every Node's on its NodeClaim too.
    for (const e of events) {
      if (cmd.candidates.length === 1) expect(e.message).toMatch(CANDIDATE);
      expect(events.some((x) => x.object.kind !== e.object.kind && x.message === e.message)).toBe(true);
    }
  });

  it('records a command validation drops on its Node and NodeClaim, with the reason and savings', async () => {
    const s = scenario();
    const cmd = await commandWaiting(s);
    // While the command waits out its 15 s, its nodes' pods become do-not-disrupt: no longer candidates.
    for (const pod of await s.rt.cluster.list<Pod>('Pod', 'default'))
      if (cmd.candidates.some((c) => c.node === pod.spec.nodeName))
        await s.rt.cluster.patch(
          { kind: 'Pod', name: pod.metadata.name, namespace: 'default' },
          { metadata: { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } } },
        );
    expect(await s.until(() => s.rt.events.list({ reason: 'ConsolidationRejected' }).length > 0, 60_000, 5_000)).toBe(
      true,
    );
    const savings = estimatedSavings(cmd.candidates, cmd.replacements).toFixed(2);
    const rejected = s.rt.events
      .list({ reason: 'ConsolidationRejected' })
      .map((e) => [e.object.kind, e.object.name, e.message]);
    for (const c of cmd.candidates) {
      const command = commandForNode(cmd.candidates, cmd.replacements.length, c.node);
      const words = `Consolidation rejected: ${command}, reason: churn (savings: $${savings})`;
      expect(rejected).toContainEqual(['Node', c.node, words]);
      expect(rejected).toContainEqual(['NodeClaim', c.nodeClaim, words]);
    }
    expect(
      s.history.some((h) =>
        cmd.candidates.some((c) => h.disruption.started?.candidates.some((x) => x.node === c.node)),
      ),
    ).toBe(false);
  });

  it("words a command as Karpenter's Command.StringForNode does", () => {
    const one = [{ node: 'a' }];
    expect(commandForNode(one, 0, 'a')).toBe('delete: [a]');
    expect(commandForNode(one, 1, 'a')).toBe('replace: [a] -> [1 replacement]');
    expect(commandForNode([{ node: 'a' }, { node: 'b' }, { node: 'c' }], 1, 'b')).toBe(
      'replace: [b] (part of 3-node consolidation)',
    );
    expect(estimatedSavings([{ price: 0.5 }, { price: 0.25 }], [{ price: 0.3 }])).toBeCloseTo(0.45, 10);
  });

  it('keeps one event per object and command, whatever the savings say', () => {
    const log = new EventLog(new FakeClock(0));
    const node = { kind: 'Node', name: 'a', uid: 'u-1' };
    log.publish(consolidationCandidate(node, 'delete: [a]', 0.2));
    log.publish(consolidationCandidate(node, 'delete: [a]', 0.3));
    log.publish(consolidationCandidate(node, 'replace: [a] -> [1 replacement]', 0.1));
    expect(log.list({ reason: 'ConsolidationCandidate' }).map((e) => e.message)).toEqual([
      'Consolidation candidate: delete: [a] (savings: $0.20)',
      'Consolidation candidate: replace: [a] -> [1 replacement] (savings: $0.10)',
    ]);
  });
});
