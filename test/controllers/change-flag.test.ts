// SPDX-License-Identifier: Apache-2.0
// Controllers whose result depends only on cluster objects skip passes when none of them changed.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { ClusterClient } from '../../src/core/cluster/client.js';
import type { PdbStatus, ReplicaSet } from '../../src/core/cluster/memory/api-fields.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { KubeObject, Pod, PodDisruptionBudget } from '../../src/core/cluster/types.js';
import { DELETION_TIMEOUT_MS } from '../../src/world/controllers/pdb-arithmetic.js';
import { PdbStatusController } from '../../src/world/controllers/pdb-status.js';
import { ReplicaSetController } from '../../src/world/controllers/replicaset.js';
import { makePdb, makePod, SNAPSHOT_TIME } from '../support/cluster-builder.js';
import { forwardingClient } from '../support/forwarding-client.js';

/** A memory cluster and a client over it that counts list calls. */
function counted(initial: KubeObject[]): {
  cluster: MemoryCluster;
  client: ClusterClient;
  clock: FakeClock;
  lists: () => number;
} {
  const clock = new FakeClock(Date.parse(SNAPSHOT_TIME));
  const cluster = new MemoryCluster(clock, initial);
  let lists = 0;
  const client = forwardingClient(cluster, {
    list: (kind, namespace) => {
      lists++;
      return cluster.list(kind, namespace);
    },
  });
  return { cluster, client, clock, lists: () => lists };
}

const pdbKey = { kind: 'PodDisruptionBudget' as const, namespace: 'default', name: 'web' };
const web = (name: string): Pod => makePod(name, 'node-a', { labels: { app: 'web' }, owner: 'none' });

describe('PdbStatusController skips quiet passes', () => {
  it('reads nothing when no pod, PDB or ReplicaSet changed, and catches up after a change', async () => {
    const { cluster, client, clock, lists } = counted([
      web('web-1'),
      makePdb('web', { matchLabels: { app: 'web' } }, { minAvailable: 0 }),
    ]);
    const pdbs = new PdbStatusController(client, clock);
    await pdbs.reconcile();
    await pdbs.reconcile(); // after its own status write
    const before = lists();
    await pdbs.reconcile();
    expect(lists()).toBe(before);
    await cluster.create(web('web-2'));
    await pdbs.reconcile();
    expect(lists()).toBeGreaterThan(before);
    expect((await cluster.get<PodDisruptionBudget>(pdbKey))!.status).toMatchObject({
      currentHealthy: 2,
      disruptionsAllowed: 2,
    });
  });

  it('still lets a recorded eviction expire with time alone', async () => {
    const { cluster, client, clock } = counted([
      web('web-1'),
      web('web-2'),
      makePdb('web', { matchLabels: { app: 'web' } }, { minAvailable: 1 }),
    ]);
    const pdbs = new PdbStatusController(client, clock);
    await pdbs.reconcile();
    const current = (await cluster.get<PodDisruptionBudget>(pdbKey))!;
    await cluster.update({
      ...current,
      status: { ...current.status, disruptedPods: { 'web-1': SNAPSHOT_TIME } } as PodDisruptionBudget['status'],
    });
    for (let i = 0; i < 3; i++) await pdbs.reconcile(); // quiet passes once the status settled
    expect((await cluster.get<PodDisruptionBudget>(pdbKey))!.status).toMatchObject({ currentHealthy: 1 });
    clock.advance(DELETION_TIMEOUT_MS + 1000);
    await pdbs.reconcile();
    const after = (await cluster.get<PodDisruptionBudget>(pdbKey))!.status as PdbStatus;
    expect(after).toMatchObject({ currentHealthy: 2, disruptionsAllowed: 1 });
    expect(after.disruptedPods).toBeUndefined();
  });
});

describe('ReplicaSetController skips quiet passes', () => {
  it('reads nothing when no pod or ReplicaSet changed, and replaces a deleted pod after a change', async () => {
    const rs: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [] } as unknown as Pod['spec'] },
      },
    };
    const { cluster, client, lists } = counted([rs]);
    const replicaSets = new ReplicaSetController(client, { seed: 1 });
    await replicaSets.reconcile();
    await replicaSets.reconcile();
    const before = lists();
    await replicaSets.reconcile();
    expect(lists()).toBe(before);
    const [victim] = await cluster.list<Pod>('Pod');
    await cluster.delete({ kind: 'Pod', namespace: 'default', name: victim.metadata.name });
    await replicaSets.reconcile();
    expect(lists()).toBeGreaterThan(before);
    expect((await cluster.list<Pod>('Pod')).map((p) => p.metadata.name)).not.toContain(victim.metadata.name);
    expect(await cluster.list<Pod>('Pod')).toHaveLength(2);
  });
});
