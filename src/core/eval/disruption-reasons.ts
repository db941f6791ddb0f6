// SPDX-License-Identifier: Apache-2.0
// Which reason a disrupting node is disrupted for, for `budget … per reason` buckets
// (KARPENTER.md#disruption-reason). Read from what survives a restart first-hand: the command in
// flight when the reconciler knows one, else the NodeClaim's `DisruptionReason` condition, which
// Karpenter and kpol's reconciler both set when a command starts. Anything else — a NotReady node,
// a manual or forceful deletion, a reason kpol does not budget — is unknown, and an unknown reason
// counts against every bucket (fail closed).
import { REASONS, type Reason } from '../../../rules/model.js';
import type { StateNode } from '../cluster/state.js';

const CONDITION = 'DisruptionReason';

/**
 * The disrupting node's reason, or undefined when it cannot be told. `inFlight` is the reconciler's
 * providerID → reason of its commands (DisruptionState.reasons, read once per evaluation).
 */
export function disruptionReason(sn: StateNode, inFlight: ReadonlyMap<string, Reason> | undefined): Reason | undefined {
  const known = sn.providerID !== undefined ? inFlight?.get(sn.providerID) : undefined;
  if (known) return known;
  const c = sn.nodeClaim?.status?.conditions?.find((x) => x.type === CONDITION);
  if (c?.status !== 'True' || c.reason === undefined) return undefined;
  return (REASONS as readonly string[]).includes(c.reason) ? (c.reason as Reason) : undefined;
}

/** Disrupting nodes of one pool by reason; `unknown` counts against every bucket. */
export type DisruptingByReason = Partial<Record<Reason | 'unknown', number>>;

/** What a bucket for `reason` subtracts: the nodes disrupting for it plus the unknown ones. */
export const bucketCount = (by: DisruptingByReason, reason: Reason): number => (by[reason] ?? 0) + (by.unknown ?? 0);
