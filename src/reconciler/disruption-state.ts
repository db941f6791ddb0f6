// SPDX-License-Identifier: Apache-2.0
// The disruption controller's in-memory state (Karpenter keeps the same in memory): commands
// in flight and the nodes they marked for deletion. Everything else is read from the cluster,
// so a restarted controller rebuilds from cluster state (taints and deletion timestamps).
import type { DisruptionState } from '../facts/node-facts.js';
import type { Command } from './command.js';

export class InFlight implements DisruptionState {
  readonly commands = new Map<string, Command>();
  readonly marked = new Set<string>();
  readonly nominated = new Set<string>();
  /** NodePools single-node consolidation did not reach before its last timeout (reference §2.11). */
  readonly unreachedPools = new Set<string>();

  get queued(): ReadonlySet<string> {
    const ids = new Set<string>();
    for (const c of this.commands.values()) for (const x of c.candidates) ids.add(x.providerID);
    return ids;
  }

  add(c: Command): void {
    this.commands.set(c.id, c);
    for (const x of c.candidates) this.marked.add(x.providerID);
  }

  /** Drops a finished or abandoned command; `unmark` for a rollback. */
  remove(c: Command, unmark: boolean): void {
    this.commands.delete(c.id);
    if (unmark) for (const x of c.candidates) this.marked.delete(x.providerID);
  }

  /** Forgets marks for machines that no longer exist. */
  prune(existing: ReadonlySet<string>): void {
    for (const id of this.marked) if (!existing.has(id)) this.marked.delete(id);
  }
}
