// SPDX-License-Identifier: Apache-2.0
// What changed, since the node agent's last pass, among the objects its machine part reads
// (NodeClaims and Nodes; the cloud has its own change stamp), from watches. That part acts on a
// NodeClaim only while it is on its way (not launched, registered or initialized, or without its
// Node) or deleting without an instance: after a part that left none such and wrote nothing, a
// change to a NodeClaim that is still past all that (kpol recording a pod event on it, a label)
// asks nothing of it, and the part can be skipped — without reading the other 4,999.
import type { ClusterClient } from '../../core/cluster/client.js';
import { FINALIZER_TERMINATION, type NodeClaim } from '../../core/cluster/types.js';
import { isTrue } from './conditions.js';

export interface MachineChangeSet {
  /** Whether any Node was added, changed or deleted (or the changes are not known). */
  nodes: boolean;
  /** NodeClaim name → its latest object; undefined when deleted. */
  claims: ReadonlyMap<string, NodeClaim | undefined>;
}

export class MachineChanges {
  private nodes = true;
  private claims = new Map<string, NodeClaim | undefined>();
  private readonly watches: { stop(): void }[];

  constructor(client: ClusterClient) {
    this.watches = [
      client.watch('NodeClaim', (e) =>
        this.claims.set(e.object.metadata.name, e.type === 'DELETED' ? undefined : (e.object as NodeClaim)),
      ),
      client.watch('Node', () => {
        this.nodes = true;
      }),
    ];
  }

  /** The changes since the last call; the pass's own writes count towards the next. */
  take(): MachineChangeSet {
    const out = { nodes: this.nodes, claims: this.claims };
    this.nodes = false;
    this.claims = new Map();
    return out;
  }

  /** A pass that failed: the next one must not trust what it saw (as if every Node changed). */
  failed(): void {
    this.nodes = true;
  }

  stop(): void {
    for (const w of this.watches) w.stop();
  }
}

/**
 * Whether the machine part has nothing to do for `nc` given the Nodes by providerID: deleting
 * with an instance or without the termination finalizer, or launched, registered and initialized
 * with its Node. The machine part's own tests, in one predicate.
 */
export function claimSettled(nc: NodeClaim, nodeByProviderID: { has(providerID: string): boolean }): boolean {
  const id = nc.status?.providerID;
  if (nc.metadata.deletionTimestamp !== undefined)
    return id !== undefined && id !== '' ? true : !(nc.metadata.finalizers ?? []).includes(FINALIZER_TERMINATION);
  return (
    id !== undefined &&
    id !== '' &&
    nodeByProviderID.has(id) &&
    isTrue(nc.status?.conditions, 'Registered') &&
    isTrue(nc.status?.conditions, 'Initialized')
  );
}

/**
 * The Nodes changed since the heartbeat last ran, by name, from watches: with the cloud's stamp
 * unchanged, a Node that did not change has the verdict the last heartbeat gave it (not marked:
 * a mark is itself a change), so a heartbeat need read only the changed ones.
 */
export class ChangedNodes {
  /** Every Node counts as changed (the first heartbeat, or one that failed). */
  private all = true;
  private names = new Set<string>();
  private readonly watch: { stop(): void };

  constructor(client: ClusterClient) {
    this.watch = client.watch('Node', (e) => {
      if (!this.all) this.names.add(e.object.metadata.name);
    });
  }

  /** The changes since the last call (undefined: all), and a fresh start for the next. */
  take(): ReadonlySet<string> | undefined {
    const out = this.all ? undefined : this.names;
    this.all = false;
    this.names = new Set();
    return out;
  }

  /** A heartbeat that failed: the next reads every Node. */
  failed(): void {
    this.all = true;
    this.names = new Set();
  }

  stop(): void {
    this.watch.stop();
  }
}
