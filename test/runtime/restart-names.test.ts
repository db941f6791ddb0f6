// SPDX-License-Identifier: Apache-2.0
// A restarted controller meets the NodeClaims its predecessor created. Its name counters start
// past them, so the first NodeClaim it creates is not refused with "already exists" (which
// failed that tick after every restart of standalone mode).
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { KubeObject, NodeClaim, NodePool } from '../../src/core/cluster/types.js';
import { NodeClaimFactory } from '../../src/control/provisioning/nodeclaim-factory.js';
import { Runtime } from '../../src/control/runtime/runtime.js';
import { makeNodeClaimAndNode } from '../support/cluster-builder.js';
import { policies, pool, replicaSet, T0 } from '../reconciler/scenario.js';

describe('NodeClaim names after a restart', () => {
  it('each factory counts on past the names of its own prefix', () => {
    const taken = ['b-00001', 'b-0000a', 'b-r00005', 'web-i00002', 'unrelated'];
    const b = pool('b', ['m5.large']) as NodePool;
    expect(new NodeClaimFactory().skipPast(taken).build(b, ['m5.large']).metadata.name).toBe('b-0000b');
    expect(new NodeClaimFactory('r').skipPast(taken).build(b, ['m5.large']).metadata.name).toBe('b-r00006');
    expect(new NodeClaimFactory('i').skipPast(taken).build(b, ['m5.large']).metadata.name).toBe('b-i00003');
  });

  it("a runtime started beside a predecessor's NodeClaim creates the next name, and its tick succeeds", async () => {
    const clock = new FakeClock(T0);
    // The predecessor's NodeClaim `b-00001` (now in pool a), and a pod only pool b can run.
    const { nodeClaim, node } = makeNodeClaimAndNode('a', 0);
    nodeClaim.metadata.name = 'b-00001';
    const objects: KubeObject[] = [
      pool('a', ['m5.large']),
      pool('b', ['m5.large']),
      nodeClaim,
      node,
      replicaSet('web', 1, { cpu: '1', nodeSelector: { 'karpenter.sh/nodepool': 'b' } }),
    ];
    const cluster = new MemoryCluster(clock, objects);
    const rt = new Runtime({
      clock,
      objects,
      cluster,
      workloadControllers: true,
      policies: policies('policy p for nodepool a, b {\n  consolidate never\n}\n'),
    });
    for (let i = 0; i < 3; i++) {
      await rt.tick(); // throws when a create is refused
      await cluster.idle();
      clock.advance(10_000);
    }
    const names = (await cluster.list<NodeClaim>('NodeClaim')).map((nc) => nc.metadata.name).sort();
    expect(names).toEqual(['b-00001', 'b-00002']);
  });
});
