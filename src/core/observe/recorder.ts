// SPDX-License-Identifier: Apache-2.0
// Events with Karpenter's reasons and messages (KARPENTER.md#events-and-metrics), deduplicated by
// the key Karpenter gives each (its DedupeValues), and kept in memory for the status page, tests and
// the timeline.

export interface InvolvedObject {
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
}

/**
 * The object an event is about. Built field by field: a spread of `namespace && { … }` is V8's slow
 * copy, and blocked-node events are built for every blocked node on every refresh.
 */
export function involved(obj: {
  kind: string;
  metadata: { name: string; namespace?: string; uid?: string };
}): InvolvedObject {
  const object: InvolvedObject = { kind: obj.kind, name: obj.metadata.name };
  if (obj.metadata.namespace !== undefined) object.namespace = obj.metadata.namespace;
  if (obj.metadata.uid !== undefined) object.uid = obj.metadata.uid;
  return object;
}

export interface RecordedEvent {
  at: number; // epoch ms from the injected clock
  type: 'Normal' | 'Warning';
  reason: string; // e.g. DisruptionBlocked, DisruptionTerminating
  message: string;
  object: InvolvedObject;
}

/** An event to record: a RecordedEvent without its instant, with what tells a repeat apart. */
export interface EventToPublish extends Omit<RecordedEvent, 'at'> {
  /**
   * Karpenter's DedupeValues: a repeat is an event of the same reason and values, whatever its
   * object and message (Karpenter keys its dedupe cache on reason and values alone, so an
   * Unconsolidatable event whose message changed within the window is dropped). Absent: the same
   * object, reason and message, for the events whose values Karpenter derives from the message.
   */
  dedupe?: readonly string[];
}

/**
 * DedupeValues of an event on `object`: its UID (kind/namespace/name when it has none, so a Node
 * and its NodeClaim of the same name stay apart), then `more`.
 */
export function byObject(object: InvolvedObject, ...more: string[]): string[] {
  return [object.uid ?? `${object.kind}/${object.namespace ?? ''}/${object.name}`, ...more];
}

export interface EventRecorder {
  /**
   * Records unless a repeat (EventToPublish.dedupe) was recorded within `dedupeMs` (default
   * 2 min). May return the last instant at which a repeat is still dropped.
   */
  publish(event: EventToPublish, dedupeMs?: number): number | void;
}
