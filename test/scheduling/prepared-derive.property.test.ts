// SPDX-License-Identifier: Apache-2.0
// Property: a PreparedScheduling derived from an earlier one by the nodes that left and came
// (what the scheduling cache does when a drift tick retaints, marks or deletes a few machines)
// places pods exactly as one prepared from scratch over the new nodes and as the reference
// simulateScheduling. The pods are one per node and each fills a node, so the placements spell
// out the whole order of the slots: a slot missing, left over or merged in at the wrong place
// shows (on an uninitialized node, with its claim's name). Names repeat (a small alphabet), so
// the derivation's give-up path is taken too. Some nodes hold a pod whose anti-affinity keeps
// pods of one app away: the derived base must list those holders at their new places. Each base
// is run before the next is derived from it, so the next starts from its fitting lists (which
// slots fit each pod shape, as far as scanned): carried over, they must name the same slots at
// their new places and take in the nodes that came.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PreparedScheduling, SlotStore } from '../../src/world/scheduling/prepared.js';
import { simulateScheduling, type SchedulingResult, type SimNode } from '../../src/world/scheduling/simulate.js';
import { pod, simNode } from './builders.js';

const NAMES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];

// An uninitialized node's pod is reported with the node's claim: which of two nodes of one name took it shows.
const nodeArb = fc.record({
  name: fc.constantFrom(...NAMES),
  cpu: fc.constantFrom('1', '2'),
  initialized: fc.boolean(),
  // Holds a pod that keeps pods of app x off its host (required anti-affinity): the base's holders.
  holder: fc.boolean(),
});

const ANTI_X = {
  podAntiAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [
      { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'x' } } },
    ],
  },
};

/** The edits of one step: which places go (by number) and what comes, at which places. */
const stepArb = fc.record({
  drop: fc.array(fc.nat(), { maxLength: 3 }),
  add: fc.array(fc.record({ node: nodeArb, at: fc.nat() }), { maxLength: 3 }),
});

function plain(r: SchedulingResult): unknown {
  return {
    placements: [...r.placements].map(([p, at]) => [p.metadata.name, at]),
    errors: [...r.errors].map(([p, e]) => [p.metadata.name, e]),
  };
}

describe('PreparedScheduling derived from an earlier base', () => {
  it('places as a base prepared from scratch and as simulateScheduling, step after step', () => {
    fc.assert(
      fc.property(
        fc.array(nodeArb, { maxLength: 8 }),
        fc.array(stepArb, { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        (start, steps, consolidation) => {
          let n = 0;
          const make = (r: { name: string; cpu: string; initialized: boolean; holder: boolean }): SimNode =>
            simNode(r.name, {
              cpu: r.cpu,
              initialized: r.initialized,
              nodeClaim: `claim-${n}`,
              pods: r.holder ? [pod(`holder-${n++}`, { affinity: ANTI_X })] : (n++, []),
            });
          const slots = new SlotStore();
          const base = (nodes: SimNode[]) => ({ nodes, nodePools: [], instanceTypes: [], consolidation });
          let nodes = start.map(make);
          let prepared = new PreparedScheduling(base(nodes), { slots });
          for (const step of steps) {
            // Kept nodes keep their order (as a PassPlaces output does); new ones come anywhere.
            const dropped = new Set(step.drop.map((i) => nodes[i % Math.max(1, nodes.length)]));
            const next = nodes.filter((x) => !dropped.has(x));
            const came: SimNode[] = [];
            for (const a of step.add) {
              const x = make(a.node);
              next.splice(a.at % (next.length + 1), 0, x);
              came.push(x);
            }
            const gone = nodes.filter((x) => dropped.has(x));
            const derived = new PreparedScheduling(base(next), { slots, from: { prepared, gone, came } });
            const fresh = new PreparedScheduling(base(next));
            // A 1-cpu pod per node, then one more (it finds a 2-cpu node's second half or nothing);
            // every other one of app x, which no holder's node takes.
            // And a 2-cpu pod: a second shape, whose list holds only the 2-cpu nodes.
            const pods = [...next, undefined].map((_, i) =>
              pod(`p${i}`, { cpu: '1', ...(i % 2 === 1 && { labels: { app: 'x' } }) }),
            );
            pods.push(pod('wide', { cpu: '2' }));
            const want = plain(simulateScheduling({ ...base(next), pods }));
            expect(plain(derived.run({ pods }))).toEqual(want);
            expect(plain(fresh.run({ pods }))).toEqual(want);
            nodes = next;
            prepared = derived;
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
