// SPDX-License-Identifier: Apache-2.0
// Forceful expiration (KARPENTER.md#expiration): a NodeClaim past creation + expireAfter is deleted —
// no budgets, no do-not-disrupt, no replacement first. Under a kpol policy with graceful
// expiration this controller stands aside and the budgeted `Expired` method acts instead.
import { parseKarpenterDurationOrNever } from '../../../rules/duration.js';
import type { PolicySpec } from '../../../rules/model.js';
import type { ClusterClient } from '../../core/cluster/client.js';
import { isApiError } from '../../core/cluster/client.js';
import type { ClusterIndex } from '../../core/cluster/state.js';
import { LABEL_CAPACITY_TYPE, LABEL_NODEPOOL, type NodeClaim } from '../../core/cluster/types.js';
import type { Clock } from '../../core/clock.js';
import { resolvePolicies } from '../../core/eval/resolve-policies.js';
import { disruptedLabels } from './disrupted-metric.js';
import type { Metrics } from '../../core/observe/metrics.js';

/** Seconds until expiry for a NodeClaim under its policy; null = never expires. */
export function expireAfterSeconds(nc: NodeClaim, policy: PolicySpec | undefined): number | null {
  if (policy?.expireAfterSeconds !== undefined) return policy.expireAfterSeconds;
  return parseKarpenterDurationOrNever(nc.spec.expireAfter ?? '720h') ?? null;
}

/** NodeClaims the forceful expiration controller would delete now, with their pool and policy. */
export function dueForExpiration(
  index: ClusterIndex,
  policies: readonly PolicySpec[],
  now: number,
): { nc: NodeClaim; pool: string; policy?: PolicySpec }[] {
  return expirationScan(index, policies, now).due;
}

/** The claims due at `now`, and the first later instant at which another one becomes due (Infinity: none). */
function expirationScan(
  index: ClusterIndex,
  policies: readonly PolicySpec[],
  now: number,
): { due: { nc: NodeClaim; pool: string; policy?: PolicySpec }[]; nextAt: number } {
  const { byPool } = resolvePolicies(index.snapshot.nodePools, policies);
  const due: { nc: NodeClaim; pool: string; policy?: PolicySpec }[] = [];
  let nextAt = Infinity;
  for (const nc of index.snapshot.nodeClaims) {
    if (nc.metadata.deletionTimestamp) continue;
    const pool = nc.metadata.labels?.[LABEL_NODEPOOL] ?? '';
    const policy = byPool.get(pool)?.policy;
    if (policy?.expiration === 'graceful') continue;
    const after = expireAfterSeconds(nc, policy);
    const created = Date.parse(nc.metadata.creationTimestamp ?? '');
    if (after === null || Number.isNaN(created)) continue;
    if (now < created + after * 1000) {
      nextAt = Math.min(nextAt, created + after * 1000);
      continue;
    }
    due.push({ nc, pool, ...(policy && { policy }) });
  }
  return { due, nextAt };
}

export class ExpirationController {
  constructor(
    private readonly client: ClusterClient,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    private readonly log?: (msg: string, fields: Record<string, unknown>) => void,
  ) {}

  /**
   * The index and policies of the last pass that found nothing due, and when the next claim
   * becomes due: until then, with the same objects and policies, a pass would find nothing
   * again (indexes are rebuilt on any change, so identity means no object changed).
   */
  private idle: { index: ClusterIndex; policies: readonly PolicySpec[]; until: number } | undefined;

  /** Deletes every expired NodeClaim; returns their names. */
  async reconcile(index: ClusterIndex, policies: readonly PolicySpec[]): Promise<string[]> {
    const now = this.clock.now();
    const idle = this.idle;
    if (idle !== undefined && idle.index === index && idle.policies === policies && now < idle.until) return [];
    const { due, nextAt } = expirationScan(index, policies, now);
    this.idle = due.length === 0 ? { index, policies, until: nextAt } : undefined;
    const expired: string[] = [];
    for (const { nc, pool, policy } of due) {
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
