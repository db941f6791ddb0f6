// SPDX-License-Identifier: Apache-2.0
// The NodeClaim finalizer's first step (KARPENTER.md#termination-time): stamp the instant by which every pod of
// the node will have been deleted, `karpenter.sh/nodeclaim-termination-timestamp` =
// deletionTimestamp + terminationGracePeriod, once, as RFC3339 with whole seconds.
import { goParseDuration } from '../../../rules/karpenter-go.js';
import type { ClusterClient } from '../../core/cluster/client.js';
import type { NodeClaim } from '../../core/cluster/types.js';
import type { EventRecorder } from '../../core/observe/recorder.js';
import { terminationGracePeriodExpiring } from './events.js';
import { involved } from '../../core/observe/recorder.js';
import { ANNOTATION_TERMINATION_TIMESTAMP } from './names.js';

/**
 * A policy-level terminationGracePeriod for a NodeClaim, in seconds. kpol policies may set one:
 * a number overrides the NodeClaim's own `spec.terminationGracePeriod`; `undefined` means the
 * policy says nothing and the NodeClaim's own value (or none) applies. Read only when the
 * annotation is written, so a later policy change does not move a deadline already stamped.
 */
export type TgpSecondsFor = (nodeClaim: NodeClaim) => number | undefined;

/** The grace period in seconds that applies to this NodeClaim, or undefined (no deadline). */
export function terminationGracePeriodSeconds(nodeClaim: NodeClaim, tgpSecondsFor?: TgpSecondsFor): number | undefined {
  const override = tgpSecondsFor?.(nodeClaim);
  if (override !== undefined) return override;
  const spec = nodeClaim.spec.terminationGracePeriod;
  if (spec === undefined) return undefined;
  const parsed = goParseDuration(spec);
  return parsed.ok ? parsed.value : undefined; // the CRD rejects invalid durations; treat one as unset
}

/** Go's `Format(time.RFC3339)` for a UTC instant: the fraction is dropped, not rounded. */
export function formatRfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The termination time T from the annotation, epoch ms; undefined when absent or unparsable. */
export function terminationTimeOf(nodeClaim: NodeClaim | undefined): number | undefined {
  const value = nodeClaim?.metadata.annotations?.[ANNOTATION_TERMINATION_TIMESTAMP];
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Writes the annotation when the NodeClaim is deleting, has a grace period and carries no
 * annotation yet (a present one, even from node repair, is never moved), then records
 * `TerminationGracePeriodExpiring` on the NodeClaim. Returns the NodeClaim as stored after the call.
 * The write carries the resourceVersion read, so a concurrent writer makes it fail with 409.
 */
export async function ensureTerminationTime(
  client: ClusterClient,
  recorder: EventRecorder,
  nodeClaim: NodeClaim,
  tgpSecondsFor?: TgpSecondsFor,
): Promise<NodeClaim> {
  const { deletionTimestamp, annotations } = nodeClaim.metadata;
  if (deletionTimestamp === undefined || annotations?.[ANNOTATION_TERMINATION_TIMESTAMP] !== undefined)
    return nodeClaim;
  const tgp = terminationGracePeriodSeconds(nodeClaim, tgpSecondsFor);
  if (tgp === undefined) return nodeClaim;
  const value = formatRfc3339(Date.parse(deletionTimestamp) + tgp * 1000);
  const patched = await client.patch<NodeClaim>(
    { kind: 'NodeClaim', name: nodeClaim.metadata.name },
    { metadata: { annotations: { [ANNOTATION_TERMINATION_TIMESTAMP]: value } } },
    { resourceVersion: nodeClaim.metadata.resourceVersion },
  );
  recorder.publish(terminationGracePeriodExpiring(involved(patched), value));
  return patched;
}
