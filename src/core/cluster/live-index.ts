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

/** How many applied batches' machine changes a LiveIndex keeps for stateNodeChanges. */
const CHANGE_LOG = 32;

/** The StateNodes one index has and the other not, and the names of Nodes whose pods changed. */
export interface StateNodeChanges {
  gone: StateNode[];
  came: StateNode[];
  /** Names under which pods came, went or changed (their Node may or may not exist). */
  podNodes: string[];
}

/** The LiveIndex each index came from, and its serial there. */
const origins = new WeakMap<ClusterIndex, { live: LiveIndex; serial: number }>();

/**
 * What changed among the machines between two indexes of one LiveIndex, `from` no newer than
 * `to`: the StateNodes of `from` not in `to` (gone), those of `to` not in `from` (came), and the
 * node names whose pod lists changed — as many as the applied events touched, not the cluster.
 * Undefined when not known (indexes of different LiveIndexes or none, or further apart than the
 * log reaches): the reader compares the machines itself.
 */
export function stateNodeChanges(from: ClusterIndex, to: ClusterIndex): StateNodeChanges | undefined {
  const a = origins.get(from);
  const b = origins.get(to);
  if (a === undefined || b === undefined || a.live !== b.live) return undefined;
  return a.live.changesBetween(a.serial, b.serial);
}

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
  /** The serial of the current index, and the machine changes of the last CHANGE_LOG batches. */
  private serial = 0;
  private log: { serial: number; gone: StateNode[]; came: StateNode[]; podNodes: string[] }[] = [];

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
    for (let i = this.index.joined; i < this.index.stateNodes.length; i++) {
      const sn = this.index.stateNodes[i];
      this.claimOnly.set(sn.nodeClaim!.metadata.name, sn);
    }
    origins.set(this.index, { live: this, serial: this.serial });
  }

  /** See stateNodeChanges: the changes from the index of serial `a` to that of serial `b`. */
  changesBetween(a: number, b: number): StateNodeChanges | undefined {
    if (a > b) return undefined;
    const out: StateNodeChanges = { gone: [], came: [], podNodes: [] };
    if (a === b) return out;
    const first = this.log.findIndex((e) => e.serial === a + 1);
    if (first < 0) return undefined;
    // A StateNode that came and went again in between cancels out.
    const gone = new Set<StateNode>();
    const came = new Set<StateNode>();
    const podNodes = new Set<string>();
    for (let i = first; i < this.log.length && this.log[i].serial <= b; i++) {
      const e = this.log[i];
      for (const sn of e.gone) if (!came.delete(sn)) gone.add(sn);
      for (const sn of e.came) if (!gone.delete(sn)) came.add(sn);
      for (const n of e.podNodes) podNodes.add(n);
    }
    return { gone: [...gone], came: [...came], podNodes: [...podNodes] };
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
    const podNodes = new Set<string>();
    const ix = this.index;
    let unbound = ix.unboundPods;
    // The pod lists this call made: nothing else holds them yet, so later events change them in place.
    const fresh = new Set<readonly Pod[]>();
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
      if (kind === 'Pod')
        unbound = this.movePod(prev as Pod | undefined, next as Pod | undefined, unbound, podNodes, fresh);
      else if (kind === 'Node' || kind === 'NodeClaim')
        this.moveMachine(kind, prev, next, e.object.metadata.name, dirtyNodes, dirtyClaims, dirtyProviders);
    }
    if (changed.size === 0) return ix;
    for (const n of podNodes) dirtyNodes.add(n);
    for (const id of dirtyProviders) {
      for (const n of this.nodesByProvider.get(id) ?? []) dirtyNodes.add(n);
      for (const c of this.claimsByProvider.get(id) ?? []) dirtyClaims.add(c);
    }
    const replaced = new Map<StateNode, StateNode>();
    const gone: StateNode[] = [];
    const came: StateNode[] = [];
    for (const name of dirtyNodes) this.refreshNode(name, replaced, gone, came);
    for (const name of dirtyClaims) this.refreshClaim(name, replaced, gone, came);
    // Machines that came or went are spliced in and out by name, as replaced ones are swapped in.
    // The refreshes keep nodesByName whole, so its size is the new index's count of Nodes.
    const joined = ix.nodesByName.size;
    const stateNodes =
      replaced.size + gone.length + came.length === 0
        ? ix.stateNodes
        : (spliced(ix.stateNodes, ix.joined, replaced, gone, came, joined) ?? this.orderedStateNodes());
    for (const [old, sn] of replaced) {
      gone.push(old);
      came.push(sn);
    }
    this.index = {
      snapshot: this.snapshot(changed),
      stateNodes,
      joined,
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
    this.log.push({ serial: ++this.serial, gone, came, podNodes: [...podNodes] });
    if (this.log.length > CHANGE_LOG) this.log.shift();
    origins.set(this.index, { live: this, serial: this.serial });
    return this.index;
  }

  /** Moves a Node or NodeClaim between providerIDs and marks what it touches. */
  private moveMachine(
    kind: 'Node' | 'NodeClaim',
    prev: KubeObject | undefined,
    next: KubeObject | undefined,
    name: string,
    dirtyNodes: Set<string>,
    dirtyClaims: Set<string>,
    dirtyProviders: Set<string>,
  ): void {
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
  }

  /**
   * Takes `prev` out of its node's pod list (or the unbound ones) and puts `next` in its own; the
   * lists are copied once per apply (`fresh`), as an earlier index may hold them.
   */
  private movePod(
    prev: Pod | undefined,
    next: Pod | undefined,
    unbound: Pod[],
    dirty: Set<string>,
    fresh: Set<readonly Pod[]>,
  ): Pod[] {
    const byNode = this.index.podsByNodeName;
    if (prev) {
      const n = prev.spec.nodeName;
      if (!n) unbound = without(unbound, prev, fresh);
      else {
        const left = without(byNode.get(n) ?? [], prev, fresh);
        if (left.length) byNode.set(n, left);
        else byNode.delete(n);
        dirty.add(n);
      }
    }
    if (next) {
      const n = next.spec.nodeName;
      if (!n) unbound = inserted(unbound, next, fresh);
      else {
        byNode.set(n, inserted(byNode.get(n) ?? [], next, fresh));
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

  /** A new StateNode for the Node `name` (or none when it is gone), noted in `replaced`, `gone` or `came`. */
  private refreshNode(name: string, replaced: Map<StateNode, StateNode>, gone: StateNode[], came: StateNode[]): void {
    const { nodesByName, nodeClaimsByName, podsByNodeName } = this.index;
    const old = nodesByName.get(name);
    const node = this.objects.get('Node')!.named(undefined, name) as Node | undefined;
    if (node === undefined) {
      if (old === undefined) return;
      gone.push(old);
      nodesByName.delete(name);
      if (old.nodeClaim && nodeClaimsByName.get(old.nodeClaim.metadata.name) === old)
        nodeClaimsByName.delete(old.nodeClaim.metadata.name);
      return;
    }
    const providerID = nodeProvider(node);
    const nodeClaim = this.winner(providerID);
    const sn: StateNode = { name, providerID, node, nodeClaim, pods: podsByNodeName.get(name) ?? [] };
    nodesByName.set(name, sn);
    if (old) replaced.set(old, sn);
    else came.push(sn);
    if (old?.nodeClaim && nodeClaimsByName.get(old.nodeClaim.metadata.name) === old)
      nodeClaimsByName.delete(old.nodeClaim.metadata.name);
    // Several Nodes may share a providerID; the claim's entry is the last of them in list order.
    if (nodeClaim && lastName(this.nodesByProvider.get(providerID!)!) === name)
      nodeClaimsByName.set(nodeClaim.metadata.name, sn);
  }

  /** Brings a NodeClaim's own StateNode (when no Node joined it) up to date, noted in `replaced`, `gone` or `came`. */
  private refreshClaim(name: string, replaced: Map<StateNode, StateNode>, gone: StateNode[], came: StateNode[]): void {
    const { nodeClaimsByName } = this.index;
    const nc = this.objects.get('NodeClaim')!.named(undefined, name) as NodeClaim | undefined;
    const old = this.claimOnly.get(name);
    const id = claimProvider(nc);
    const joined = nc !== undefined && id !== undefined && this.nodesByProvider.has(id) && this.winner(id) === nc;
    if (nc === undefined || joined) {
      if (old === undefined) return;
      gone.push(old);
      this.claimOnly.delete(name);
      if (nodeClaimsByName.get(name) === old) nodeClaimsByName.delete(name);
      return;
    }
    const sn = old?.nodeClaim === nc ? old : { name, providerID: id, nodeClaim: nc, pods: [] };
    this.claimOnly.set(name, sn);
    nodeClaimsByName.set(name, sn);
    if (old && old !== sn) replaced.set(old, sn);
    if (old === undefined) came.push(sn);
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

/** `sorted` itself when it is one of `fresh` (made by this apply), else a copy, from now on one of them. */
function own<T>(sorted: readonly T[], fresh: Set<readonly T[]>): T[] {
  if (fresh.has(sorted)) return sorted as T[];
  const out = sorted.slice();
  fresh.add(out);
  return out;
}

/** A list-ordered array without `obj` (found by namespace and name): a copy, unless `fresh` has it. */
function without<T extends KubeObject>(sorted: readonly T[], obj: T, fresh: Set<readonly T[]>): T[] {
  const { at, found } = position(sorted, obj);
  const out = own(sorted, fresh);
  if (found) out.splice(at, 1);
  return out;
}

/** A list-ordered array with `obj` in its place: a copy, unless `fresh` has it. */
function inserted<T extends KubeObject>(sorted: readonly T[], obj: T, fresh: Set<readonly T[]>): T[] {
  const { at, found } = position(sorted, obj);
  const out = own(sorted, fresh);
  out.splice(at, found ? 1 : 0, obj);
  return out;
}

/**
 * A copy of stateNodes with replaced entries swapped in, `gone` ones taken out and `came` ones put
 * in, each found by binary search by name: the first `nodeCount` entries are the Nodes by name,
 * the rest the unjoined NodeClaims by name. Undefined when an entry is not where its name puts
 * it, a name is taken, or the Nodes do not come to `nodesAfter` (then the caller rebuilds).
 */
function spliced(
  stateNodes: readonly StateNode[],
  nodeCount: number,
  replaced: Map<StateNode, StateNode>,
  gone: readonly StateNode[],
  came: readonly StateNode[],
  nodesAfter: number,
): StateNode[] | undefined {
  const out = stateNodes.slice();
  let nodes = nodeCount;
  /** The first place in the machine's part (Nodes or unjoined NodeClaims) whose name is not before its. */
  const place = (sn: StateNode): number => {
    let lo = sn.node ? 0 : nodes;
    let hi = sn.node ? nodes : out.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(out[mid].name, sn.name) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  for (const [old, sn] of replaced) {
    const at = place(old);
    if (out[at] !== old || Boolean(old.node) !== Boolean(sn.node)) return undefined;
    out[at] = sn;
  }
  for (const old of gone) {
    const at = place(old);
    if (out[at] !== old) return undefined;
    out.splice(at, 1);
    if (old.node) nodes--;
  }
  for (const sn of came) {
    const at = place(sn);
    const end = sn.node ? nodes : out.length;
    if (at < end && out[at].name === sn.name) return undefined;
    out.splice(at, 0, sn);
    if (sn.node) nodes++;
  }
  return nodes === nodesAfter ? out : undefined;
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
