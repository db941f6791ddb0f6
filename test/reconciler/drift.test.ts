// SPDX-License-Identifier: Apache-2.0
// Drift (KARPENTER.md#drift, KARPENTER.md#drift-detection): a template change drifts every node; kpol replaces them
// within
// the budget, launching and initializing each replacement before its node is deleted.
import { describe, expect, it } from 'vitest';
import { makeNodePool } from '../support/cluster-builder.js';
import { Scenario, policies, replicaSet } from './scenario.js';
import { DEFAULT_DEDUPE_MS } from '../../src/core/observe/event-reasons.js';

describe('drift', () => {
  it('replaces drifted nodes one at a time (budget 1), replacement initialized before deletion', async () => {
    const s = new Scenario(
      [
        makeNodePool('default', { consolidateAfter: 'Never' }),
        replicaSet('a', 3, { cpu: '3' }),
        replicaSet('b', 3, { cpu: '3' }),
      ],
      policies('policy p for nodepool default {\n  consolidate never\n  budget 1 for Drifted\n}\n'),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 6, 10 * 60_000)).toBe(true);
    const original = new Set((await s.nodeClaims()).map((n) => n.metadata.name));
    expect(original.size).toBeGreaterThan(1);
    await s.rt.cluster.patch(
      { kind: 'NodePool', name: 'default' },
      { spec: { template: { metadata: { labels: { team: 'platform' } } } } },
    );
    let maxInFlight = 0;
    const done = await s.until(
      async () => {
        const ncs = await s.nodeClaims();
        return ncs.every((n) => !original.has(n.metadata.name)) && (await s.runningPods()).length === 6;
      },
      3 * 60 * 60_000,
      10_000,
      async () => {
        const ncs = await s.nodeClaims();
        const deleting = ncs.filter((n) => original.has(n.metadata.name) && n.metadata.deletionTimestamp).length;
        maxInFlight = Math.max(maxInFlight, deleting + s.rt.state.commands.size);
        // A command's node is deleted only once every replacement it launched is initialized.
        for (const cmd of s.rt.state.commands.values()) {
          for (const c of cmd.candidates) {
            const nc = ncs.find((n) => n.metadata.name === c.nodeClaim);
            if (nc?.metadata.deletionTimestamp) {
              for (const r of cmd.launched) {
                expect(
                  ncs
                    .find((n) => n.metadata.name === r)
                    ?.status?.conditions?.some((x) => x.type === 'Initialized' && x.status === 'True'),
                ).toBe(true);
              }
            }
          }
        }
      },
    );
    expect(done).toBe(true);
    expect(maxInFlight).toBeLessThanOrEqual(2);
    const drifts = s.history.filter((h) => h.disruption.started?.method === 'Drift');
    expect(drifts.length).toBeGreaterThanOrEqual(original.size);
    for (const d of drifts) expect(d.disruption.started!.candidates).toHaveLength(1);
  });
});

describe('drift blocked by the scheduling simulation', () => {
  it("publishes Karpenter's Blocked events on the Node and its NodeClaim, once per 2-minute window", async () => {
    const np = makeNodePool('default', { consolidateAfter: 'Never' });
    np.spec.template!.metadata = { labels: { team: 'a' } };
    const s = new Scenario(
      [np, replicaSet('web', 1, { cpu: '1', nodeSelector: { team: 'a' } })],
      policies('policy p for nodepool default {\n  consolidate never\n}\n'),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 1, 10 * 60_000)).toBe(true);
    const [claim] = await s.nodeClaims();
    // The template now labels nodes team=b: the node drifts, and no replacement could run its pod.
    await s.rt.cluster.patch(
      { kind: 'NodePool', name: 'default' },
      { spec: { template: { metadata: { labels: { team: 'b' } } } } },
    );
    await s.until(() => false, 5 * 60_000);
    const blocked = s.rt.events.list({ reason: 'DisruptionBlocked' }).filter((e) => /default\/web-/.test(e.message));
    const on = (kind: string) => blocked.filter((e) => e.object.kind === kind);
    expect(on('NodeClaim').map((e) => e.object.name)).toEqual(on('Node').map(() => claim.metadata.name));
    expect(on('NodeClaim').map((e) => e.at)).toEqual(on('Node').map((e) => e.at));
    // Tried every tick (10 s), recorded once per object per 2-minute window: 3 in 5 minutes.
    const at = on('Node').map((e) => e.at);
    expect(at).toHaveLength(3);
    for (let i = 1; i < at.length; i++) expect(at[i] - at[i - 1]).toBeGreaterThan(DEFAULT_DEDUPE_MS);
    expect((await s.nodeClaims()).map((n) => n.metadata.name)).toEqual([claim.metadata.name]);
  });

  it("words the block as Karpenter's sentence: five pods named, then how many others", async () => {
    const np = makeNodePool('default', { consolidateAfter: 'Never' });
    np.spec.template!.metadata = { labels: { team: 'a' } };
    const s = new Scenario(
      [np, replicaSet('web', 7, { cpu: '100m', nodeSelector: { team: 'a' } })],
      policies('policy p for nodepool default {\n  consolidate never\n}\n'),
    );
    expect(await s.until(async () => (await s.runningPods()).length === 7, 10 * 60_000)).toBe(true);
    expect(await s.nodes()).toHaveLength(1);
    await s.rt.cluster.patch(
      { kind: 'NodePool', name: 'default' },
      { spec: { template: { metadata: { labels: { team: 'b' } } } } },
    );
    await s.until(() => false, 60_000);
    const [blocked] = s.rt.events
      .list({ reason: 'DisruptionBlocked', kind: 'Node' })
      .filter((e) => e.message.startsWith('Not all pods'));
    expect(blocked?.message).toMatch(/^Not all pods would schedule, (default\/web-\S+ => [^=]+ ){5} and 2 other\(s\)$/);
  });
});
