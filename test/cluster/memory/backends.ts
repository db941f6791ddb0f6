// SPDX-License-Identifier: Apache-2.0
// The cluster backends the conformance suites run against. Each suite is written against the
// ClusterClient interface plus this Harness, so a real API server (issue 4) joins by adding a
// Backend here: its harness creates a fresh namespace, maps `settle` onto polling until
// kube-controller-manager has caught up, and reports its clock skew in `toleranceMs`.
import { FakeClock } from '../../../src/core/clock.js';
import type { ClusterClient } from '../../../src/core/cluster/client.js';
import { MemoryCluster } from '../../../src/core/cluster/memory/memory-cluster.js';
import type { KubeObject, Pod } from '../../../src/core/cluster/types.js';
import { PdbStatusController } from '../../../src/world/controllers/pdb-status.js';
import { ReplicaSetController } from '../../../src/world/controllers/replicaset.js';
import { SNAPSHOT_TIME } from '../../support/cluster-builder.js';

export interface Harness {
  client: ClusterClient;
  /** The namespace this test owns. */
  ns: string;
  /** Prefix for cluster-scoped names, unique per test. */
  prefix: string;
  /** The server's current time, epoch ms. */
  now(): number;
  /** How far server timestamps may be from `now()` when asserted. */
  toleranceMs: number;
  /** Creates an object and then writes its status (a real server drops status on create). */
  createWithStatus<T extends KubeObject>(obj: T): Promise<T>;
  /** What the scheduler and kubelet do: binds the pod to `nodeName` and reports it Running and Ready. */
  runPod(namespace: string, name: string, nodeName: string): Promise<Pod>;
  /** Lets watches, the PDB status controller, the ReplicaSet controller and the GC catch up. */
  settle(): Promise<void>;
}

export interface Backend {
  name: string;
  setup(): Promise<Harness>;
}

/** The in-memory cluster; `promptWatches`: its ReplicaSet controller syncs only the ReplicaSets that changed. */
const memory = (promptWatches: boolean): Backend => ({
  name: promptWatches ? 'memory (ReplicaSets synced from watches)' : 'memory',
  async setup() {
    const clock = new FakeClock(Date.parse(SNAPSHOT_TIME));
    const cluster = new MemoryCluster(clock);
    const pdbs = new PdbStatusController(cluster, clock);
    const replicaSets = new ReplicaSetController(cluster, { seed: 1, promptWatches });
    return {
      client: cluster,
      ns: 'default',
      prefix: '',
      now: () => clock.now(),
      toleranceMs: 0,
      createWithStatus: (obj) => cluster.create(obj),
      async runPod(namespace, name, nodeName) {
        return cluster.patch<Pod>(
          { kind: 'Pod', namespace, name },
          {
            spec: { nodeName },
            status: {
              phase: 'Running',
              startTime: new Date(clock.now()).toISOString(),
              conditions: [{ type: 'Ready', status: 'True' }],
            },
          },
        );
      },
      async settle() {
        await cluster.idle();
        await replicaSets.reconcile();
        await pdbs.reconcile();
        await cluster.idle();
      },
    };
  },
});

export const memoryBackend: Backend = memory(false);

export const backends: Backend[] = [memoryBackend, memory(true)];

/** A fresh memory cluster with its fake clock and controllers, for memory-only assertions. */
export function memoryCluster(initial: KubeObject[] = []): {
  cluster: MemoryCluster;
  clock: FakeClock;
  pdbs: PdbStatusController;
  replicaSets: ReplicaSetController;
} {
  const clock = new FakeClock(Date.parse(SNAPSHOT_TIME));
  const cluster = new MemoryCluster(clock, initial);
  return {
    cluster,
    clock,
    pdbs: new PdbStatusController(cluster, clock),
    replicaSets: new ReplicaSetController(cluster, { seed: 1 }),
  };
}
