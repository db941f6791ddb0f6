// SPDX-License-Identifier: Apache-2.0
// The editor's "simulate 24 h": the real runtime (src/edge/simulate/) from the connected cluster's
// objects and the edited policies, one-minute steps, trimmed to what the timeline view shows.
import type { PolicySpec } from '../../../rules/model.js';
import type { KubeObject } from '../../core/cluster/types.js';
import { simulate } from '../simulate/simulated-run.js';
import type { DisruptionRecord, Timeline } from '../simulate/timeline.js';

export interface DaySimulation {
  from: number;
  to: number;
  disruptions: DisruptionRecord[];
  /** Nodes and cost per sample, for the small chart. */
  samples: { at: number; nodes: number; costPerHour: number; pendingPods: number }[];
  blocked: Timeline['blocked'];
  summary: Timeline['summary'];
}

const DAY_MS = 24 * 3600_000;

export async function simulateDay(
  objects: readonly KubeObject[],
  policies: readonly PolicySpec[],
  fromMs: number,
): Promise<DaySimulation> {
  // The live objects carry server-owned fields; the simulation's own in-memory cluster re-adopts them.
  const copies = objects.map((o) => structuredClone(o) as KubeObject);
  const t = await simulate({
    objects: copies,
    policies,
    fromMs,
    forMs: DAY_MS,
    stepMs: 60_000,
    sampleEveryMs: 30 * 60_000,
  });
  return {
    from: t.from,
    to: t.to,
    disruptions: t.disruptions,
    samples: t.samples.map((s) => ({
      at: s.at,
      nodes: s.nodes,
      costPerHour: s.costPerHour,
      pendingPods: s.pendingPods,
    })),
    blocked: t.blocked.slice(0, 10),
    summary: t.summary,
  };
}
