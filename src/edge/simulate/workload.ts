// SPDX-License-Identifier: Apache-2.0
// A workload script for `kpol simulate --workload FILE`: extra objects to add at the start
// (ReplicaSets, PDBs, NodePools) and timed changes — scale a ReplicaSet, change a NodePool
// template (drift), interrupt spot instances — at offsets from --from, optionally repeating.
import { parseKpolDuration } from '../../../rules/duration.js';
import type { KubeObject } from '../../core/cluster/types.js';

export type WorkloadAction =
  | { scale: { name: string; namespace?: string; replicas: number } }
  | { drift: { nodePool: string } }
  | { interrupt: { count: number; capacityType?: string } };

export interface WorkloadEvent {
  atMs: number; // offset from the start
  everyMs?: number; // repeat period
  action: WorkloadAction;
}

export interface Workload {
  objects: KubeObject[];
  events: WorkloadEvent[];
}

/** Validates a parsed YAML/JSON workload; errors are `events[2].at: …`-located strings. */
export function readWorkload(doc: unknown): { workload?: Workload; errors: string[] } {
  const errors: string[] = [];
  const d = (doc ?? {}) as { objects?: unknown; events?: unknown };
  const objects = Array.isArray(d.objects) ? (d.objects as KubeObject[]) : [];
  if (d.objects !== undefined && !Array.isArray(d.objects))
    errors.push('objects: must be a list of Kubernetes objects');
  objects.forEach((o, i) => {
    if (!o?.kind || !o?.metadata?.name) errors.push(`objects[${i}]: needs kind and metadata.name`);
  });
  const events: WorkloadEvent[] = [];
  const raw =
    d.events === undefined ? [] : Array.isArray(d.events) ? d.events : (errors.push('events: must be a list'), []);
  raw.forEach((e: Record<string, unknown>, i: number) => {
    const at = typeof e?.at === 'string' ? parseKpolDuration(e.at) : undefined;
    if (at === undefined) return void errors.push(`events[${i}].at: a duration such as 2h or 30m`);
    const every =
      e.every === undefined ? undefined : typeof e.every === 'string' ? parseKpolDuration(e.every) : undefined;
    if (e.every !== undefined && !every) return void errors.push(`events[${i}].every: a positive duration`);
    const action = ['scale', 'drift', 'interrupt'].find((k) => k in e);
    if (!action) return void errors.push(`events[${i}]: one of scale, drift or interrupt`);
    events.push({
      atMs: at * 1000,
      ...(every && { everyMs: every * 1000 }),
      action: { [action]: e[action] } as WorkloadAction,
    });
  });
  return errors.length ? { errors } : { workload: { objects, events }, errors };
}
