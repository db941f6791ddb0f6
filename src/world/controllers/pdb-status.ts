// SPDX-License-Identifier: Apache-2.0
// Keeps every PodDisruptionBudget's status current, as kube-controller-manager's disruption
// controller does; the eviction subresource reads this status and nothing else.
import type { Clock } from '../../core/clock.js';
import { isApiError, type ClusterClient } from '../../core/cluster/client.js';
import { deepEqual } from '../../core/cluster/memory/deep.js';
import type { PdbStatus, ReplicaSet } from '../../core/cluster/memory/api-fields.js';
import type { KubeObject, Pod, PodDisruptionBudget } from '../../core/cluster/types.js';
import { DirtyNamespaces } from './dirty-namespaces.js';
import { computePdbStatus, statusOf } from './pdb-arithmetic.js';
import { PdbMembers } from './pdb-members.js';
import { runOnChanges, type ChangeLoop } from './run-on-changes.js';

export interface PdbStatusControllerOptions {
  /**
   * The client delivers a write's watch events before the writer resumes (the in-memory cluster):
   * a pass then computes only the budgets whose object, pods or ReplicaSets changed, each from its
   * own pods (pdb-members.ts). Default false: every budget of a changed namespace, over all its pods.
   */
  promptWatches?: boolean;
}

export class PdbStatusController {
  private readonly changes: DirtyNamespaces;
  /** Namespaces where a status written last pass records evictions, which expire with time alone. */
  private expiring = new Set<string>();
  /** promptWatches only: each budget's pods and the budgets marked since the last pass. */
  private readonly members: PdbMembers | undefined;
  /** promptWatches only: namespace → budgets whose status written last pass records evictions. */
  private readonly expiringBudgets = new Map<string, Set<string>>();
  private useWatches: boolean;

  constructor(
    private readonly client: ClusterClient,
    private readonly clock: Clock,
    options: PdbStatusControllerOptions = {},
  ) {
    this.changes = new DirtyNamespaces(client, ['Pod', 'PodDisruptionBudget', 'ReplicaSet']);
    this.members = options.promptWatches ? new PdbMembers(client) : undefined;
    this.useWatches = options.promptWatches === true;
  }

  /**
   * Whether promptWatches are used (default: when given). Off, a pass computes every budget of
   * every namespace that changed over all its pods: the reference the equality tests compare with.
   */
  get incremental(): boolean {
    return this.useWatches;
  }

  set incremental(on: boolean) {
    const use = on && this.members !== undefined;
    if (use === this.useWatches) return;
    this.useWatches = use;
    // Off: the index stops following events; on again, the next pass fills it first.
    this.members?.drop();
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
    // Taken every pass (also when not used), so the marks never pile up.
    const marked = this.members?.take();
    const members = this.useWatches ? this.members : undefined;
    try {
      if (members === undefined || marked === undefined) return await this.recomputeAll(namespaces);
      if (namespaces === undefined) return await this.recomputeAll(namespaces, members);
      if (!members.ready) {
        // Switched on since the last full pass: fill the index, then this pass as without it.
        const [pdbs, pods] = await Promise.all([
          this.client.list<PodDisruptionBudget>('PodDisruptionBudget'),
          this.client.list<Pod>('Pod'),
        ]);
        const podsByNs = groupByNamespace(pods);
        members.fill(pdbs, (ns) => podsByNs.get(ns) ?? []);
        return await this.recomputeAll(namespaces, members);
      }
      await this.recomputeMarked(namespaces, marked, members);
    } catch (e) {
      this.members?.drop();
      throw e;
    }
  }

  /**
   * The budgets of `namespaces` (in that order) that were marked since the last pass or record
   * evictions, in list order. Any other budget's inputs are those its current status was computed
   * from at a pass that settled it, and that status records no eviction to expire: it would come
   * out the same and write nothing.
   */
  private async recomputeMarked(
    namespaces: ReadonlySet<string>,
    marked: ReadonlyMap<string, ReadonlySet<string> | 'all'>,
    members: PdbMembers,
  ): Promise<void> {
    const now = this.clock.now();
    for (const ns of namespaces) {
      this.expiring.delete(ns);
      const only = marked.get(ns);
      const expiring = this.expiringBudgets.get(ns);
      this.expiringBudgets.delete(ns);
      if (only === undefined && expiring === undefined) continue;
      const pdbs = (await this.client.list<PodDisruptionBudget>('PodDisruptionBudget', ns)).filter(
        ({ metadata: { name } }) => only === 'all' || only?.has(name) === true || expiring?.has(name) === true,
      );
      if (pdbs.length === 0) continue;
      const replicaSets = await this.client.list<ReplicaSet>('ReplicaSet', ns);
      let nsPods: Promise<readonly Pod[]> | undefined;
      const listNs = (): Promise<readonly Pod[]> => (nsPods ??= this.client.list<Pod>('Pod', ns));
      for (const pdb of pdbs) {
        const selected = await members.selected(pdb, listNs);
        await this.write(ns, pdb, statusOf(pdb, selected, replicaSets, now));
      }
    }
  }

  /** Every budget of `namespaces` (all when undefined) over all their pods; a full pass fills `members`. */
  private async recomputeAll(namespaces: ReadonlySet<string> | undefined, members?: PdbMembers): Promise<void> {
    const now = this.clock.now();
    if (namespaces === undefined) this.expiringBudgets.clear();
    else for (const ns of namespaces) this.expiringBudgets.delete(ns);
    if (namespaces === undefined) {
      const [pdbs, pods, replicaSets] = await Promise.all([
        this.client.list<PodDisruptionBudget>('PodDisruptionBudget'),
        this.client.list<Pod>('Pod'),
        this.client.list<ReplicaSet>('ReplicaSet'),
      ]);
      this.expiring.clear();
      const podsByNs = groupByNamespace(pods);
      const replicaSetsByNs = groupByNamespace(replicaSets);
      members?.fill(pdbs, (ns) => podsByNs.get(ns) ?? []);
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
    for (const pdb of pdbs) await this.write(ns, pdb, computePdbStatus(pdb, pods, replicaSets, now));
  }

  /** Writes a budget's newly computed status if it changed; notes whether it records evictions. */
  private async write(ns: string, pdb: PodDisruptionBudget, status: PdbStatus): Promise<void> {
    if (status.disruptedPods !== undefined) {
      this.expiring.add(ns);
      const names = this.expiringBudgets.get(ns);
      if (names) names.add(pdb.metadata.name);
      else this.expiringBudgets.set(ns, new Set([pdb.metadata.name]));
    }
    if (deepEqual(status, pdb.status ?? {})) return;
    try {
      // The resourceVersion makes this a compare-and-swap: an eviction that spent a
      // disruption since the list wins, and the next reconcile recomputes from it.
      await this.client.update({ ...pdb, status });
    } catch (e) {
      if (!isApiError(e, 409) && !isApiError(e, 404)) throw e;
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
