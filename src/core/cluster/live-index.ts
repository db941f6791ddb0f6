// SPDX-License-Identifier: Apache-2.0
// The cluster index kept current from watch events: one changed object costs work in proportion
// to what it touches (its node's pods, the machines sharing its providerID), not to the cluster.
// indexCluster (state.ts) stays the definition and the slow path: a LiveIndex starts from it, and
// the property test (test/core/cluster/live-index.test.ts) checks after every generated event
// that the live index equals indexCluster over the same objects in list order.
//
// Each applied batch yields a new ClusterIndex object whose changed parts are new: the StateNode
// of every machine whose objects changed, its pod array, the stateNodes array, the snapshot's
// list of a changed kind, the PDB and NodePool maps. Unchanged StateNodes, pod arrays and lists
// keep their identity, which is how the evaluator's caches see that nothing else moved. The
// name-keyed maps (nodesByName, nodeClaimsByName, podsByNodeName) are updated in place: copying
// three 5,000-entry maps per event would cost more than the rest of the tick. An index is
// therefore read as the view's current one; nobody compares the maps of two of them.
import type { WatchEvent } from './client.js';
import type { Snapshot } from './snapshot.js';
import { byNamespaceAndName, position, SortedObjects } from './sorted-objects.js';
import { indexCluster, type ClusterIndex, type StateNode } from './state.js';
import type { KubeObject, Node, NodeClaim, NodePool, Pod, PodDisruptionBudget } from './types.js';

/** The kinds an index reads, with the snapshot list each fills (the tests read it too). */
export const INDEX_BUCKETS = {
  NodePool: 'nodePools',
  NodeClaim: 'nodeClaims',
  Node: 'nodes',
  Pod: 'pods',
  PodDisruptionBudget: 'pdbs',
  ConfigMap: 'configMaps',
} as const;
type IndexKind = keyof typeof INDEX_BUCKETS;
type Bucket = (typeof INDEX_BUCKETS)[IndexKind];

const isIndexKind = (k: string): k is IndexKind => Object.prototype.hasOwnProperty.call(INDEX_BUCKETS, k);
const nodeProvider = (n: Node | undefined): string | undefined => n?.spec.providerID || undefined;
const claimProvider = (nc: NodeClaim | undefined): string | undefined => nc?.status?.providerID || undefined;
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export class LiveIndex {
  private readonly objects = new Map<IndexKind, ObjectsByName>();
  private readonly sorted = new Map<IndexKind, SortedObjects>();
  /** Per kind, the list the snapshot hands out while the kind does not change. */
  private readonly lists = new Map<IndexKind, KubeObject[]>();
  /** Node names and NodeClaim names per providerID, for the join. */
  private readonly nodesByProvider = new Map<string, Set<string>>();
  private readonly claimsByProvider = new Map<string, Set<string>>();
  /** The StateNodes of NodeClaims no Node joined, by NodeClaim name. */
  private readonly claimOnly = new Map<string, StateNode>();
  private index: ClusterIndex;

  /** `snapshot`'s lists are in list order (namespace, then name), as a list call returns them. */
  constructor(snapshot: Snapshot) {
    this.index = indexCluster(snapshot);
    for (const kind of Object.keys(INDEX_BUCKETS) as IndexKind[]) {
      const list = snapshot[INDEX_BUCKETS[kind]] as KubeObject[];
      const byKey = new ObjectsByName();
      for (const o of list) byKey.set(o);
      this.objects.set(kind, byKey);
      this.sorted.set(kind, new SortedObjects(() => byKey, list.slice()));
      this.lists.set(kind, list);
    }
    for (const n of snapshot.nodes) addTo(this.nodesByProvider, nodeProvider(n), n.metadata.name);
    for (const nc of snapshot.nodeClaims) addTo(this.claimsByProvider, claimProvider(nc), nc.metadata.name);
    for (let i = this.index.nodesByName.size; i < this.index.stateNodes.length; i++) {
      const sn = this.index.stateNodes[i];
      this.claimOnly.set(sn.nodeClaim!.metadata.name, sn);
    }
  }

  current(): ClusterIndex {
    return this.index;
  }

  /**
   * Applies watch events in order and returns the new index (the same one when nothing the
   * index holds changed). An ADDED of a known object replaces it, a DELETED of an unknown one is
   * ignored: the caller has dropped events its list already held.
   */
  apply(events: readonly WatchEvent[]): ClusterIndex {
    const changed = new Set<IndexKind>();
    const dirtyNodes = new Set<string>();
    const dirtyClaims = new Set<string>();
    const dirtyProviders = new Set<string>();
    let members = false;
    const ix = this.index;
    let unbound = ix.unboundPods;
    for (const e of events) {
      const kind = e.object.kind;
      if (!isIndexKind(kind)) continue;
      const byKey = this.objects.get(kind)!;
      const prev = byKey.get(e.object);
      const next = e.type === 'DELETED' ? undefined : e.object;
      if (prev === undefined && next === undefined) continue;
      if (prev === next) continue;
      const sorted = this.sorted.get(kind)!;
      if (next === undefined) {
        byKey.delete(prev!);
        sorted.remove(prev!);
      } else {
        byKey.set(next);
        if (prev) sorted.replace(prev, next);
        else sorted.add(next);
      }
      changed.add(kind);
      if (kind === 'Pod') unbound = this.movePod(prev as Pod | undefined, next as Pod | undefined, unbound, dirtyNodes);
      else if (kind === 'Node' || kind === 'NodeClaim')
        members =
          this.moveMachine(kind, prev, next, e.object.metadata.name, dirtyNodes, dirtyClaims, dirtyProviders) ||
          members;
    }
    if (changed.size === 0) return ix;
    for (const id of dirtyProviders) {
      for (const n of this.nodesByProvider.get(id) ?? []) dirtyNodes.add(n);
      for (const c of this.claimsByProvider.get(id) ?? []) dirtyClaims.add(c);
    }
    const replaced = new Map<StateNode, StateNode>();
    for (const name of dirtyNodes) members = this.refreshNode(name, replaced) || members;
    for (const name of dirtyClaims) members = this.refreshClaim(name, replaced) || members;
    this.index = {
      snapshot: this.snapshot(changed),
      stateNodes: members
        ? this.orderedStateNodes()
        : replaced.size === 0
          ? ix.stateNodes
          : (withReplaced(ix.stateNodes, replaced, ix.nodesByName.size) ?? this.orderedStateNodes()),
      nodePoolsByName: changed.has('NodePool')
        ? new Map((this.list('NodePool') as NodePool[]).map((np) => [np.metadata.name, np]))
        : ix.nodePoolsByName,
      nodesByName: ix.nodesByName,
      nodeClaimsByName: ix.nodeClaimsByName,
      podsByNodeName: ix.podsByNodeName,
      unboundPods: unbound,
      pdbsByNamespace: changed.has('PodDisruptionBudget')
        ? byNamespace(this.list('PodDisruptionBudget') as PodDisruptionBudget[])
        : ix.pdbsByNamespace,
      // Keyed by namespace and label set; what it holds depends on the PDBs alone.
      pdbMatchCache: changed.has('PodDisruptionBudget') ? new Map() : ix.pdbMatchCache,
    };
    return this.index;
  }

  /** Moves a Node or NodeClaim between providerIDs and marks what it touches; true when a Node came or went. */
  private moveMachine(
    kind: 'Node' | 'NodeClaim',
    prev: KubeObject | undefined,
    next: KubeObject | undefined,
    name: string,
    dirtyNodes: Set<string>,
    dirtyClaims: Set<string>,
    dirtyProviders: Set<string>,
  ): boolean {
    const [byProvider, provider, dirty] =
      kind === 'Node'
        ? [this.nodesByProvider, (o: KubeObject | undefined) => nodeProvider(o as Node | undefined), dirtyNodes]
        : [
            this.claimsByProvider,
            (o: KubeObject | undefined) => claimProvider(o as NodeClaim | undefined),
            dirtyClaims,
          ];
    dropFrom(byProvider, provider(prev), name);
    addTo(byProvider, provider(next), name);
    for (const id of [provider(prev), provider(next)]) if (id) dirtyProviders.add(id);
    dirty.add(name);
    return kind === 'Node' && (prev === undefined) !== (next === undefined);
  }

  /** Takes `prev` out of its node's pod list (or the unbound ones) and puts `next` in its own. */
  private movePod(prev: Pod | undefined, next: Pod | undefined, unbound: Pod[], dirty: Set<string>): Pod[] {
    const byNode = this.index.podsByNodeName;
    if (prev) {
      const n = prev.spec.nodeName;
      if (!n) unbound = without(unbound, prev);
      else {
        const left = without(byNode.get(n) ?? [], prev);
        if (left.length) byNode.set(n, left);
        else byNode.delete(n);
        dirty.add(n);
      }
    }
    if (next) {
      const n = next.spec.nodeName;
      if (!n) unbound = inserted(unbound, next);
      else {
        byNode.set(n, inserted(byNode.get(n) ?? [], next));
        dirty.add(n);
      }
    }
    return unbound;
  }

  /** The NodeClaim a Node with this providerID joins: the last of them in list order, as indexCluster's map keeps. */
  private winner(id: string | undefined): NodeClaim | undefined {
    let best: NodeClaim | undefined;
    for (const name of (id && this.claimsByProvider.get(id)) || []) {
      const nc = this.objects.get('NodeClaim')!.named(undefined, name) as NodeClaim;
      if (best === undefined || byNamespaceAndName(nc, best) > 0) best = nc;
    }
    return best;
  }

  /** A new StateNode for the Node `name` (or none when it is gone); true when the set of machines changed. */
  private refreshNode(name: string, replaced: Map<StateNode, StateNode>): boolean {
    const { nodesByName, nodeClaimsByName, podsByNodeName } = this.index;
    const old = nodesByName.get(name);
    const node = this.objects.get('Node')!.named(undefined, name) as Node | undefined;
    if (node === undefined) {
      if (old === undefined) return false;
      nodesByName.delete(name);
      if (old.nodeClaim && nodeClaimsByName.get(old.nodeClaim.metadata.name) === old)
        nodeClaimsByName.delete(old.nodeClaim.metadata.name);
      return true;
    }
    const providerID = nodeProvider(node);
    const nodeClaim = this.winner(providerID);
    const sn: StateNode = { name, providerID, node, nodeClaim, pods: podsByNodeName.get(name) ?? [] };
    nodesByName.set(name, sn);
    if (old) replaced.set(old, sn);
    if (old?.nodeClaim && nodeClaimsByName.get(old.nodeClaim.metadata.name) === old)
      nodeClaimsByName.delete(old.nodeClaim.metadata.name);
    // Several Nodes may share a providerID; the claim's entry is the last of them in list order.
    if (nodeClaim && lastName(this.nodesByProvider.get(providerID!)!) === name)
      nodeClaimsByName.set(nodeClaim.metadata.name, sn);
    return old === undefined;
  }

  /** Brings a NodeClaim's own StateNode (when no Node joined it) up to date; true when one came or went. */
  private refreshClaim(name: string, replaced: Map<StateNode, StateNode>): boolean {
    const { nodeClaimsByName } = this.index;
    const nc = this.objects.get('NodeClaim')!.named(undefined, name) as NodeClaim | undefined;
    const old = this.claimOnly.get(name);
    const id = claimProvider(nc);
    const joined = nc !== undefined && id !== undefined && this.nodesByProvider.has(id) && this.winner(id) === nc;
    if (nc === undefined || joined) {
      if (old === undefined) return false;
      this.claimOnly.delete(name);
      if (nodeClaimsByName.get(name) === old) nodeClaimsByName.delete(name);
      return true;
    }
    const sn = old?.nodeClaim === nc ? old : { name, providerID: id, nodeClaim: nc, pods: [] };
    this.claimOnly.set(name, sn);
    nodeClaimsByName.set(name, sn);
    if (old && old !== sn) replaced.set(old, sn);
    return old === undefined;
  }

  /** stateNodes as indexCluster orders them: Nodes in list order, then unjoined NodeClaims in list order. */
  private orderedStateNodes(): StateNode[] {
    const out: StateNode[] = [];
    for (const n of this.sorted.get('Node')!.read()) out.push(this.index.nodesByName.get(n.metadata.name)!);
    for (const nc of this.sorted.get('NodeClaim')!.read()) {
      const sn = this.claimOnly.get(nc.metadata.name);
      if (sn) out.push(sn);
    }
    return out;
  }

  private list(kind: IndexKind): KubeObject[] {
    let l = this.lists.get(kind);
    if (l === undefined) this.lists.set(kind, (l = this.sorted.get(kind)!.read().slice()));
    return l;
  }

  /** The snapshot of the new index: unchanged kinds keep their lists; changed ones are listed when first read. */
  private snapshot(changed: Set<IndexKind>): Snapshot {
    for (const kind of changed) this.lists.delete(kind);
    const fixed = new Map<Bucket, KubeObject[]>();
    const read = (kind: IndexKind): KubeObject[] => {
      const b = INDEX_BUCKETS[kind];
      let l = fixed.get(b);
      if (l === undefined) fixed.set(b, (l = this.list(kind)));
      return l;
    };
    return {
      get nodePools() {
        return read('NodePool') as NodePool[];
      },
      get nodeClaims() {
        return read('NodeClaim') as NodeClaim[];
      },
      get nodes() {
        return read('Node') as Node[];
      },
      get pods() {
        return read('Pod') as Pod[];
      },
      get pdbs() {
        return read('PodDisruptionBudget') as PodDisruptionBudget[];
      },
      get configMaps() {
        return read('ConfigMap') as Snapshot['configMaps'];
      },
      ignored: 0,
    };
  }
}

/**
 * One kind's objects by namespace, then name: two lookups of strings the objects already hold,
 * rather than a joined key built per object (150,000 of them took most of a full build's time).
 */
class ObjectsByName {
  private readonly byNamespace = new Map<string, Map<string, KubeObject>>();
  size = 0;

  named(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.byNamespace.get(namespace ?? '')?.get(name);
  }

  get(o: KubeObject): KubeObject | undefined {
    return this.named(o.metadata.namespace, o.metadata.name);
  }

  set(o: KubeObject): void {
    const ns = o.metadata.namespace ?? '';
    let names = this.byNamespace.get(ns);
    if (names === undefined) this.byNamespace.set(ns, (names = new Map()));
    const before = names.size;
    names.set(o.metadata.name, o);
    this.size += names.size - before;
  }

  delete(o: KubeObject): void {
    const names = this.byNamespace.get(o.metadata.namespace ?? '');
    if (names?.delete(o.metadata.name)) this.size--;
  }

  *values(): Iterable<KubeObject> {
    for (const names of this.byNamespace.values()) yield* names.values();
  }
}

function addTo(m: Map<string, Set<string>>, key: string | undefined, name: string): void {
  if (key === undefined) return;
  const s = m.get(key);
  if (s) s.add(name);
  else m.set(key, new Set([name]));
}

function dropFrom(m: Map<string, Set<string>>, key: string | undefined, name: string): void {
  if (key === undefined) return;
  const s = m.get(key);
  if (!s) return;
  s.delete(name);
  if (s.size === 0) m.delete(key);
}

const lastName = (names: Set<string>): string => {
  let last = '';
  for (const n of names) if (compare(n, last) > 0) last = n;
  return last;
};

/** A copy of a list-ordered array without `obj` (found by namespace and name). */
function without<T extends KubeObject>(sorted: readonly T[], obj: T): T[] {
  const { at, found } = position(sorted, obj);
  const out = sorted.slice();
  if (found) out.splice(at, 1);
  return out;
}

/** A copy of a list-ordered array with `obj` in its place. */
function inserted<T extends KubeObject>(sorted: readonly T[], obj: T): T[] {
  const { at, found } = position(sorted, obj);
  const out = sorted.slice();
  out.splice(at, found ? 1 : 0, obj);
  return out;
}

/**
 * A copy of stateNodes with replaced entries swapped in, found by binary search by name: the
 * first `nodeCount` entries are the Nodes by name, the rest the unjoined NodeClaims by name.
 */
function withReplaced(
  stateNodes: readonly StateNode[],
  replaced: Map<StateNode, StateNode>,
  nodeCount: number,
): StateNode[] | undefined {
  const out = stateNodes.slice();
  for (const [old, sn] of replaced) {
    let lo = old.node ? 0 : nodeCount;
    let hi = old.node ? nodeCount : out.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(out[mid].name, old.name) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (out[lo] !== old) return undefined; // not where its name puts it (names out of list order): rebuild
    out[lo] = sn;
  }
  return out;
}

function byNamespace(pdbs: readonly PodDisruptionBudget[]): Map<string, PodDisruptionBudget[]> {
  const out = new Map<string, PodDisruptionBudget[]>();
  for (const pdb of pdbs) {
    const ns = pdb.metadata.namespace ?? 'default';
    const list = out.get(ns);
    if (list) list.push(pdb);
    else out.set(ns, [pdb]);
  }
  return out;
}
