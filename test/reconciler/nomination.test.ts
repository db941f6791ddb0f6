// SPDX-License-Identifier: Apache-2.0
// Nominations (KARPENTER.md#candidates row 6, KARPENTER.md#validation, KARPENTER.md#commands): a node on which a
// provisioning pass or a
// starting command's simulation placed a pod is not a disruption candidate for 20 s (the
// rule graph's `nominated` fact), renewed on each nomination.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { KubeObject, NodePool } from '../../src/core/cluster/types.js';
import { NOMINATION_WINDOW_MS } from '../../src/control/reconciler/disruption-state.js';
import { Runtime } from '../../src/control/runtime/runtime.js';
import { makeNodeClaimAndNode, makeNodePool, makePod } from '../support/cluster-builder.js';
import { T0 } from './scenario.js';

const CREATED = '2026-11-23T11:00:00Z';

function onlyType(np: NodePool, type: string): NodePool {
  np.spec.template!.spec!.requirements = [
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
    { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [type] },
  ];
  return np;
}

describe('nominations', () => {
  it('is 20 s, as Karpenter computes it', () => {
    expect(NOMINATION_WINDOW_MS).toBe(20_000);
  });

  it('a node the provisioner placed a pending pod on is no candidate at t+19 s, and is again at t+21 s', async () => {
    const clock = new FakeClock(T0);
    // A drifted node that budgets keep (budget 0), so it stays a Drifted candidate throughout.
    const { nodeClaim, node } = makeNodeClaimAndNode('default', 0, { drifted: true, createdAt: CREATED });
    const objects: KubeObject[] = [
      makeNodePool('default', { consolidateAfter: '0s', budgets: [{ nodes: '0' }] }),
      nodeClaim,
      node,
    ];
    const rt = new Runtime({ clock, objects, policies: [] });
    const name = node.metadata.name;
    const verdict = async () => (await rt.tick()).disruption.evaluation.nodes[name];

    expect((await verdict()).reasons).toContain('Drifted');
    clock.advance(10_000);
    const t = clock.now();
    await rt.cluster.create(makePod('late', undefined, { requests: { cpu: '100m', memory: '128Mi' } }));
    const atBinding = await verdict();
    expect(
      (await rt.cluster.list<import('../../src/core/cluster/types.js').Pod>('Pod')).find(
        (p) => p.metadata.name === 'late',
      )?.spec.nodeName,
    ).toBe(name);
    expect(atBinding.reasons).toEqual([]);
    expect(atBinding.blocked[0]).toMatchObject({ code: 'Nominated', message: 'node is nominated for a pending pod' });

    clock.set(t + 19_000);
    const at19 = await verdict();
    expect(at19.reasons).toEqual([]);
    expect(at19.blocked.map((b) => b.code)).toContain('Nominated');

    clock.set(t + 21_000);
    const at21 = await verdict();
    expect(at21.reasons).toContain('Drifted');
    expect(at21.blocked.map((b) => b.code)).not.toContain('Nominated');
  });

  it('a starting consolidation command nominates the node its pods move to, for 20 s', async () => {
    const clock = new FakeClock(T0);
    const objects: KubeObject[] = [
      onlyType(makeNodePool('default', { consolidateAfter: '0s', budgets: [{ nodes: '100%' }] }), 'm5.large'),
    ];
    const names: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { nodeClaim, node } = makeNodeClaimAndNode('default', i, { createdAt: CREATED });
      objects.push(
        nodeClaim,
        node,
        makePod(`app-${i}`, node.metadata.name, { requests: { cpu: '100m', memory: '128Mi' } }),
      );
      names.push(node.metadata.name);
    }
    const rt = new Runtime({ clock, objects, policies: [] });
    let started: import('../../src/control/reconciler/methods/command.js').Command | undefined;
    for (let i = 0; i < 10 && !started; i++) {
      started = (await rt.tick()).disruption.started;
      if (!started) clock.advance(5_000);
    }
    expect(started?.method).toBe('SingleNodeConsolidation');
    const [gone] = started!.candidates.map((c) => c.node);
    const destination = names.find((n) => n !== gone)!;
    expect(started!.nominates).toEqual([destination]);
    const at = clock.now();

    clock.set(at + 10_000);
    const soon = (await rt.tick()).disruption.evaluation.nodes[destination];
    expect(soon.reasons).toEqual([]);
    expect(soon.blocked.map((b) => b.code)).toContain('Nominated');

    clock.set(at + 21_000);
    const later = (await rt.tick()).disruption.evaluation.nodes[destination];
    expect(later.blocked.map((b) => b.code)).not.toContain('Nominated');
  });

  it('validation drops a candidate nominated while the command waited', async () => {
    const clock = new FakeClock(T0);
    const objects: KubeObject[] = [makeNodePool('default', { consolidateAfter: '0s', budgets: [{ nodes: '100%' }] })];
    const names: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { nodeClaim, node } = makeNodeClaimAndNode('default', i, { createdAt: CREATED });
      objects.push(nodeClaim, node);
      names.push(node.metadata.name);
    }
    const rt = new Runtime({ clock, objects, policies: [] });
    const waiting = (await rt.tick()).disruption.waitingValidation;
    expect(waiting?.method).toBe('Emptiness');
    expect(waiting!.candidates.map((c) => c.node).sort()).toEqual([...names].sort());
    // A provisioning pass places a pod on the first node during the 15 s wait.
    clock.advance(10_000);
    rt.state.nominate([names[0]], clock.now());
    clock.advance(5_000);
    const { started } = (await rt.tick()).disruption;
    expect(started?.candidates.map((c) => c.node)).toEqual([names[1]]);
  });
});
