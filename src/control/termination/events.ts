// SPDX-License-Identifier: Apache-2.0
// The termination events, with Karpenter's reasons, types and message texts (KARPENTER.md#termination,
// KARPENTER.md#events-and-metrics).
// Every message the termination flow emits is written here and nowhere else.
import type { EventToPublish as Event, InvolvedObject } from '../../core/observe/recorder.js';

// Karpenter dedupes these by the pod's or node's name alone (DedupeValues), not its UID or namespace:
// a pod recreated under its name within the window, or one of that name in another namespace, is a repeat.

/** On the NodeClaim when the annotation is first written, and on the Node each reconcile (deduplicated). */
export const terminationGracePeriodExpiring = (object: InvolvedObject, rfc3339: string): Event => ({
  type: 'Warning',
  reason: 'TerminationGracePeriodExpiring',
  message: `All pods will be deleted by ${rfc3339}`,
  object,
  dedupe: [object.name],
});

export const evicted = (pod: InvolvedObject, reason: string): Event => ({
  type: 'Normal',
  reason: 'Evicted',
  message: `Evicted pod: ${reason}`,
  object: pod,
  dedupe: [pod.name],
});

/** `terminationTime` is printed as Go's `time.Time.String()` does (Karpenter formats it with `%v`). */
/** `podGraceSeconds` is the pod's terminationGracePeriodSeconds as force-delete read it (absent → the API's 30 s). */
export const disrupted = (
  pod: InvolvedObject,
  terminationTimeMs: number,
  graceSeconds: number,
  podGraceSeconds: number,
): Event => ({
  type: 'Normal',
  reason: 'Disrupted',
  message:
    `Deleting the pod to accommodate the terminationTime ${goTimeString(terminationTimeMs)} of the node. ` +
    `The pod was granted ${graceSeconds} seconds of grace-period of its ${podGraceSeconds} ` +
    `terminationGracePeriodSeconds. ` +
    'This bypasses the PDB of the pod and the do-not-disrupt annotation.',
  object: pod,
  dedupe: [pod.name],
});

export type FailedDrainingCause =
  { kind: 'waiting'; pods: number } | { kind: 'pdb'; pod: string } | { kind: 'multiple-pdbs'; pod: string };

export function failedDraining(node: InvolvedObject, cause: FailedDrainingCause): Event {
  let detail: string;
  switch (cause.kind) {
    case 'waiting':
      detail = `${cause.pods} pods are waiting to be evicted`;
      break;
    case 'pdb':
      detail = `evicting pod violates a PDB (Pod=${cause.pod})`;
      break;
    case 'multiple-pdbs':
      detail = `eviction does not support multiple PDBs (Pod=${cause.pod})`;
      break;
    default: {
      const never: never = cause;
      throw new Error(`unknown cause ${JSON.stringify(never)}`);
    }
  }
  return {
    type: 'Warning',
    reason: 'FailedDraining',
    message: `Failed to drain node, ${detail}`,
    object: node,
    dedupe: [node.name],
  };
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** Go's `time.Time.String()` for a UTC instant: `2026-08-20 12:05:00 +0000 UTC` (fraction only when non-zero). */
export function goTimeString(ms: number): string {
  const d = new Date(ms);
  const frac = d.getUTCMilliseconds() ? '.' + pad(d.getUTCMilliseconds(), 3).replace(/0+$/, '') : '';
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${frac}`;
  return `${date} ${time} +0000 UTC`;
}
