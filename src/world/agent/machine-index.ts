// SPDX-License-Identifier: Apache-2.0
// What the node agent's machine part looks up among 5,000 NodeClaims and Nodes, kept from watch
// events (src/core/cluster/kept-names.ts) instead of found by walking both lists every pass: the
// NodeClaims it may act on (not settled: on their way, or deleting without an instance), and the
// Nodes and NodeClaims by providerID. A busy tick that deletes one machine then reads the few
// unsettled NodeClaims and their Nodes, not every one. Each answer is resolved in the list the
// pass holds, so the pass acts on the objects, in the order, that its walk over the lists would.
// Trusts watch events to arrive before a writer resumes (the in-memory cluster).
import type { ClusterClient } from '../../core/cluster/client.js';
import { KeptNames } from '../../core/cluster/kept-names.js';
import type { Node, NodeClaim } from '../../core/cluster/types.js';
import { claimSettled } from './machine-changes.js';

const UNSETTLED = 'unsettled';

export class MachineIndex {
  private readonly claimIds = new KeptNames();
  private readonly nodeIds = new KeptNames();
  private readonly unsettled = new KeptNames();
  /** NodeClaim and Node name → its latest object (the stored one: a list made now holds the same). */
  private readonly claims = new Map<string, NodeClaim>();
  private readonly nodes = new Map<string, Node>();
  private built = false;
  private readonly watches: { stop(): void }[];
  /** Whether some Node has the providerID now (claimSettled's question). */
  private readonly nodeExists = { has: (id: string): boolean => this.nodeIds.current(id).length > 0 };

  constructor(client: ClusterClient) {
    this.watches = [
      client.watch('NodeClaim', (e) => {
        if (!this.built) return;
        const nc = e.object as NodeClaim;
        this.noteClaim(nc.metadata.name, e.type === 'DELETED' ? undefined : nc);
      }),
      client.watch('Node', (e) => {
        if (!this.built) return;
        const node = e.object as Node;
        this.noteNode(node.metadata.name, e.type === 'DELETED' ? undefined : node);
      }),
    ];
  }

  /** Whether the index follows every write since it was built (else the pass walks its lists, and `build`s it). */
  get tracking(): boolean {
    return this.built;
  }

  /** Built from lists taken now (no write between them and this call); events keep it from then on. */
  build(claims: readonly NodeClaim[], nodes: readonly Node[]): void {
    for (const k of [this.claimIds, this.nodeIds, this.unsettled]) k.clear();
    this.claims.clear();
    this.nodes.clear();
    this.built = true;
    for (const node of nodes) {
      this.nodes.set(node.metadata.name, node);
      this.nodeIds.note(node.metadata.name, node.spec.providerID || undefined);
    }
    for (const nc of claims) this.noteClaim(nc.metadata.name, nc);
  }

  /** A pass that failed: the next walks its lists and builds the index again. */
  failed(): void {
    this.built = false;
  }

  /** A machine part begins: names answer for what they are now or become later (kept-names.ts). */
  mark(): void {
    for (const k of [this.claimIds, this.nodeIds, this.unsettled]) k.mark();
  }

  /**
   * `list.filter(keep)` for a NodeClaim list made now, for a `keep` that accepts only claims the
   * machine part may act on: the unsettled ones, latest objects, in list (name) order.
   */
  unsettledNow(keep: (nc: NodeClaim) => boolean): NodeClaim[] {
    const out: NodeClaim[] = [];
    for (const name of [...(this.unsettled.under(UNSETTLED) ?? [])].sort()) {
      const nc = this.claims.get(name);
      if (nc !== undefined && keep(nc)) out.push(nc);
    }
    return out;
  }

  /** The Node a map by providerID built from a Node list made now answers (of equal ids, the last by name). */
  nodeNow(providerID: string): Node | undefined {
    const names = this.nodeIds.current(providerID);
    if (names.length === 0) return undefined;
    return this.nodes.get(names.reduce((a, b) => (b > a ? b : a)));
  }

  /** The Nodes of a list made now whose names are in `names`, in list order. */
  nodesNamed(names: Iterable<string>): Node[] {
    const out: Node[] = [];
    for (const name of [...names].sort()) {
      const node = this.nodes.get(name);
      if (node !== undefined) out.push(node);
    }
    return out;
  }

  /** The Node named so, now. */
  node(name: string): Node | undefined {
    return this.nodes.get(name);
  }

  /** The names of the Nodes with this providerID now, or at any time since the last mark. */
  nodeNames(providerID: string): Iterable<string> {
    return this.nodeIds.under(providerID) ?? [];
  }

  /** Whether `nc` asks nothing of the machine part, given the Nodes now. */
  settled(nc: NodeClaim): boolean {
    return claimSettled(nc, this.nodeExists);
  }

  stop(): void {
    for (const w of this.watches) w.stop();
  }

  private noteClaim(name: string, nc: NodeClaim | undefined): void {
    if (nc === undefined) this.claims.delete(name);
    else this.claims.set(name, nc);
    this.claimIds.note(name, nc?.status?.providerID || undefined);
    this.settle(name);
  }

  private noteNode(name: string, node: Node | undefined): void {
    const before = this.nodeIds.key(name);
    const after = node?.spec.providerID || undefined;
    if (node === undefined) this.nodes.delete(name);
    else this.nodes.set(name, node);
    this.nodeIds.note(name, after);
    // A Node appearing or going under an id settles or unsettles the NodeClaims of that id.
    for (const id of new Set([before, after]))
      if (id !== undefined) for (const claim of this.claimIds.current(id)) this.settle(claim);
  }

  private settle(name: string): void {
    const nc = this.claims.get(name);
    this.unsettled.note(name, nc !== undefined && !this.settled(nc) ? UNSETTLED : undefined);
  }
}
