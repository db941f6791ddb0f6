// SPDX-License-Identifier: Apache-2.0
// TerminationController: Karpenter's termination finalizers for Nodes and NodeClaims in one
// reconcile (KARPENTER.md#termination). Each pass reads everything from the cluster, so a new controller on
// the same cluster resumes where an old one stopped; only eviction backoff is in memory.
// Order within a pass, and why:
//   1. NodePool deletion → delete its NodeClaims (they then take the same graceful path).
//   2. Cascade: a deleting Node deletes its NodeClaim, a deleting NodeClaim its Nodes, so manual
//      deletion of either ends in the same flow.
//   3. NodeClaim termination-time annotation, before any drain reads T.
//   4. Node finalizers: taint, drain (queueing pods), MinDrainTime, instance, release.
//   5. Eviction queue: evicts or force-deletes what step 4 queued, in the same pass.
//   6. NodeClaim finalizers, after re-reading Nodes so a Node released in 4 frees its claim now.
import { isApiError, type ClusterClient, type Kind } from '../../core/cluster/client.js';
import { WatchedKinds } from '../reconciler/watched-kinds.js';
import { ChangeFlag } from '../../world/controllers/change-flag.js';
import type { KubeObject, Node, NodeClaim, NodePool, Pod } from '../../core/cluster/types.js';
import type { CloudProvider } from '../../world/cloud/provider.js';
import type { EventRecorder } from '../../core/observe/recorder.js';
import type { StepResult, TerminationContext } from './context.js';
import { EvictionQueue } from './eviction-queue.js';
import {
  DRAIN_REQUEUE_MS,
  FINALIZER_TERMINATION,
  LABEL_NODEPOOL,
  MIN_DRAIN_TIME_MS,
  type TerminationMetrics,
} from './names.js';
import { finalizeNode } from './node-finalizer.js';
import { finalizeNodeClaim } from './nodeclaim-finalizer.js';
import { ensureTerminationTime, type TgpSecondsFor } from './termination-time.js';
import { KeptNames, pick } from '../../core/cluster/kept-names.js';
import { position } from '../../core/cluster/sorted-objects.js';

export interface TerminationControllerOptions {
  client: ClusterClient;
  cloud: CloudProvider;
  recorder: EventRecorder;
  metrics?: TerminationMetrics;
  /** Policy-level terminationGracePeriod (see termination-time.ts); overrides the NodeClaim's own. */
  tgpSecondsFor?: TgpSecondsFor;
  /** Default 5 s (Karpenter's MinDrainTime). */
  minDrainTimeMs?: number;
  /**
   * The Nodes it finalizes (drains, releases). Default: every Node. Standalone on a real
   * cluster: only the simulated cloud's (src/world/cloud/ownership.ts); another provider's deleting
   * Node is that provider's to drain and to release.
   */
  ownsNode?: (node: Node) => boolean;
  /**
   * The pods bound to a Node in list order, when a watch-fed index knows them (the node agent's
   * on the in-memory cluster); undefined: list every pod. A drain of a few nodes then reads their
   * pods, not the cluster's.
   */
  podsOn?: (node: string) => readonly Pod[] | undefined;
  /**
   * The in-memory server's per-kind resourceVersions (see src/control/reconciler/watched-kinds.ts):
   * with them an idle controller learns from watch events alone whether a pass has anything to do.
   */
  kindVersion?: (kind: Kind) => number;
}

export interface TerminationResult {
  /** When the controller next has something to do (ms from now); undefined when nothing is terminating. */
  requeueAfterMs?: number;
  /** Objects whose finalizer was removed in this pass. */
  released: { nodes: string[]; nodeClaims: string[] };
  /** Per-object failures (409 conflicts, cloud errors); the object is retried next pass. A 404 is not a failure. */
  errors: { object: string; error: unknown }[];
}

const deleting = (o: KubeObject): boolean => o.metadata.deletionTimestamp !== undefined;
const finalizing = (o: KubeObject): boolean =>
  deleting(o) && (o.metadata.finalizers ?? []).includes(FINALIZER_TERMINATION);
const claimProvider = (c: NodeClaim): string => c.status?.providerID ?? '';
const nodeProvider = (n: Node): string => n.spec.providerID ?? '';

export class TerminationController {
  readonly queue: EvictionQueue;
  private readonly ctx: TerminationContext;
  /**
   * A pass that found nothing deleting, queued nothing and wrote nothing does the same until a
   * NodePool, NodeClaim or Node changes: time alone starts no termination (pods matter only on
   * a finalizing Node). A quiet 5,000-node cluster then skips three scans a tick.
   */
  private readonly changes: ChangeFlag;
  private idle = false;
  /** Whether the last pass saw a deleting NodePool or a finalizing NodeClaim or Node. */
  private busy = false;
  /**
   * The objects that make a pass do anything — deleting NodePools, finalizing NodeClaims and
   * (owned) Nodes — by kind/name, kept from the last pass's lists and the watch events since.
   * While none exists and the last pass was idle, a pass would find nothing and write nothing:
   * it is skipped, however many NodeClaims changed meanwhile (one pod event bumps one
   * NodeClaim's lastPodEventTime, and the pass would list 5,000 of them to find that out).
   */
  private readonly watched: WatchedKinds;
  private readonly active = new Set<string>();
  /**
   * Kept with `active`, for a pass's lookups in its lists (src/core/cluster/kept-names.ts): per kind, the names of
   * the acting objects and the names by providerID. A pass over 5,000 machines with two finalizing
   * then finds those two and their partners without walking the lists.
   */
  private readonly kept = {
    acting: { NodeClaim: new KeptNames(), Node: new KeptNames() },
    byProvider: { NodeClaim: new KeptNames(), Node: new KeptNames() },
  };
  /** Off: a change to any NodePool, NodeClaim or Node runs a pass (the reference the equality test compares with). */
  incremental = true;
  /** Passes skipped because no watched object is active (tests). */
  skipped = 0;

  constructor(private readonly opts: TerminationControllerOptions) {
    this.queue = new EvictionQueue({ client: opts.client, recorder: opts.recorder, metrics: opts.metrics });
    this.ctx = {
      ...opts,
      queue: this.queue,
      minDrainTimeMs: opts.minDrainTimeMs ?? MIN_DRAIN_TIME_MS,
      drainedWithoutClaim: new Set(),
    };
    this.changes = new ChangeFlag(opts.client, ['NodePool', 'NodeClaim', 'Node']);
    this.watched = new WatchedKinds(opts.client, ['NodePool', 'NodeClaim', 'Node'], opts.kindVersion, (e) =>
      this.note(e.type === 'DELETED' ? undefined : e.object, e.object),
    );
  }

  /** Keeps `obj` (undefined: gone) in the active set when a pass would act on it. */
  private note(obj: KubeObject | undefined, key: KubeObject): void {
    const id = `${key.kind}/${key.metadata.name}`;
    const acting = obj !== undefined && this.acts(obj);
    if (acting) this.active.add(id);
    else this.active.delete(id);
    // Without kind versions no pass can trust them (watched-kinds.ts): nothing to keep.
    if ((key.kind !== 'NodeClaim' && key.kind !== 'Node') || this.opts.kindVersion === undefined) return;
    const name = key.metadata.name;
    this.kept.acting[key.kind].note(name, acting ? 'acting' : undefined);
    const pid =
      obj === undefined ? '' : key.kind === 'Node' ? nodeProvider(obj as Node) : claimProvider(obj as NodeClaim);
    this.kept.byProvider[key.kind].note(name, pid === '' ? undefined : pid);
  }

  private keptNames(): KeptNames[] {
    const k = this.kept;
    return [k.acting.NodeClaim, k.acting.Node, k.byProvider.NodeClaim, k.byProvider.Node];
  }

  private acts(o: KubeObject): boolean {
    if (o.kind === 'NodePool') return deleting(o);
    // Finalizing first: it is the rarer answer and the cheaper question.
    if (!finalizing(o)) return false;
    return o.kind !== 'Node' || !this.opts.ownsNode || this.opts.ownsNode(o as Node);
  }

  /** The pass would find nothing to do: it was idle, and no watched object has become active since. */
  private stillIdle(): boolean {
    return this.incremental && this.idle && this.queue.size === 0 && this.active.size === 0 && this.watched.complete();
  }

  async reconcile(nowMs: number): Promise<TerminationResult> {
    let result: TerminationResult = { released: { nodes: [], nodeClaims: [] }, errors: [] };
    if (this.stillIdle()) {
      this.skipped++;
      return result;
    }
    await this.changes.ifChanged(
      async () => {
        result = await this.pass(nowMs);
        this.idle =
          result.requeueAfterMs === undefined && result.errors.length === 0 && this.queue.size === 0 && !this.busy;
      },
      !this.idle || this.queue.size > 0,
    );
    return result;
  }

  // eslint-disable-next-line complexity -- the finalizer's steps in Karpenter's order, one guarded line each
  private async pass(nowMs: number): Promise<TerminationResult> {
    const { client } = this.opts;
    const result: TerminationResult = { released: { nodes: [], nodeClaims: [] }, errors: [] };
    let next: number | undefined;
    const wake = (ms: number): void => void (next = next === undefined ? ms : Math.min(next, ms));
    const guard = async (object: string, step: () => Promise<StepResult | void>): Promise<StepResult | void> => {
      try {
        return await step();
      } catch (error) {
        if (isApiError(error, 404)) return; // gone meanwhile (another writer finished it): nothing left to do
        result.errors.push({ object, error });
        wake(DRAIN_REQUEUE_MS);
      }
    };

    const owns = this.opts.ownsNode;
    const listNodes = async (): Promise<Node[]> => {
      const all = await client.list<Node>('Node');
      return owns ? all.filter(owns) : all;
    };
    // Kept from every event since the last list (the in-memory cluster): the pass looks its
    // finalizing objects and their partners up by name (src/core/cluster/kept-names.ts). Else the active set and
    // the kept names are rebuilt from the first lists; later writes reach them as watch events.
    const kept = this.incremental && this.watched.complete();
    if (kept) for (const k of this.keptNames()) k.mark();
    else {
      this.active.clear();
      for (const k of this.keptNames()) k.clear();
    }
    this.watched.listing('NodePool');
    const pools = await client.list<NodePool>('NodePool');
    this.watched.listing('NodeClaim');
    let claims = await client.list<NodeClaim>('NodeClaim');
    this.watched.listing('Node');
    let nodes = await listNodes();
    // The set was just cleared and names are unique per kind: only the acting objects are added.
    // With kind versions the kept names are rebuilt too (note), for the passes that can trust them.
    const keeps = this.opts.kindVersion !== undefined;
    if (!kept)
      for (const list of [pools, claims, nodes] as const)
        for (const o of list as readonly KubeObject[]) {
          if (keeps && o.kind !== 'NodePool') this.note(o, o);
          else if (this.acts(o)) this.active.add(`${o.kind}/${o.metadata.name}`);
        }
    /** `list.filter(finalizing)`; kept: from the names acting since the pass began. */
    const finalizingIn = <T extends Node | NodeClaim>(list: readonly T[], kind: T['kind']): T[] =>
      kept ? pick(list, this.kept.acting[kind].under('acting'), finalizing) : list.filter(finalizing);
    /** ByProvider over `list` for the `wanted` ids; kept: their groups from the names kept by providerID. */
    const byProviderOf = <T extends Node | NodeClaim>(
      list: readonly T[],
      kind: T['kind'],
      providerOf: (o: T) => string,
      wanted: string[],
    ): ByProvider<T> => {
      const ids = this.only(wanted);
      if (!kept || ids === undefined) return new ByProvider(list, providerOf, ids);
      const names = this.kept.byProvider[kind];
      return new ByProvider(list, providerOf, ids, (id) => pick(list, names.under(id), (o) => providerOf(o) === id));
    };

    let cascaded = false;
    // Each cascade stage reads what the previous one wrote (a deleted pool's claims delete their Nodes in the same
    // pass).
    const relist = async (): Promise<void> => {
      if (cascaded) [claims, nodes] = await Promise.all([client.list<NodeClaim>('NodeClaim'), listNodes()]);
      cascaded = false;
    };
    const remove = async (obj: KubeObject): Promise<void> => {
      cascaded = true;
      await guard(`${obj.kind}/${obj.metadata.name}`, async () => {
        try {
          await client.delete({ kind: obj.kind as 'Node' | 'NodeClaim', name: obj.metadata.name });
        } catch (e) {
          if (!isApiError(e, 404)) throw e;
        }
      });
    };
    this.busy =
      pools.some(deleting) || finalizingIn(claims, 'NodeClaim').length > 0 || finalizingIn(nodes, 'Node').length > 0;
    for (const pool of pools.filter(deleting)) {
      for (const c of claims)
        if (!deleting(c) && c.metadata.labels?.[LABEL_NODEPOOL] === pool.metadata.name) await remove(c);
    }
    await relist();
    // The providerID maps are built only when some object is finalizing: a quiet tick builds none.
    const finalizingNodes = finalizingIn(nodes, 'Node');
    const claimsByProviderNow = byProviderOf(claims, 'NodeClaim', claimProvider, finalizingNodes.map(nodeProvider));
    for (const node of finalizingNodes) {
      const claim = this.claimFor(node, claimsByProviderNow);
      if (claim && !deleting(claim)) await remove(claim);
    }
    await relist();
    const finalizingClaimsNow = finalizingIn(claims, 'NodeClaim');
    const nodesByProviderNow = byProviderOf(nodes, 'Node', nodeProvider, finalizingClaimsNow.map(claimProvider));
    for (const claim of finalizingClaimsNow) {
      for (const node of this.nodesFor(claim, nodesByProviderNow)) if (!deleting(node)) await remove(node);
    }
    await relist();

    // Each finalizing claim in list order (kept: found by name); a write replaces only its own entry.
    const finalizingAt = kept
      ? finalizingIn(claims, 'NodeClaim').map((c) => position(claims, c).at)
      : claims.flatMap((c, i) => (finalizing(c) ? [i] : []));
    for (const i of finalizingAt) {
      const claim = claims[i]!;
      await guard(`NodeClaim/${claim.metadata.name}`, async () => {
        claims[i] = await ensureTerminationTime(client, this.opts.recorder, claim, this.opts.tgpSecondsFor);
      });
    }

    const finalizingNodesNow = finalizingIn(nodes, 'Node');
    const claimsByProvider = byProviderOf(claims, 'NodeClaim', claimProvider, finalizingNodesNow.map(nodeProvider));
    const draining = finalizingNodesNow.filter(
      (n) => n.metadata.labels?.[LABEL_NODEPOOL] !== undefined || this.claimFor(n, claimsByProvider),
    );
    const indexed = this.opts.podsOn;
    let podsByNode: Map<string, Pod[]> | undefined;
    // Read before any drain writes, as the listing is.
    const podsOf = new Map<string, readonly Pod[]>();
    for (const node of draining) {
      const name = node.metadata.name;
      const known = indexed?.(name);
      if (known === undefined && podsByNode === undefined) podsByNode = groupByNode(await client.list<Pod>('Pod'));
      podsOf.set(name, known ?? podsByNode?.get(name) ?? []);
    }
    for (const node of draining) {
      const name = node.metadata.name;
      const step = await guard(`Node/${name}`, () =>
        finalizeNode(this.ctx, node, this.claimFor(node, claimsByProvider), podsOf.get(name) ?? [], nowMs),
      );
      if (step?.done) result.released.nodes.push(name);
      else if (step) wake(step.requeueMs);
    }

    await this.queue.reconcile(nowMs);
    const due = this.queue.nextDue();
    if (due !== undefined) wake(Math.max(due - nowMs, 0));

    const finalizingClaims = finalizingIn(claims, 'NodeClaim');
    if (finalizingClaims.length > 0) {
      if (result.released.nodes.length > 0) nodes = await listNodes();
      const nodesByProvider = byProviderOf(nodes, 'Node', nodeProvider, finalizingClaims.map(claimProvider));
      for (const claim of finalizingClaims) {
        const fresh = await client.get<NodeClaim>({ kind: 'NodeClaim', name: claim.metadata.name });
        if (!fresh || !finalizing(fresh)) continue;
        const step = await guard(`NodeClaim/${claim.metadata.name}`, () =>
          finalizeNodeClaim(this.ctx, fresh, this.nodesFor(fresh, nodesByProvider), nowMs),
        );
        if (step?.done) result.released.nodeClaims.push(claim.metadata.name);
        else if (step) wake(step.requeueMs);
      }
    }
    if (next !== undefined) result.requeueAfterMs = next;
    return result;
  }

  /** The providerIDs an index groups up front; off (incremental false), all of them: the reference. */
  private only(ids: string[]): string[] | undefined {
    return this.incremental ? ids : undefined;
  }

  /** The NodeClaim of a Node by providerID; none or several → undefined (the flow proceeds without one). */
  private claimFor(node: Node, claimsByProvider: ByProvider<NodeClaim>): NodeClaim | undefined {
    const id = nodeProvider(node);
    const found = id ? claimsByProvider.get(id) : undefined;
    return found?.length === 1 ? found[0] : undefined;
  }

  private nodesFor(claim: NodeClaim, nodesByProvider: ByProvider<Node>): Node[] {
    const id = claimProvider(claim);
    return (id && nodesByProvider.get(id)) || [];
  }
}

/**
 * Objects grouped by providerID, in list order. Only the groups of the `wanted` ids (those of the
 * few finalizing objects) are built up front: a drain of a few nodes at 5,000 nodes then files 5,000
 * objects under a handful of keys, not under 5,000. Another id groups every object once, on demand,
 * so any question gets the answer a full grouping would give (the list must not be changed meanwhile:
 * each index here is read in the steps right after its lists, before anything writes into them).
 */
class ByProvider<T extends KubeObject> {
  private readonly wanted: ReadonlySet<string>;
  private readonly some: Map<string, T[]>;
  private all: Map<string, T[]> | undefined;

  constructor(
    private readonly objects: readonly T[],
    private readonly providerOf: (o: T) => string,
    /** Undefined: every id, grouped at once. */
    wanted: readonly string[] | undefined,
    /** The group of one wanted id, when the caller can find it without a walk (src/core/cluster/kept-names.ts). */
    groupOf?: (id: string) => T[],
  ) {
    if (wanted === undefined) this.all = byProvider(objects, providerOf);
    this.wanted = new Set(wanted?.filter((id) => id !== ''));
    if (this.wanted.size === 0) this.some = new Map();
    else if (groupOf === undefined) this.some = byProvider(objects, providerOf, this.wanted);
    else {
      this.some = new Map();
      for (const id of this.wanted) {
        const group = groupOf(id);
        if (group.length > 0) this.some.set(id, group);
      }
    }
  }

  get(id: string): T[] | undefined {
    if (this.wanted.has(id) && this.all === undefined) return this.some.get(id);
    return (this.all ??= byProvider(this.objects, this.providerOf)).get(id);
  }
}

/** Objects grouped by providerID (objects without one are left out; with `only`, also those of other ids). */
function byProvider<T extends KubeObject>(
  objects: readonly T[],
  providerOf: (o: T) => string,
  only?: ReadonlySet<string>,
): Map<string, T[]> {
  const index = new Map<string, T[]>();
  for (const o of objects) {
    const id = providerOf(o);
    if (!id || (only !== undefined && !only.has(id))) continue;
    const group = index.get(id);
    if (group) group.push(o);
    else index.set(id, [o]);
  }
  return index;
}

function groupByNode(pods: readonly Pod[]): Map<string, Pod[]> {
  const out = new Map<string, Pod[]>();
  for (const pod of pods) {
    const name = pod.spec.nodeName;
    if (!name) continue;
    const group = out.get(name);
    if (group) group.push(pod);
    else out.set(name, [pod]);
  }
  return out;
}
