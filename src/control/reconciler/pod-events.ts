// SPDX-License-Identifier: Apache-2.0
// Karpenter's pod-events controller (KARPENTER.md#consolidate-after): a NodeClaim's status.lastPodEventTime is
// bumped when a non-DaemonSet pod is bound to its node, becomes terminal or starts
// terminating — at most every 10 s — so consolidateAfter counts from the last pod change. Any
// other change to a pod (a label, a condition) is not a pod event, as Karpenter's event filter
// says; kpol reads it from each watch event's object before and after the change.
import type { ClusterClient, Kind, WatchEvent } from '../../core/cluster/client.js';
import { byNamespaceAndName } from '../../core/cluster/sorted-objects.js';
import { isDaemonSetPod, isTerminal, isTerminating } from '../../core/cluster/state.js';
import type { Node, NodeClaim, Pod } from '../../core/cluster/types.js';
import type { Clock } from '../../core/clock.js';
import { WatchedKinds } from './watched-kinds.js';

const MIN_INTERVAL_MS = 10_000;

export class PodEventsController {
  private readonly dirty = new Set<string>(); // node names with a pod event since the last pass
  private readonly watch: { stop(): void };
  /**
   * NodeClaim names by providerID, kept from watch events after a list, so a pass over a few
   * dirty nodes reads their Nodes and the claims sharing their providerIDs, not every Node and
   * NodeClaim (with kindVersion only; see watched-kinds.ts).
   */
  private readonly claims: WatchedKinds;
  private readonly claimProvider = new Map<string, string>();
  private readonly claimsByProvider = new Map<string, Set<string>>();
  /** Off: every pass lists every Node and NodeClaim (the reference the equality test compares with). */
  incremental = true;

  constructor(
    private readonly client: ClusterClient,
    private readonly clock: Clock,
    kindVersion?: (kind: Kind) => number,
  ) {
    this.watch = client.watch('Pod', (e: WatchEvent) => this.observe(e as WatchEvent<Pod>));
    this.claims = new WatchedKinds(client, ['NodeClaim'], kindVersion, (e) =>
      this.keepClaim(e.object.metadata.name, e.type === 'DELETED' ? undefined : (e.object as NodeClaim)),
    );
  }

  private keepClaim(name: string, nc: NodeClaim | undefined): void {
    const before = this.claimProvider.get(name);
    const after = nc?.status?.providerID || undefined;
    if (before === after) return;
    if (before !== undefined) {
      const names = this.claimsByProvider.get(before)!;
      names.delete(name);
      if (names.size === 0) this.claimsByProvider.delete(before);
      this.claimProvider.delete(name);
    }
    if (after !== undefined) {
      this.claimProvider.set(name, after);
      const names = this.claimsByProvider.get(after);
      if (names) names.add(name);
      else this.claimsByProvider.set(after, new Set([name]));
    }
  }

  /**
   * Karpenter's filter: a pod that came bound, or a change that bound it, made it terminal or
   * started its termination; a change whose before the client does not hold counts too (a bump
   * too many only delays consolidation). A deleted pod is no event: Karpenter reads the pod again
   * before it acts, and it is gone.
   */
  private observe(e: WatchEvent<Pod>): void {
    const pod = e.object;
    const node = pod.spec.nodeName;
    if (!node || isDaemonSetPod(pod) || e.type === 'DELETED') return;
    const old = e.type === 'MODIFIED' ? e.old : undefined;
    if (old !== undefined && !isPodEvent(old, pod)) return;
    this.dirty.add(node);
  }

  async reconcile(): Promise<void> {
    if (this.dirty.size === 0) return;
    const read = this.incremental && this.claims.complete() ? await this.readDirty() : await this.readAll();
    await this.bump(read.nodes, read.claims);
  }

  /** Every Node and NodeClaim; rebuilds the claims kept by providerID from the list. */
  private async readAll(): Promise<{ nodes: ReadonlyMap<string, Node>; claims: readonly NodeClaim[] }> {
    const nodes = new Map((await this.client.list<Node>('Node')).map((n) => [n.metadata.name, n]));
    this.claimProvider.clear();
    this.claimsByProvider.clear();
    this.claims.listing('NodeClaim');
    const claims = await this.client.list<NodeClaim>('NodeClaim');
    for (const nc of claims) this.keepClaim(nc.metadata.name, nc);
    return { nodes, claims };
  }

  /**
   * The dirty Nodes, and in list order the NodeClaims with their providerIDs: the only claims the
   * pass below can patch.
   */
  private async readDirty(): Promise<{ nodes: ReadonlyMap<string, Node>; claims: readonly NodeClaim[] }> {
    const nodes = new Map<string, Node>();
    const names = new Set<string>();
    for (const name of this.dirty) {
      const node = await this.client.get<Node>({ kind: 'Node', name });
      if (node === undefined) continue;
      nodes.set(name, node);
      const id = node.spec.providerID;
      for (const c of (id && this.claimsByProvider.get(id)) || []) names.add(c);
    }
    const claims: NodeClaim[] = [];
    for (const name of names) {
      const nc = await this.client.get<NodeClaim>({ kind: 'NodeClaim', name });
      if (nc) claims.push(nc);
    }
    return { nodes, claims: claims.sort(byNamespaceAndName) };
  }

  private async bump(nodes: ReadonlyMap<string, Node>, claims: readonly NodeClaim[]): Promise<void> {
    const now = this.clock.now();
    // providerID → the first dirty node with it, in the order the nodes became dirty.
    const dirtyByProvider = new Map<string, string>();
    for (const name of this.dirty) {
      const id = nodes.get(name)?.spec.providerID;
      if (id && !dirtyByProvider.has(id)) dirtyByProvider.set(id, name);
    }
    for (const nc of claims) {
      const id = nc.status?.providerID;
      const node = id ? dirtyByProvider.get(id) : undefined;
      if (!node || !this.dirty.has(node)) continue;
      const last = Date.parse(nc.status?.lastPodEventTime ?? '');
      if (!Number.isNaN(last) && now - last < MIN_INTERVAL_MS) continue;
      await this.client.patch(
        { kind: 'NodeClaim', name: nc.metadata.name },
        { status: { lastPodEventTime: new Date(now).toISOString().replace('.000Z', 'Z') } },
      );
      this.dirty.delete(node);
    }
    for (const name of this.dirty) if (!nodes.has(name)) this.dirty.delete(name);
  }

  close(): void {
    this.watch.stop();
    this.claims.stop();
  }
}

/** Whether `now`, the pod after a change from `old`, became bound, terminal or terminating (Karpenter's UpdateFunc). */
function isPodEvent(old: Pod, now: Pod): boolean {
  return !old.spec.nodeName || (!isTerminal(old) && isTerminal(now)) || (!isTerminating(old) && isTerminating(now));
}
