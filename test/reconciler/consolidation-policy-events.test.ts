// SPDX-License-Identifier: Apache-2.0
// WhenEmpty vs WhenEmptyOrUnderutilized vs consolidation disabled (KARPENTER.md#method-filters,
// KARPENTER.md#events-and-metrics): the
// blocked codes in the evaluation and the `Unconsolidatable` events on Node and NodeClaim, worded
// as Karpenter words them and deduplicated for 15 minutes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SimulationPass } from '../../src/control/reconciler/simulation-pass.js';
import { Scenario, policies, pool, replicaSet } from './scenario.js';
import { makeNodePool } from '../support/cluster-builder.js';
import { DEFAULT_DEDUPE_MS } from '../../src/core/observe/event-reasons.js';

const WHEN_EMPTY = 'NodePool "default" has consolidation policy WhenEmpty, but node is not empty';
const DISABLED = 'NodePool "default" has consolidation disabled';

async function busyNode(s: Scenario): Promise<{ node: string; claim: string }> {
  expect(await s.until(async () => (await s.runningPods()).length === 2, 15 * 60_000)).toBe(true);
  const [nc] = await s.nodeClaims();
  return { node: nc.status!.nodeName!, claim: nc.metadata.name };
}

const messages = (s: Scenario, kind: string, name: string) =>
  s.rt.events.list({ reason: 'Unconsolidatable', kind, name }).map((e) => e.message);

describe('consolidation policy: codes and events', () => {
  it(
    "WhenEmpty: a busy node is Unconsolidatable with Karpenter's words (every 15 min), an " +
      'emptied node is deleted as Empty',
    async () => {
      const s = new Scenario(
        [pool('default', ['m5.xlarge']), replicaSet('web', 2, { cpu: '1' })],
        policies('policy p for nodepool default {\n  consolidate when empty after 0s\n}\n'),
      );
      const { node, claim } = await busyNode(s);
      const t0 = s.clock.now();
      await s.until(() => false, 20 * 60_000);
      const ev = s.history.at(-1)!.disruption.evaluation.nodes[node];
      expect(ev.reasons).toEqual([]);
      expect(ev.blocked).toEqual([{ code: 'ConsolidationPolicyWhenEmpty', message: WHEN_EMPTY }]);
      // Repeated every loop, recorded once per 15 minutes (the first repeat after the window).
      const onNode = s.rt.events.list({ reason: 'Unconsolidatable', kind: 'Node', name: node });
      expect(onNode.map((e) => e.message)).toEqual([WHEN_EMPTY, WHEN_EMPTY]);
      // The first loop after the pods were placed: until then the node is nominated for them (no candidate, no event).
      expect(onNode[0].at).toBeLessThanOrEqual(t0);
      expect(onNode[1].at - onNode[0].at).toBeGreaterThan(15 * 60_000);
      expect(onNode[1].at - onNode[0].at).toBeLessThanOrEqual(15 * 60_000 + 10_000);
      expect(messages(s, 'NodeClaim', claim).filter((m) => m === WHEN_EMPTY).length).toBeGreaterThanOrEqual(2);
      expect(s.history.some((h) => h.disruption.started || h.disruption.waitingValidation)).toBe(false);

      await s.rt.cluster.patch({ kind: 'ReplicaSet', name: 'web', namespace: 'default' }, { spec: { replicas: 0 } });
      expect(await s.until(async () => (await s.nodeClaims()).length === 0, 10 * 60_000)).toBe(true);
      const started = s.history.map((h) => h.disruption.started).filter(Boolean);
      expect(started.map((c) => [c!.method, c!.reason, c!.consolidationType])).toEqual([
        ['Emptiness', 'Empty', 'empty'],
      ]);
      expect(
        s.rt.events
          .list({ reason: 'DisruptionTerminating' })
          .map((e) => `${e.object.kind} ${e.message}`)
          .sort(),
      ).toEqual(['Node Disrupting Node: Empty', 'NodeClaim Disrupting NodeClaim: Empty']);
      expect(
        s.rt.metrics.value('karpenter_voluntary_disruption_decisions_total', {
          decision: 'delete',
          reason: 'empty',
          consolidation_type: 'empty',
        }),
      ).toBe(1);
    },
  );

  it(
    'WhenEmptyOrUnderutilized: the busy node is an Underutilized candidate; no cheaper ' +
      'replacement → "Can\'t replace with a cheaper node"',
    async () => {
      const s = new Scenario(
        [pool('default', ['m5.xlarge']), replicaSet('web', 2, { cpu: '1' })],
        policies('policy p for nodepool default {\n  consolidate when empty or underutilized after 0s\n}\n'),
      );
      const { node, claim } = await busyNode(s);
      await s.until(() => false, 10 * 60_000);
      const ev = s.history.at(-1)!.disruption.evaluation.nodes[node];
      expect(ev.reasons).toEqual(['Underutilized']);
      expect(ev.blocked).toEqual([]);
      expect(messages(s, 'Node', node)).toEqual(["Can't replace with a cheaper node"]);
      expect(messages(s, 'NodeClaim', claim)).toEqual(["Can't replace with a cheaper node"]);
      expect(s.history.some((h) => h.disruption.started)).toBe(false);
    },
  );

  it('consolidate never: empty and busy nodes are both held with "has consolidation disabled"', async () => {
    const s = new Scenario(
      [pool('default', ['m5.xlarge']), replicaSet('web', 1, { cpu: '3' }), replicaSet('gone', 1, { cpu: '3' })],
      policies('policy p for nodepool default {\n  consolidate never\n}\n'),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 2, 15 * 60_000)).toBe(true);
    await s.rt.cluster.patch({ kind: 'ReplicaSet', name: 'gone', namespace: 'default' }, { spec: { replicas: 0 } });
    await s.until(() => false, 30 * 60_000);
    const nodes = await s.nodes();
    expect(nodes).toHaveLength(2);
    const ev = s.history.at(-1)!.disruption.evaluation;
    const byReason = (n: string) => ev.nodes[n].blocked;
    for (const n of nodes) {
      expect(ev.nodes[n.metadata.name].reasons).toEqual([]);
      expect(byReason(n.metadata.name)).toEqual([{ code: 'ConsolidationDisabled', message: DISABLED }]);
      expect(new Set(messages(s, 'Node', n.metadata.name))).toEqual(new Set([DISABLED]));
    }
    for (const nc of await s.nodeClaims())
      expect(new Set(messages(s, 'NodeClaim', nc.metadata.name))).toEqual(new Set([DISABLED]));
    expect(s.history.some((h) => h.disruption.started || h.disruption.waitingValidation)).toBe(false);
    expect(s.rt.metrics.value('karpenter_voluntary_disruption_eligible_nodes', { reason: 'empty' })).toBe(0);
  });
});

describe('DisruptionBlocked events (KARPENTER.md#candidates)', () => {
  it("a do-not-disrupt pod blocks its node with Karpenter's message, on Node and NodeClaim", async () => {
    const s = new Scenario(
      [
        pool('default', ['m5.large']),
        replicaSet('batch', 1, { cpu: '1', annotations: { 'karpenter.sh/do-not-disrupt': 'true' } }),
      ],
      policies('policy p for nodepool default {\n  consolidate when empty or underutilized after 0s\n}\n'),
    );
    await s.until(async () => (await s.runningPods()).length === 1, 10 * 60_000);
    await s.tick();
    const pod = (await s.runningPods())[0];
    const node = (await s.nodes())[0];
    const msg = `Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/${pod.metadata.name})`;
    const blocked = () => s.rt.events.list({ reason: 'DisruptionBlocked' });
    // The node was blocked first as nominated for the pending pod. Karpenter keys DisruptionBlocked
    // on the object's UID alone, so the new message is a repeat until that event's window ends.
    expect(await s.until(() => blocked().filter((e) => e.message === msg).length === 2, 3 * 60_000)).toBe(true);
    const onNode = blocked().filter((e) => e.object.kind === 'Node');
    expect(onNode.map((e) => e.message)).toEqual(['Node is nominated for a pending pod', msg]);
    expect(onNode[1].at - onNode[0].at).toBeGreaterThan(DEFAULT_DEDUPE_MS);
    expect(
      blocked()
        .filter((e) => e.message === msg)
        .map((e) => e.object.kind)
        .sort(),
    ).toEqual(['Node', 'NodeClaim']);
    expect(onNode[0].object.name).toBe(node.metadata.name);
  });
});

describe('single-node consolidation of a spot node (spot-to-spot off)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("stops its simulation at the first new claim, but records the whole run's words", async () => {
    // Two 6-CPU pods share a 16-vCPU spot node; then the pool allows only 8-vCPU types (its drift
    // budget is 0): moving the pods takes two new claims. A run that stops at the first claim
    // knows it is no move, not that it would take two.
    const s = new Scenario(
      [pool('default', ['m5.4xlarge'], { capacityType: ['spot'] }), replicaSet('big', 2, { cpu: '6' })],
      policies(
        'policy p for nodepool default {\n' +
          '  consolidate when empty or underutilized after 0s\n  budget 0 for Drifted\n}\n',
      ),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 2, 10 * 60_000)).toBe(true);
    expect(await s.nodes()).toHaveLength(1);
    await s.rt.cluster.patch(
      { kind: 'NodePool', name: 'default' },
      {
        spec: {
          template: {
            spec: {
              requirements: [
                { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] },
                { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.2xlarge'] },
              ],
            },
          },
        },
      },
    );
    // The whole runs (not stopped at spot): the recorded words, found once for the Node's and the NodeClaim's event.
    const simulate = SimulationPass.prototype.simulate;
    let whole = 0;
    vi.spyOn(SimulationPass.prototype, 'simulate').mockImplementation(function (this: SimulationPass, c, on, enough) {
      if (!enough?.spotOnly) whole++;
      return simulate.call(this, c, on, enough);
    });
    await s.until(() => false, 3 * 60_000);
    expect(whole).toBe(1);
    const words = s.rt.events.list({ reason: 'Unconsolidatable' }).map((e) => [e.object.kind, e.message]);
    expect(words).toContainEqual(['Node', "Can't remove without creating 2 candidates"]);
    expect(words).toContainEqual(['NodeClaim', "Can't remove without creating 2 candidates"]);
    expect(words.map(([, m]) => m)).not.toContain(
      "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
    );
  });
});

describe('single-node consolidation of a node whose pods fit nowhere', () => {
  it("stops its simulation at the first pod, but records Karpenter's whole sentence", async () => {
    const np = makeNodePool('default', { consolidateAfter: '0s' });
    np.spec.template!.metadata = { labels: { team: 'a' } };
    const s = new Scenario(
      [np, replicaSet('web', 7, { cpu: '100m', nodeSelector: { team: 'a' } })],
      policies(
        'policy p for nodepool default {\n' +
          '  consolidate when empty or underutilized after 0s\n  budget 0 for Drifted\n}\n',
      ),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 7, 10 * 60_000)).toBe(true);
    expect(await s.nodes()).toHaveLength(1);
    // New nodes would be team=b: none could take the pods.
    await s.rt.cluster.patch(
      { kind: 'NodePool', name: 'default' },
      { spec: { template: { metadata: { labels: { team: 'b' } } } } },
    );
    await s.until(() => false, 2 * 60_000);
    const words = s.rt.events
      .list({ reason: 'Unconsolidatable' })
      .filter((e) => e.message.startsWith('Not all pods'))
      .map((e) => [e.object.kind, e.message]);
    const sentence = /^Not all pods would schedule, (default\/web-\S+ => [^=]+ ){5} and 2 other\(s\)$/;
    expect(words.map(([kind]) => kind)).toEqual(['Node', 'NodeClaim']);
    for (const [, message] of words) expect(message).toMatch(sentence);
  });
});
