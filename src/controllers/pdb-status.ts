// SPDX-License-Identifier: Apache-2.0
// Keeps every PodDisruptionBudget's status current, as kube-controller-manager's disruption
// controller does; the eviction subresource reads this status and nothing else.
import type { Clock } from '../clock.js';
import { isApiError, type ClusterClient } from '../cluster/client.js';
import { deepEqual } from '../cluster/memory/deep.js';
import type { ReplicaSet } from '../cluster/memory/api-fields.js';
import type { KubeObject, Pod, PodDisruptionBudget } from '../cluster/types.js';
import { ChangeFlag } from './change-flag.js';
import { computePdbStatus } from './pdb-arithmetic.js';
import { runOnChanges, type ChangeLoop } from './run-on-changes.js';

export class PdbStatusController {
  private readonly changes: ChangeFlag;
  /** Whether a status written last pass records evictions, which expire with time alone. */
  private expiring = true;

  constructor(private readonly client: ClusterClient, private readonly clock: Clock) {
    this.changes = new ChangeFlag(client, ['Pod', 'PodDisruptionBudget', 'ReplicaSet']);
  }

  /**
   * Recomputes every PDB; writes only the ones whose status changed. Skipped when no pod, PDB
   * or ReplicaSet changed and no recorded eviction can expire: the result would be the same.
   */
  async reconcile(): Promise<void> {
    await this.changes.ifChanged(() => this.recompute(), this.expiring);
  }

  private async recompute(): Promise<void> {
    const [pdbs, pods, replicaSets] = await Promise.all([
      this.client.list<PodDisruptionBudget>('PodDisruptionBudget'),
      this.client.list<Pod>('Pod'),
      this.client.list<ReplicaSet>('ReplicaSet'),
    ]);
    const now = this.clock.now();
    const podsByNs = groupByNamespace(pods);
    const replicaSetsByNs = groupByNamespace(replicaSets);
    this.expiring = false;
    for (const pdb of pdbs) {
      const ns = pdb.metadata.namespace ?? 'default';
      const status = computePdbStatus(pdb, podsByNs.get(ns) ?? [], replicaSetsByNs.get(ns) ?? [], now);
      if (status.disruptedPods !== undefined) this.expiring = true;
      if (deepEqual(status, pdb.status ?? {})) continue;
      try {
        // The resourceVersion makes this a compare-and-swap: an eviction that spent a
        // disruption since the list wins, and the next reconcile recomputes from it.
        await this.client.update({ ...pdb, status });
      } catch (e) {
        if (!isApiError(e, 409) && !isApiError(e, 404)) throw e;
      }
    }
  }

  /** Also reconciles whenever pods, PDBs or ReplicaSets change. */
  start(onError?: (e: unknown) => void): ChangeLoop {
    return runOnChanges(this.client, ['Pod', 'PodDisruptionBudget', 'ReplicaSet'], () => this.reconcile(), onError);
  }
}

function groupByNamespace<T extends KubeObject>(objects: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const o of objects) {
    const ns = o.metadata.namespace ?? 'default';
    const list = out.get(ns);
    if (list) list.push(o);
    else out.set(ns, [o]);
  }
  return out;
}
