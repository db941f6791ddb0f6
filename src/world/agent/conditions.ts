// SPDX-License-Identifier: Apache-2.0
// Status conditions as the agent writes them: the transition time moves only when the status does.
import type { Condition } from '../../core/cluster/types.js';
import { parseTime, rfc3339 } from '../../core/cluster/memory/timestamps.js';
import { findCondition } from '../../core/cluster/state.js';

export const isTrue = (conditions: readonly Condition[] | undefined, type: string): boolean =>
  findCondition(conditions, type)?.status === 'True';

/** `conditions` with `type` set; an unchanged status keeps its lastTransitionTime. */
export function withCondition(
  conditions: readonly Condition[] | undefined,
  now: number,
  type: string,
  status: 'True' | 'False' | 'Unknown',
  reason: string,
  message = '',
): Condition[] {
  const old = findCondition(conditions, type);
  const lastTransitionTime =
    old !== undefined && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : rfc3339(now);
  const next: Condition = {
    type,
    status,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
    lastTransitionTime,
  };
  const out = (conditions ?? []).map((c) => (c.type === type ? next : c));
  if (old === undefined) out.push(next);
  return out;
}

/** Epoch ms of a condition's last transition; undefined when absent or unparseable. */
export function transitionTime(conditions: readonly Condition[] | undefined, type: string): number | undefined {
  return parseTime(findCondition(conditions, type)?.lastTransitionTime);
}
