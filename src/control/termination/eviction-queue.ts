// SPDX-License-Identifier: Apache-2.0
// The eviction queue (KARPENTER.md#eviction-queue): one entry per pod (namespace/name + uid) with the earliest
// termination time T it was ever added with, retried with exponential backoff (100 ms doubling
// to 10 s, on the injected clock). Each due entry is force-deleted when `needsForceDelete` says
// so, dropped when the pod is no longer active, kept while do-not-disrupt protects it, and
// otherwise evicted through the Eviction API, which honours PDBs.
import { isApiError, type ClusterClient, type ObjectKey } from '../../core/cluster/client.js';
import { isActive, isEvictable } from '../../core/cluster/state.js';
import type { Pod } from '../../core/cluster/types.js';
import type { EventRecorder } from '../../core/observe/recorder.js';
import { disrupted, evicted, failedDraining } from './events.js';
import { involved } from '../../core/observe/recorder.js';
import { forceDeleteAt, forceDeleteGraceSeconds, needsForceDelete, podGraceSeconds } from './force-delete.js';
import { METRIC, type TerminationMetrics } from './names.js';

export const EVICTION_BASE_BACKOFF_MS = 100;
export const EVICTION_MAX_BACKOFF_MS = 10_000;
const MULTIPLE_PDBS =
  'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.';

export interface EvictionRequest {
  /** The node's termination time T (epoch ms); a later add can only bring it earlier. */
  deadlineMs?: number;
  /**
   * Reason in the `Evicted` event and `karpenter_pods_drained_total`: the NodeClaim's DisruptionReason, else `Forceful
   * Termination`.
   */
  reason: string;
}

interface Entry {
  namespace: string;
  name: string;
  uid: string;
  nodeName: string;
  deadlineMs?: number;
  reason: string;
  failures: number;
  nextAt: number;
}

export type EvictionOutcome = 'evicted' | 'force-deleted' | 'dropped' | 'waiting' | 'blocked' | 'failed';

export interface EvictionQueueDeps {
  client: ClusterClient;
  recorder: EventRecorder;
  metrics?: TerminationMetrics;
}

const keyOf = (pod: Pod): string =>
  `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}/${pod.metadata.uid ?? ''}`;

export class EvictionQueue {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly deps: EvictionQueueDeps) {}

  get size(): number {
    return this.entries.size;
  }

  has(pod: Pod): boolean {
    return this.entries.has(keyOf(pod));
  }

  /** Adds the pods (due at `nowMs` when new); for pods already queued, tightens T and refreshes the reason. */
  add(pods: readonly Pod[], request: EvictionRequest, nowMs: number): void {
    for (const pod of pods) {
      const key = keyOf(pod);
      const entry = this.entries.get(key);
      if (entry) {
        if (
          request.deadlineMs !== undefined &&
          (entry.deadlineMs === undefined || request.deadlineMs < entry.deadlineMs)
        ) {
          entry.deadlineMs = request.deadlineMs;
          entry.nextAt = Math.min(entry.nextAt, nowMs);
        }
        entry.reason = request.reason;
        continue;
      }
      this.entries.set(key, {
        namespace: pod.metadata.namespace ?? 'default',
        name: pod.metadata.name,
        uid: pod.metadata.uid ?? '',
        nodeName: pod.spec.nodeName ?? '',
        deadlineMs: request.deadlineMs,
        reason: request.reason,
        failures: 0,
        nextAt: nowMs,
      });
    }
  }

  /** The earliest instant an entry is due, if any. */
  nextDue(): number | undefined {
    let next: number | undefined;
    for (const e of this.entries.values()) next = next === undefined ? e.nextAt : Math.min(next, e.nextAt);
    return next;
  }

  /** Processes every entry due at `nowMs`, one at a time in insertion order. */
  async reconcile(nowMs: number): Promise<Map<string, EvictionOutcome>> {
    const outcomes = new Map<string, EvictionOutcome>();
    for (const [key, entry] of [...this.entries]) {
      if (entry.nextAt > nowMs) continue;
      const outcome = await this.process(entry, nowMs);
      outcomes.set(`${entry.namespace}/${entry.name}`, outcome);
      if (outcome === 'evicted' || outcome === 'force-deleted' || outcome === 'dropped') this.entries.delete(key);
    }
    return outcomes;
  }

  private async process(entry: Entry, nowMs: number): Promise<EvictionOutcome> {
    const { client, recorder } = this.deps;
    const key: ObjectKey = { kind: 'Pod', name: entry.name, namespace: entry.namespace };
    const pod = await client.get<Pod>(key);
    if (!pod || pod.metadata.uid !== entry.uid) return 'dropped';
    if (entry.deadlineMs !== undefined && needsForceDelete(pod, entry.deadlineMs, nowMs)) {
      const grace = forceDeleteGraceSeconds(entry.deadlineMs, nowMs);
      try {
        await client.delete(key, { gracePeriodSeconds: grace, preconditions: { uid: entry.uid } });
      } catch (e) {
        if (isApiError(e, 404) || isApiError(e, 409)) return 'dropped';
        return this.retry(entry, pod, nowMs, 'failed');
      }
      recorder.publish(disrupted(involved(pod), entry.deadlineMs, grace, podGraceSeconds(pod)));
      return 'force-deleted';
    }
    if (!isActive(pod)) return 'dropped';
    if (!isEvictable(pod, nowMs)) return this.retry(entry, pod, nowMs, 'waiting');
    return this.evict(entry, pod, nowMs);
  }

  private async evict(entry: Entry, pod: Pod, nowMs: number): Promise<EvictionOutcome> {
    const { client, recorder, metrics } = this.deps;
    try {
      await client.evict(entry.namespace, entry.name, { uid: entry.uid });
    } catch (e) {
      if (!isApiError(e)) return this.retry(entry, pod, nowMs, 'failed');
      metrics?.inc(METRIC.evictionRequests, { code: String(e.code) });
      if (e.code === 404 || e.code === 409) return 'dropped';
      const node = { kind: 'Node', name: entry.nodeName };
      const podRef = `${entry.namespace}/${entry.name}`;
      if (e.code === 429) recorder.publish(failedDraining(node, { kind: 'pdb', pod: podRef }));
      else if (e.message.includes(MULTIPLE_PDBS))
        recorder.publish(failedDraining(node, { kind: 'multiple-pdbs', pod: podRef }));
      return this.retry(entry, pod, nowMs, e.code === 429 || e.message.includes(MULTIPLE_PDBS) ? 'blocked' : 'failed');
    }
    metrics?.inc(METRIC.evictionRequests, { code: '200' });
    metrics?.inc(METRIC.podsDrained, { reason: entry.reason });
    recorder.publish(evicted(involved(pod), entry.reason));
    return 'evicted';
  }

  /** Backs off (100 ms × 2^failures, capped at 10 s), but wakes no later than the pod's force-delete instant. */
  private retry(entry: Entry, pod: Pod, nowMs: number, outcome: EvictionOutcome): EvictionOutcome {
    const backoff = Math.min(EVICTION_BASE_BACKOFF_MS * 2 ** entry.failures, EVICTION_MAX_BACKOFF_MS);
    entry.failures++;
    const forceAt = forceDeleteAt(pod, entry.deadlineMs);
    entry.nextAt = forceAt !== undefined && forceAt > nowMs ? Math.min(nowMs + backoff, forceAt) : nowMs + backoff;
    return outcome;
  }
}
