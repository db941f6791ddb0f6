// SPDX-License-Identifier: Apache-2.0
// Events with Karpenter's reasons and messages (KARPENTER.md#events-and-metrics), deduplicated per object and
// reason as Karpenter does, and kept in memory for the status page, tests and the timeline.

export interface InvolvedObject {
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
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
