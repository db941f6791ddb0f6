// SPDX-License-Identifier: Apache-2.0
// Each PodDisruptionBudget's selected pods, kept from watches, and the budgets a change can move.
// A budget's status depends on its own object, the pods it selects, its namespace's ReplicaSets
// and (while it records evictions) the time: so after a pass that settled every budget, a pod
// event needs only the budgets that selected the pod before or select it now, each computed
// from its own pods — not every budget of the namespace over all the namespace's pods (15,000
// pods read per pod event in a 150,000-pod cluster of ten namespaces).
//
// It trusts watch events to arrive before the next pass reads (the in-memory cluster delivers
// each write's events before the writer resumes): the PDB status controller uses it on that
// cluster only.
import type { ClusterClient } from '../../core/cluster/client.js';
import { deepEqual } from '../../core/cluster/memory/deep.js';
import type { Pod, PodDisruptionBudget } from '../../core/cluster/types.js';
import { byNamespaceAndName } from '../../core/cluster/sorted-objects.js';
import { countPod, emptyTally, selects, type PodTally, type SelectedPods } from './pdb-arithmetic.js';

type Selector = PodDisruptionBudget['spec']['selector'];

interface Budget {
  selector: Selector;
  /** Pod name → latest object, for the pods the selector matches; undefined: list the namespace again. */
  members: Map<string, Pod> | undefined;
  /** What the status reads of those pods, kept with them. */
  tally: PodTally;
}

const nsOf = (o: { metadata: { namespace?: string } }): string => o.metadata.namespace ?? 'default';

export class PdbMembers {
  /** Namespace → budget name → its selector and pods; filled by the first (full) pass. */
  private readonly budgets = new Map<string, Map<string, Budget>>();
  /** Namespace → budgets to compute again; `all` for every budget there (a ReplicaSet changed). */
  private dirty = new Map<string, Set<string> | 'all'>();
  private tracking = false;
  private readonly watches: { stop(): void }[];

  constructor(client: ClusterClient) {
    this.watches = [
      client.watch('Pod', (e) => {
        if (!this.tracking) return;
        const pod = e.object as Pod;
        const ns = nsOf(pod);
        const name = pod.metadata.name;
        for (const [pdb, b] of this.budgets.get(ns) ?? []) {
          if (b.members === undefined) continue; // listed again at the next pass
          const was = b.members.get(name);
          const is = e.type !== 'DELETED' && selects(b.selector, pod.metadata.labels);
          if (was !== undefined) countPod(b.tally, was, -1);
          if (is) {
            b.members.set(name, pod);
            countPod(b.tally, pod, 1);
          } else if (was !== undefined) b.members.delete(name);
          if (was !== undefined || is) this.mark(ns, pdb);
        }
      }),
      client.watch('PodDisruptionBudget', (e) => {
        if (!this.tracking) return;
        const pdb = e.object as PodDisruptionBudget;
        const ns = nsOf(pdb);
        const name = pdb.metadata.name;
        let inNs = this.budgets.get(ns);
        if (e.type === 'DELETED') inNs?.delete(name);
        else {
          if (inNs === undefined) this.budgets.set(ns, (inNs = new Map()));
          const b = inNs.get(name);
          // A status write (this controller's, or an eviction's) keeps the selector and its pods.
          if (b === undefined || !deepEqual(b.selector, pdb.spec.selector)) inNs.set(name, unfilled(pdb.spec.selector));
        }
        this.mark(ns, name);
      }),
      client.watch('ReplicaSet', (e) => {
        // expectedScale reads the namespace's ReplicaSets: any budget there may count them.
        if (this.tracking) this.dirty.set(nsOf(e.object), 'all');
      }),
    ];
  }

  /** Whether a full pass has filled the index since it was last dropped. */
  get ready(): boolean {
    return this.tracking;
  }

  /** Refills the index from a full pass's lists (namespace → its budgets and its pods, in list order). */
  fill(pdbs: readonly PodDisruptionBudget[], podsOf: (ns: string) => readonly Pod[]): void {
    this.budgets.clear();
    this.dirty = new Map();
    for (const pdb of pdbs) {
      const ns = nsOf(pdb);
      let inNs = this.budgets.get(ns);
      if (inNs === undefined) this.budgets.set(ns, (inNs = new Map()));
      inNs.set(pdb.metadata.name, filled(pdb.spec.selector, podsOf(ns)));
    }
    this.tracking = true;
  }

  /** Forgets everything: the next pass is a full one (a pass failed, or the index was switched off). */
  drop(): void {
    this.tracking = false;
    this.budgets.clear();
    this.dirty = new Map();
  }

  /** The marks since the last call (namespace → budget names, or `all`), and a fresh set for the pass's writes. */
  take(): ReadonlyMap<string, ReadonlySet<string> | 'all'> {
    const out = this.dirty;
    this.dirty = new Map();
    return out;
  }

  /**
   * The pods `pdb` selects, tallied, listing its namespace once through `listNs` for budgets that
   * are new or whose selector changed.
   */
  async selected(pdb: PodDisruptionBudget, listNs: () => Promise<readonly Pod[]>): Promise<SelectedPods> {
    const ns = nsOf(pdb);
    let inNs = this.budgets.get(ns);
    if (inNs === undefined) this.budgets.set(ns, (inNs = new Map()));
    let b = inNs.get(pdb.metadata.name);
    if (b?.members === undefined || !deepEqual(b.selector, pdb.spec.selector)) {
      b = filled(pdb.spec.selector, await listNs());
      inNs.set(pdb.metadata.name, b);
    }
    const members = b.members as Map<string, Pod>;
    return {
      tally: b.tally,
      named: (name) => members.get(name),
      inOrder: () => [...members.values()].sort(byNamespaceAndName),
    };
  }

  stop(): void {
    for (const w of this.watches) w.stop();
  }

  private mark(ns: string, pdb: string): void {
    const names = this.dirty.get(ns);
    if (names === 'all') return;
    if (names) names.add(pdb);
    else this.dirty.set(ns, new Set([pdb]));
  }
}

const unfilled = (selector: Selector): Budget => ({ selector, members: undefined, tally: emptyTally() });

function filled(selector: Selector, pods: readonly Pod[]): Budget {
  const b: Budget = { selector, members: new Map(), tally: emptyTally() };
  for (const pod of pods) {
    if (!selects(selector, pod.metadata.labels)) continue;
    b.members?.set(pod.metadata.name, pod);
    countPod(b.tally, pod, 1);
  }
  return b;
}
