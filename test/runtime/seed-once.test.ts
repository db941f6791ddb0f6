// SPDX-License-Identifier: Apache-2.0
// A Runtime reads its seed (RuntimeOptions.objects) once, in order, and keeps none of it: the
// in-memory path at 5k nodes / 150k pods stays under its memory goal only because the seed is
// never alive whole beside the store (test/bench/peak-rss.ts).
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { KubeObject, NodeClaim } from '../../src/core/cluster/types.js';
import { Runtime } from '../../src/control/runtime/runtime.js';
import { makeNodeClaimAndNode, makePod } from '../support/cluster-builder.js';
import { collected } from '../support/collected.js';
import { policies, pool, T0 } from '../reconciler/scenario.js';

/** A pool, two machines and a pod on each, as a list. */
function seedObjects(): KubeObject[] {
  const out: KubeObject[] = [pool('a', ['m5.large'])];
  for (let i = 0; i < 2; i++) {
    const { nodeClaim, node } = makeNodeClaimAndNode('a', i);
    out.push(nodeClaim, node, makePod(`web-${i}`, node.metadata.name));
  }
  return out;
}

/** The seed as a generator that fails if it is read a second time. */
function oneShot(objects: readonly KubeObject[]): { seed: Iterable<KubeObject>; yielded: () => number } {
  let n = 0;
  let started = false;
  return {
    seed: {
      *[Symbol.iterator]() {
        if (started) throw new Error('the seed was read twice');
        started = true;
        for (const o of objects) {
          n++;
          yield o;
        }
      },
    },
    yielded: () => n,
  };
}

const adopted = (rt: Runtime, ncs: readonly NodeClaim[]) => {
  const instanceOf = rt.cloud.describer();
  return ncs.map((nc) => instanceOf(nc.status!.providerID!)?.state);
};

describe('the Runtime reads its seed once', () => {
  it('embedded: every object reaches the store, and the seed NodeClaims become running machines', async () => {
    const objects = seedObjects();
    const claims = objects.filter((o): o is NodeClaim => o.kind === 'NodeClaim');
    const { seed, yielded } = oneShot(objects);
    const rt = new Runtime({ clock: new FakeClock(T0), objects: seed, policies: [] });
    expect(yielded()).toBe(objects.length);
    expect((await rt.cluster.list('Pod')).map((p) => p.metadata.name).sort()).toEqual(['web-0', 'web-1']);
    expect((await rt.cluster.list('NodeClaim')).length).toBe(2);
    expect(adopted(rt, claims)).toEqual(['running', 'running']);
    expect(rt.notAdopted).toEqual([]);
  });

  it('beside a given cluster: the seed is read only for its NodeClaims, which become running machines', async () => {
    const clock = new FakeClock(T0);
    const objects = seedObjects();
    const claims = objects.filter((o): o is NodeClaim => o.kind === 'NodeClaim');
    const cluster = new MemoryCluster(clock, objects);
    const { seed, yielded } = oneShot(objects);
    const rt = new Runtime({
      clock,
      objects: seed,
      cluster,
      policies: policies('policy p for nodepool a {\n  consolidate never\n}\n'),
    });
    expect(yielded()).toBe(objects.length);
    expect(adopted(rt, claims)).toEqual(['running', 'running']);
    await rt.tick(); // reads the seed no more (oneShot would throw)
  });

  it('keeps no reference to the seed once constructed', async () => {
    const make = (): { rt: Runtime; seed: WeakRef<object> } => {
      const objects = seedObjects();
      const rt = new Runtime({ clock: new FakeClock(T0), objects, policies: [] });
      return { rt, seed: new WeakRef(objects) };
    };
    const { rt, seed } = make();
    await rt.tick();
    expect(await collected(seed)).toBe(true);
  });
});
