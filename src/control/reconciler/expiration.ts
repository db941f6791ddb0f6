// SPDX-License-Identifier: Apache-2.0
// Forceful expiration (KARPENTER.md#expiration): a NodeClaim past creation + expireAfter is deleted —
// no budgets, no do-not-disrupt, no replacement first. Under a kpol policy with graceful
// expiration this controller stands aside and the budgeted `Expired` method acts instead.
import { parseKarpenterDurationOrNever } from '../../../rules/duration.js';
import type { PolicySpec } from '../../../rules/model.js';
import type { ClusterClient, WatchEvent } from '../../core/cluster/client.js';
import { byNamespaceAndName, position } from '../../core/cluster/sorted-objects.js';
import { walkOrdered } from '../../core/cluster/ordered-walk.js';
import { isApiError } from '../../core/cluster/client.js';
import type { ClusterIndex } from '../../core/cluster/state.js';
import { LABEL_CAPACITY_TYPE, LABEL_NODEPOOL, type NodeClaim, type NodePool } from '../../core/cluster/types.js';
import type { Clock } from '../../core/clock.js';
import { least } from '../../core/least.js';
import { resolvePolicies } from '../../core/eval/resolve-policies.js';
import { disruptedLabels } from './disrupted-metric.js';
import type { Metrics } from '../../core/observe/metrics.js';

/** Seconds until expiry for a NodeClaim under its policy; null = never expires. */
export function expireAfterSeconds(nc: NodeClaim, policy: PolicySpec | undefined): number | null {
  if (policy?.expireAfterSeconds !== undefined) return policy.expireAfterSeconds;
  return parseKarpenterDurationOrNever(nc.spec.expireAfter ?? '720h') ?? null;
}

/** NodeClaims the forceful expiration controller would delete now, with their pool and policy. */
export function dueForExpiration(index: ClusterIndex, policies: readonly PolicySpec[], now: number): Due[] {
  return expirationScan(index, policies, now).due;
}

type Governed = ReturnType<typeof resolvePolicies>['byPool'];
type Due = { nc: NodeClaim; pool: string; policy?: PolicySpec };

/** When a NodeClaim becomes due for forceful expiration (Infinity: never — deleting, graceful, no expiry). */
function dueAt(nc: NodeClaim, byPool: Governed): number {
  if (nc.metadata.deletionTimestamp) return Infinity;
  const policy = byPool.get(nc.metadata.labels?.[LABEL_NODEPOOL] ?? '')?.policy;
  if (policy?.expiration === 'graceful') return Infinity;
  const after = expireAfterSeconds(nc, policy);
  const created = Date.parse(nc.metadata.creationTimestamp ?? '');
  if (after === null || Number.isNaN(created)) return Infinity;
  return created + after * 1000;
}

function due(nc: NodeClaim, byPool: Governed): Due {
  const pool = nc.metadata.labels?.[LABEL_NODEPOOL] ?? '';
  const policy = byPool.get(pool)?.policy;
  return { nc, pool, ...(policy && { policy }) };
}

/** The claims due at `now`, and the first later instant at which another one becomes due (Infinity: none). */
function expirationScan(
  index: ClusterIndex,
  policies: readonly PolicySpec[],
  now: number,
): { due: Due[]; nextAt: number } {
  const { byPool } = resolvePolicies(index.snapshot.nodePools, policies);
  const found: Due[] = [];
  let nextAt = Infinity;
  for (const nc of index.snapshot.nodeClaims) {
    const at = dueAt(nc, byPool);
    if (now < at) nextAt = Math.min(nextAt, at);
    else found.push(due(nc, byPool));
  }
  return { due: found, nextAt };
}

/** The watch events between two indexes, when known (ClusterView.changesBetween). */
export type ChangesBetween = (from: ClusterIndex, to: ClusterIndex) => readonly WatchEvent[] | undefined;

/**
 * Each NodeClaim's due instant, kept across indexes: while the NodePools and policies are the
 * same objects, only the claims that are new objects are looked at again (the live index keeps
 * unchanged objects and lists) — found from the view's watch events when it knows them, else by
 * merging the two lists (in list order, by name) by identity: a pointer comparison per claim,
 * and a look at the claims that came, went or changed — and nothing is due before the earliest
 * instant. A list not in list order is read again whole every time.
 */
export class DueInstants {
  constructor(private readonly changes?: ChangesBetween) {}
  private index: ClusterIndex | undefined;
  private claims: readonly NodeClaim[] = [];
  /** The kept list is in list order (by namespace and name), so the next one can be merged with it. */
  private ordered = false;
  private pools: readonly NodePool[] | undefined;
  private policies: readonly PolicySpec[] | undefined;
  private byPool: Governed = new Map();
  private at = new Float64Array(0);
  private earliest = Infinity;
  /** Passes by path: every claim read again, or only the changed ones (tests). */
  readonly passes = { rebuilt: 0, kept: 0 };

  /** The claims due at `now`, in list order. */
  dueAt(index: ClusterIndex, policies: readonly PolicySpec[], now: number): Due[] {
    const { nodeClaims: claims, nodePools: pools } = index.snapshot;
    if (pools !== this.pools || policies !== this.policies || !this.update(index, claims))
      this.rebuild(claims, pools, policies);
    else this.passes.kept++;
    this.index = index;
    if (now < this.earliest) return [];
    const found: Due[] = [];
    for (let i = 0; i < claims.length; i++) if (now >= this.at[i]) found.push(due(claims[i], this.byPool));
    return found;
  }

  private update(index: ClusterIndex, claims: readonly NodeClaim[]): boolean {
    const prev = this.claims;
    if (prev === claims) return true;
    const changed = prev.length === claims.length ? this.modified(index, claims) : undefined;
    if (changed === undefined) return this.ordered && this.merge(prev, claims);
    let rescan = false;
    for (const i of changed) {
      const was = this.at[i];
      const at = (this.at[i] = dueAt(claims[i], this.byPool));
      if (at < this.earliest) this.earliest = at;
      else if (was === this.earliest && at > was) rescan = true;
    }
    if (rescan) this.earliest = least(this.at);
    this.claims = claims;
    return true;
  }

  /**
   * Walks the kept list and `claims` (both in list order): an unchanged claim keeps its due
   * instant, the others are read; false when too many differ or `claims` is out of order where
   * it differs.
   */
  private merge(prev: readonly NodeClaim[], claims: readonly NodeClaim[]): boolean {
    const at = new Float64Array(claims.length);
    let rescan = false;
    let earliest = this.earliest;
    const walked = walkOrdered(prev, claims, byNamespaceAndName, MERGE_LIMIT, (i, j) => {
      if (i >= 0 && j >= 0 && prev[i] === claims[j]) {
        at[j] = this.at[i];
        return;
      }
      // A claim that went, or changed, may have held the earliest instant.
      if (i >= 0 && this.at[i] === this.earliest) rescan = true;
      if (j >= 0) {
        at[j] = dueAt(claims[j], this.byPool);
        earliest = Math.min(earliest, at[j]);
      }
    });
    if (!walked) return false;
    this.at = at;
    this.earliest = rescan ? least(at) : earliest;
    this.claims = claims;
    return true;
  }

  /**
   * The places of the claims modified since the last pass's index, from the view's events;
   * undefined when not known or when claims came or went (then the lists are merged).
   */
  private modified(index: ClusterIndex, claims: readonly NodeClaim[]): number[] | undefined {
    const events = this.index && this.changes?.(this.index, index);
    if (events === undefined) return undefined;
    const places = new Set<number>();
    for (const e of events) {
      if (e.object.kind !== 'NodeClaim') continue;
      if (e.type !== 'MODIFIED') return undefined;
      const { at, found } = position(claims, e.object);
      if (!found || this.claims[at]?.metadata.name !== e.object.metadata.name) return undefined;
      if (claims[at] !== this.claims[at]) places.add(at);
    }
    return [...places];
  }

  private rebuild(claims: readonly NodeClaim[], pools: readonly NodePool[], policies: readonly PolicySpec[]): void {
    this.passes.rebuilt++;
    this.byPool = resolvePolicies(pools, policies).byPool;
    this.pools = pools;
    this.policies = policies;
    this.claims = claims;
    this.ordered = claims.every((nc, i) => i === 0 || byNamespaceAndName(claims[i - 1], nc) < 0);
    this.at = Float64Array.from(claims, (nc) => dueAt(nc, this.byPool));
    this.earliest = least(this.at);
  }
}

/** More claims than this that came, went or changed between two lists: they are read again whole. */
const MERGE_LIMIT = 512;

export class ExpirationController {
  constructor(
    private readonly client: ClusterClient,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    private readonly log?: (msg: string, fields: Record<string, unknown>) => void,
    changes?: ChangesBetween,
  ) {
    this.kept = new DueInstants(changes);
  }

  /**
   * The index and policies of the last pass that found nothing due, and when the next claim
   * becomes due: until then, with the same objects and policies, a pass would find nothing
   * again (indexes are rebuilt on any change, so identity means no object changed).
   */
  private idle: { index: ClusterIndex; policies: readonly PolicySpec[]; until: number } | undefined;
  readonly kept: DueInstants;
  /**
   * Off: a pass over a new index scans every NodeClaim (the reference the equality test compares
   * with); on, the due instants are kept across indexes (DueInstants).
   */
  incremental = true;

  /** The claims due now: kept across indexes, or scanned whole. */
  private dueNow(index: ClusterIndex, policies: readonly PolicySpec[], now: number): Due[] {
    if (this.incremental) return this.kept.dueAt(index, policies, now);
    const idle = this.idle;
    if (idle !== undefined && idle.index === index && idle.policies === policies && now < idle.until) return [];
    const { due, nextAt } = expirationScan(index, policies, now);
    this.idle = due.length === 0 ? { index, policies, until: nextAt } : undefined;
    return due;
  }

  /** Deletes every expired NodeClaim; returns their names. */
  async reconcile(index: ClusterIndex, policies: readonly PolicySpec[]): Promise<string[]> {
    const now = this.clock.now();
    const expired: string[] = [];
    for (const { nc, pool, policy } of this.dueNow(index, policies, now)) {
      try {
        await this.client.delete({ kind: 'NodeClaim', name: nc.metadata.name });
      } catch (e) {
        if (!isApiError(e, 404)) throw e;
        continue;
      }
      expired.push(nc.metadata.name);
      this.log?.('deleting expired nodeclaim', { nodeclaim: nc.metadata.name, nodepool: pool });
      const tgp =
        policy?.terminationGracePeriodSeconds ??
        parseKarpenterDurationOrNever(nc.spec.terminationGracePeriod ?? '') ??
        undefined;
      this.metrics.inc(
        'karpenter_nodeclaims_disrupted_total',
        disruptedLabels({
          reason: 'Expired',
          nodePool: pool,
          capacityType: nc.metadata.labels?.[LABEL_CAPACITY_TYPE] ?? '',
          ...(tgp !== undefined && { tgpSeconds: tgp }),
        }),
      );
    }
    return expired;
  }
}
