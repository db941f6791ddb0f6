// SPDX-License-Identifier: Apache-2.0
// The disruption controller's in-memory state (Karpenter keeps the same in memory): commands
// in flight, the nodes they marked for deletion, and nominations. Everything else is read from
// the cluster, so a restarted controller rebuilds from cluster state (taints and deletion
// timestamps).
import type { DisruptionState } from '../../core/facts/node-facts.js';
import type { Reason } from '../../../rules/model.js';
import type { Command } from './methods/command.js';

/** Karpenter's BATCH_MAX_DURATION default. */
const BATCH_MAX_DURATION_MS = 10_000;
/** Karpenter's nomination window: max(2 × BATCH_MAX_DURATION, 10 s), renewed on each nomination. */
export const NOMINATION_WINDOW_MS = Math.max(2 * BATCH_MAX_DURATION_MS, 10_000);

export class InFlight implements DisruptionState {
  readonly commands = new Map<string, Command>();
  readonly marked = new Set<string>();
  /** Nodes nominated at the instant of the last `expireNominations` (what the node fact reads). */
  readonly nominated = new Set<string>();
  /** NodePools single-node consolidation did not reach before its last timeout (KARPENTER.md#single-node). */
  readonly unreachedPools = new Set<string>();
  /** Node name → end of its nomination (exclusive). */
  private readonly nominatedUntil = new Map<string, number>();

  get queued(): ReadonlySet<string> {
    const ids = new Set<string>();
    for (const c of this.commands.values()) for (const x of c.candidates) ids.add(x.providerID);
    return ids;
  }

  /** providerID → reason of the command in flight on it, for `per reason` buckets. */
  get reasons(): ReadonlyMap<string, Reason> {
    const out = new Map<string, Reason>();
    for (const c of this.commands.values()) for (const x of c.candidates) out.set(x.providerID, c.reason);
    return out;
  }

  /**
   * A provisioning pass or a starting command placed pods on these existing nodes: they are no
   * disruption candidates for the nomination window (KARPENTER.md#candidates row 6, KARPENTER.md#commands step 4).
   */
  nominate(nodes: Iterable<string>, now: number): void {
    for (const n of nodes) {
      this.nominatedUntil.set(n, now + NOMINATION_WINDOW_MS);
      this.nominated.add(n);
    }
  }

  /** Brings `nominated` to the instant `now`: a node stays nominated while its window has not ended. */
  expireNominations(now: number): void {
    this.nominated.clear();
    for (const [n, until] of this.nominatedUntil) {
      if (until > now) this.nominated.add(n);
      else this.nominatedUntil.delete(n);
    }
  }

  add(c: Command): void {
    this.commands.set(c.id, c);
    for (const x of c.candidates) this.marked.add(x.providerID);
    this.nominate(c.nominates ?? [], c.createdAt);
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
