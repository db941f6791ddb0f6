// SPDX-License-Identifier: Apache-2.0
// The ReplicaSets a pass must sync, from watches: a pod that changes owner marks the ReplicaSet it
// left and the one it joined, and moves between their pod lists. The owner it left is read from
// the object before the change; a client that does not give that object is answered from the
// pods filed under each ReplicaSet.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { ClusterClient } from '../../src/core/cluster/client.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { Pod } from '../../src/core/cluster/types.js';
import { DirtyReplicaSets } from '../../src/world/controllers/dirty-replica-sets.js';
import { makePod, SNAPSHOT_TIME } from '../support/cluster-builder.js';
import { forwardingClient } from '../support/forwarding-client.js';

/** A client over `cluster` whose watch events carry the object before a change only when `withOld`. */
function clientOf(cluster: MemoryCluster, withOld: boolean): ClusterClient {
  return forwardingClient(cluster, {
    watch: (kind, handler) => cluster.watch(kind, (e) => handler(withOld ? e : { type: e.type, object: e.object })),
  });
}

const ownedBy = (rs: string) => [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs, uid: rs, controller: true }];
const names = (pods: Pod[] | undefined) => pods?.map((p) => p.metadata.name).sort();

describe.each([true, false])('DirtyReplicaSets (watch events carry the old object: %s)', (withOld) => {
  it('a pod that changes owner marks both ReplicaSets and moves between their pod lists', async () => {
    const cluster = new MemoryCluster(new FakeClock(Date.parse(SNAPSHOT_TIME)), [
      makePod('web-1', 'node-a'),
      makePod('web-2', 'node-a'),
    ]);
    const client = clientOf(cluster, withOld);
    const dirty = new DirtyReplicaSets(client);
    dirty.seen(await client.list<Pod>('Pod'), true);
    expect(names(dirty.podsOwnedBy('default', 'web'))).toEqual(['web-1', 'web-2']);
    dirty.take();

    await client.patch(
      { kind: 'Pod', namespace: 'default', name: 'web-1' },
      {
        metadata: { ownerReferences: ownedBy('api') },
      },
    );
    expect(dirty.take()).toEqual(new Map([['default', new Set(['web', 'api'])]]));
    expect(names(dirty.podsOwnedBy('default', 'web'))).toEqual(['web-2']);
    expect(names(dirty.podsOwnedBy('default', 'api'))).toEqual(['web-1']);

    // Orphaned: only the ReplicaSet it left is marked.
    await client.patch({ kind: 'Pod', namespace: 'default', name: 'web-2' }, { metadata: { ownerReferences: null } });
    expect(dirty.take()).toEqual(new Map([['default', new Set(['web'])]]));
    expect(names(dirty.podsOwnedBy('default', 'web'))).toEqual([]);

    // A label change keeps the owner: its ReplicaSet is marked (its pod changed), nothing moves.
    await client.patch({ kind: 'Pod', namespace: 'default', name: 'web-1' }, { metadata: { labels: { x: 'y' } } });
    expect(dirty.take()).toEqual(new Map([['default', new Set(['api'])]]));
    expect(names(dirty.podsOwnedBy('default', 'api'))).toEqual(['web-1']);
  });
});
