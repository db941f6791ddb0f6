// SPDX-License-Identifier: Apache-2.0
// The shipped demo, unchanged, through simulated days: every drained node keeps the promise its
// NodeClaim makes ("All pods will be deleted by T"), even the node whose do-not-disrupt pods
// (the `reports` ReplicaSet) keep it from draining gracefully. The demo's pods leave out
// terminationGracePeriodSeconds; the API server defaults it to 30 s, so those pods are
// force-deleted from T − 30 s. Without that default the node stayed draining for days.
import { describe, expect, it } from 'vitest';
import type { Node, NodeClaim, Pod } from '../../src/core/cluster/types.js';
import { simulate } from '../../src/edge/simulate/simulated-run.js';
import { ANNOTATION_TERMINATION_TIMESTAMP } from '../../src/control/termination/names.js';
import { demoInputs } from './demo.js';

const STEP = 60_000;

interface Drained {
  deadline: number; // T, from the NodeClaim's termination-timestamp annotation
  doNotDisrupt: boolean; // held a do-not-disrupt pod when T was stamped
  podsDeletedAt?: number; // first tick after which every pod bound to it was deleting or gone
  goneAt?: number; // first tick after which the Node was gone
}

describe('the demo', () => {
  it(
    'deletes the pods of every drained node by its termination time, do-not-disrupt ones ' +
      'included, and the node goes with them',
    async () => {
      const drained = new Map<string, Drained>();
      await simulate({
        ...demoInputs(),
        // Monday: the workload drifts the default pool at 30 h, drift runs in the Berlin night (00:00 UTC
        // on Wednesday) and the policy's 24 h termination grace ends on Thursday.
        fromMs: Date.parse('2026-01-05T00:00:00Z'),
        forMs: 4 * 86_400_000,
        stepMs: STEP,
        async onTick(rt) {
          const now = rt.clock.now();
          const pods = await rt.cluster.list<Pod>('Pod');
          for (const nc of await rt.cluster.list<NodeClaim>('NodeClaim')) {
            const t = nc.metadata.annotations?.[ANNOTATION_TERMINATION_TIMESTAMP];
            const node = nc.status?.nodeName;
            if (t === undefined || node === undefined || drained.has(node)) continue;
            const doNotDisrupt = pods.some(
              (p) => p.spec.nodeName === node && p.metadata.annotations?.['karpenter.sh/do-not-disrupt'] === 'true',
            );
            drained.set(node, { deadline: Date.parse(t), doNotDisrupt });
          }
          const nodes = new Set((await rt.cluster.list<Node>('Node')).map((n) => n.metadata.name));
          for (const [name, d] of drained) {
            if (
              d.podsDeletedAt === undefined &&
              pods.every((p) => p.spec.nodeName !== name || p.metadata.deletionTimestamp !== undefined)
            )
              d.podsDeletedAt = now;
            if (d.goneAt === undefined && !nodes.has(name)) d.goneAt = now;
          }
        },
      });
      const stuck = [...drained].filter(([, d]) => d.doNotDisrupt);
      expect(stuck.map(([name]) => name)).toEqual(['i-00000000000000001']);
      for (const [name, d] of drained) {
        // The tick at or after T has asked for every pod's deletion (at T − 30 s, to the minute).
        expect({ name, podsDeletedByT: (d.podsDeletedAt ?? Infinity) < d.deadline + STEP }).toEqual({
          name,
          podsDeletedByT: true,
        });
        // Then the kubelet stops them and the node is released: two ticks at most.
        expect({ name, goneWithinTwoTicksOfT: (d.goneAt ?? Infinity) <= d.deadline + 2 * STEP }).toEqual({
          name,
          goneWithinTwoTicksOfT: true,
        });
      }
      // For the do-not-disrupt node that is the deadline itself: nothing else drained it.
      const [, held] = stuck[0];
      expect(held.podsDeletedAt).toBeGreaterThanOrEqual(held.deadline - 30_000);
    },
    300_000,
  );
});
