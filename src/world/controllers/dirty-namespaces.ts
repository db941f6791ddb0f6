// SPDX-License-Identifier: Apache-2.0
// The namespaces in which any object of some kinds changed since a controller's last pass, from
// watches. A controller whose per-namespace result depends only on those objects (a PDB's status
// on its namespace's pods, a ReplicaSet's replicas on its own) redoes only those namespaces: a
// drain in one team's namespace does not recompute ten teams' budgets. ChangeFlag is the
// all-or-nothing version.
import type { ClusterClient, Kind } from '../../core/cluster/client.js';

export class DirtyNamespaces {
  /** undefined: everything (the first pass, or a pass that failed). */
  private dirty: Set<string> | undefined;

  constructor(client: ClusterClient, kinds: readonly Kind[]) {
    for (const kind of kinds) client.watch(kind, (e) => this.dirty?.add(e.object.metadata.namespace ?? 'default'));
  }

  /**
   * Runs `pass` with the namespaces changed since the last completed pass (undefined = all) plus
   * `also`, unless there are none. A pass that throws is retried next time over everything; the
   * pass's own writes mark their namespaces again, so the next pass confirms the fixpoint.
   */
  async ifChanged(
    pass: (namespaces: ReadonlySet<string> | undefined) => Promise<void>,
    also: Iterable<string> = [],
  ): Promise<void> {
    const namespaces = this.dirty;
    if (namespaces !== undefined) for (const ns of also) namespaces.add(ns);
    if (namespaces !== undefined && namespaces.size === 0) return;
    this.dirty = new Set();
    try {
      await pass(namespaces);
    } catch (e) {
      this.dirty = undefined;
      throw e;
    }
  }
}
