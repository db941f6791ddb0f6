// SPDX-License-Identifier: Apache-2.0
// Status conditions as the agent writes them: the transition time moves only when the status does.
import type { Condition } from '../../core/cluster/types.js';

/** RFC 3339 with whole seconds, as the API server prints timestamps. */
export const rfc3339 = (ms: number): string =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** The first condition of `type`. A loop, not find(): asked for every NodeClaim and Node of a busy tick. */
export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  if (conditions == null) return undefined; // null too, as conditions?.find did
  for (const c of conditions) if (c.type === type) return c;
  return undefined;
}

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
  const t = findCondition(conditions, type)?.lastTransitionTime;
  if (t === undefined) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}
