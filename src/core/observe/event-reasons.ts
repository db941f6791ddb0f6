// SPDX-License-Identifier: Apache-2.0
// Karpenter's event reasons, their types and dedupe windows (KARPENTER.md#events-and-metrics).
import { byObject, type EventToPublish, type InvolvedObject } from './recorder.js';

export const EVENT_REASONS = [
  'DisruptionBlocked',
  'DisruptionLaunching',
  'DisruptionTerminating',
  'DisruptionWaitingReadiness',
  'Unconsolidatable',
  'ConsolidationCandidate',
  'ConsolidationRejected',
  'ConsolidationApproved',
  'Evicted',
  'Disrupted',
  'FailedDraining',
  'TerminationGracePeriodExpiring',
  'InvalidDoNotDisruptAnnotation',
  'DoNotDisruptUntil',
  'DoNotDisruptGracePeriodElapsed',
  'AwaitingVolumeDetachment',
] as const;
export type EventReason = (typeof EVENT_REASONS)[number];

const WARNINGS: ReadonlySet<string> = new Set([
  'FailedDraining',
  'TerminationGracePeriodExpiring',
  'InvalidDoNotDisruptAnnotation',
]);

/** Karpenter publishes these three as Warning and every other reason as Normal. */
export const eventType = (reason: string): 'Normal' | 'Warning' => (WARNINGS.has(reason) ? 'Warning' : 'Normal');

/** The recorder's default dedupe window. */
export const DEFAULT_DEDUPE_MS = 2 * 60_000;
/** `Unconsolidatable` on a node or NodeClaim. */
export const UNCONSOLIDATABLE_DEDUPE_MS = 15 * 60_000;

/** `DisruptionBlocked` on a Node or NodeClaim: a repeat is any on the same object, whatever its message. */
export const disruptionBlocked = (object: InvolvedObject, message: string): EventToPublish => ({
  type: 'Normal',
  reason: 'DisruptionBlocked',
  message,
  object,
  dedupe: byObject(object),
});

/**
 * `Unconsolidatable` on a Node or NodeClaim, to publish with UNCONSOLIDATABLE_DEDUPE_MS: a repeat
 * is any on the same object, whatever its message (the scheduling error names pods that change).
 * The message may be given as the function that finds it (a simulation run to its end), read only
 * when the event is recorded: a repeat within the window never needs it.
 */
export function unconsolidatable(object: InvolvedObject, message: string | (() => string)): EventToPublish {
  const event = { type: 'Normal' as const, reason: 'Unconsolidatable', object, dedupe: byObject(object) };
  if (typeof message === 'string') return { ...event, message };
  let text: string | undefined;
  return {
    ...event,
    get message() {
      return (text ??= message());
    },
  };
}
/** `DisruptionBlocked` on a NodePool (a blocked node keeps the default window). */
export const NODEPOOL_BLOCKED_DEDUPE_MS = 60_000;

/**
 * `ConsolidationCandidate` on a candidate's Node or NodeClaim, for each command computeConsolidation
 * finds (a multi-node search's every valid batch too): a repeat is any on the same object and
 * command, whatever the savings.
 */
export const consolidationCandidate = (object: InvolvedObject, command: string, savings: number): EventToPublish => ({
  type: 'Normal',
  reason: 'ConsolidationCandidate',
  message: `Consolidation candidate: ${command} (savings: $${savings.toFixed(2)})`,
  object,
  dedupe: byObject(object, command),
});

/** `ConsolidationRejected` on a candidate's Node or NodeClaim when its command fails validation for `reason`. */
export const consolidationRejected = (
  object: InvolvedObject,
  command: string,
  reason: 'budget' | 'scheduling' | 'churn',
  savings: number,
): EventToPublish => ({
  type: 'Normal',
  reason: 'ConsolidationRejected',
  message: `Consolidation rejected: ${command}, reason: ${reason} (savings: $${savings.toFixed(2)})`,
  object,
  dedupe: byObject(object, command, reason),
});

/**
 * `ConsolidationApproved` on a Node and NodeClaim (single-node) or a NodePool (multi-node): a
 * repeat is any on the object.
 */
export const consolidationApproved = (object: InvolvedObject, message: string): EventToPublish => ({
  type: 'Normal',
  reason: 'ConsolidationApproved',
  message,
  object,
  dedupe: byObject(object),
});
