// SPDX-License-Identifier: Apache-2.0
// Events with Karpenter's reasons and messages (KARPENTER.md#events-and-metrics), deduplicated per object and
// reason as Karpenter does, and kept in memory for the status page, tests and the timeline.

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

export interface EventRecorder {
  /**
   * Records unless the same (object, reason, message) was recorded within `dedupeMs` (default
   * 2 min). May return the last instant at which a repeat is still dropped.
   */
  publish(event: Omit<RecordedEvent, 'at'>, dedupeMs?: number): number | void;
}
