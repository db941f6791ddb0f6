// SPDX-License-Identifier: Apache-2.0
// What the finalizer steps share: the cluster, the cloud, events, metrics and the eviction queue.
import type { ClusterClient } from '../../core/cluster/client.js';
import type { CloudProvider } from '../../world/cloud/provider.js';
import type { EventRecorder } from '../../core/observe/recorder.js';
import type { EvictionQueue } from './eviction-queue.js';
import type { TerminationMetrics } from './names.js';

export interface TerminationContext {
  client: ClusterClient;
  cloud: CloudProvider;
  recorder: EventRecorder;
  metrics?: TerminationMetrics;
  queue: EvictionQueue;
  minDrainTimeMs: number;
  /** Node uids drained without a NodeClaim to hold the Drained condition (in memory: counted once per controller). */
  drainedWithoutClaim: Set<string>;
}

/** One finalizer step's result: finished (finalizer removed), or come back after `requeueMs`. */
export type StepResult = { done: true } | { done: false; requeueMs: number };

export const requeue = (requeueMs: number): StepResult => ({ done: false, requeueMs });

export const secondsSince = (rfc3339: string | undefined, nowMs: number): number | undefined => {
  const t = rfc3339 === undefined ? Number.NaN : Date.parse(rfc3339);
  return Number.isNaN(t) ? undefined : (nowMs - t) / 1000;
};

/** Removes `finalizer` with the resourceVersion read as a precondition (the list is replaced whole). */
export async function removeFinalizer(
  client: ClusterClient,
  obj: { kind: 'Node' | 'NodeClaim'; metadata: { name: string; finalizers?: string[]; resourceVersion?: string } },
  finalizer: string,
): Promise<void> {
  const finalizers = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  await client.patch(
    { kind: obj.kind, name: obj.metadata.name },
    { metadata: { finalizers } },
    { resourceVersion: obj.metadata.resourceVersion },
  );
}
