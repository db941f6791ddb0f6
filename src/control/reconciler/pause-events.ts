// SPDX-License-Identifier: Apache-2.0
// Events for pauses (`kpol pause`, src/core/facts/pauses.ts), from the evaluation's answer: a
// Normal `DisruptionPaused` on each NodePool a pause holds, and a Warning `PauseInvalid` on each
// pause ConfigMap kpol cannot read (it fails closed; the event says why and where). The rule
// graph decided both; this only tells the cluster. Standalone and govern mode publish the same.
import type { EvalOutput } from '../../core/eval/output.js';
import type { EventRecorder } from '../../core/observe/recorder.js';

/** As Karpenter repeats DisruptionBlocked: at most once a minute per object and message. */
const REPEAT_MS = 60_000;

export function publishPauseEvents(evaluation: EvalOutput, events: EventRecorder): void {
  const invalid = new Map<string, string>();
  for (const [pool, p] of Object.entries(evaluation.nodePools)) {
    for (const x of p.paused ?? []) {
      if (x.until === null) {
        invalid.set(x.source, x.message);
        continue;
      }
      events.publish(
        { type: 'Normal', reason: 'DisruptionPaused', message: x.message, object: { kind: 'NodePool', name: pool } },
        REPEAT_MS,
      );
    }
  }
  for (const [source, message] of invalid) {
    const [, namespace, name] = source.split('/');
    events.publish(
      { type: 'Warning', reason: 'PauseInvalid', message, object: { kind: 'ConfigMap', namespace, name } },
      REPEAT_MS,
    );
  }
}
