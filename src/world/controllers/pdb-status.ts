// SPDX-License-Identifier: Apache-2.0
// Keeps every PodDisruptionBudget's status current, as kube-controller-manager's disruption
// controller does; the eviction subresource reads this status and nothing else.
import type { Clock } from '../../core/clock.js';
import { isApiError, type ClusterClient } from '../../core/cluster/client.js';
import { deepEqual } from '../../core/cluster/memory/deep.js';
import type { ReplicaSet } from '../../core/cluster/memory/api-fields.js';
import type { KubeObject, Pod, PodDisruptionBudget } from '../../core/cluster/types.js';
import { DirtyNamespaces } from './dirty-namespaces.js';
import { computePdbStatus } from './pdb-arithmetic.js';
import { runOnChanges, type ChangeLoop } from './run-on-changes.js';

export class PdbStatusController {
  private readonly changes: DirtyNamespaces;
  /** Namespaces where a status written last pass records evictions, which expire with time alone. */
  private expiring = new Set<string>();

  constructor(
    private readonly client: ClusterClient,
    private readonly clock: Clock,
  ) {
    this.changes = new DirtyNamespaces(client, ['Pod', 'PodDisruptionBudget', 'ReplicaSet']);
  }

  /**
   * Recomputes the PDBs of every namespace in which a pod, PDB or ReplicaSet changed, or in which
   * a recorded eviction can expire; writes only the ones whose status changed. A PDB's status
   * depends on nothing outside its namespace, so the others would come out the same.
   */
  async reconcile(): Promise<void> {
    await this.changes.ifChanged((namespaces) => this.recompute(namespaces), this.expiring);
  }

  private async recompute(namespaces: ReadonlySet<string> | undefined): Promise<void> {
    const now = this.clock.now();
    if (namespaces === undefined) {
      const [pdbs, pods, replicaSets] = await Promise.all([
        this.client.list<PodDisruptionBudget>('PodDisruptionBudget'),
        this.client.list<Pod>('Pod'),
        this.client.list<ReplicaSet>('ReplicaSet'),
      ]);
      this.expiring.clear();
      const podsByNs = groupByNamespace(pods);
      const replicaSetsByNs = groupByNamespace(replicaSets);
      for (const [ns, inNs] of groupByNamespace(pdbs))
        await this.recomputeNamespace(ns, inNs, podsByNs.get(ns) ?? [], replicaSetsByNs.get(ns) ?? [], now);
      return;
    }
    for (const ns of namespaces) {
      this.expiring.delete(ns);
      const pdbs = await this.client.list<PodDisruptionBudget>('PodDisruptionBudget', ns);
      if (pdbs.length === 0) continue;
      const [pods, replicaSets] = await Promise.all([
        this.client.list<Pod>('Pod', ns),
        this.client.list<ReplicaSet>('ReplicaSet', ns),
      ]);
      await this.recomputeNamespace(ns, pdbs, pods, replicaSets, now);
    }
  }

  private async recomputeNamespace(
    ns: string,
    pdbs: readonly PodDisruptionBudget[],
    pods: readonly Pod[],
    replicaSets: readonly ReplicaSet[],
    now: number,
  ): Promise<void> {
    for (const pdb of pdbs) {
      const status = computePdbStatus(pdb, pods, replicaSets, now);
      if (status.disruptedPods !== undefined) this.expiring.add(ns);
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
