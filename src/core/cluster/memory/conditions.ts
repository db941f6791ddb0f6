// SPDX-License-Identifier: Apache-2.0
// Status conditions as apimachinery's meta.SetStatusCondition writes them.
import type { Condition } from '../types.js';

/** Replaces the condition of `c.type`; the transition time moves only when the status does. */
export function setCondition(conditions: readonly Condition[] | undefined, c: Condition): Condition[] {
  const old = conditions?.find((x) => x.type === c.type);
  const next = old && old.status === c.status ? { ...c, lastTransitionTime: old.lastTransitionTime } : c;
  return [...(conditions ?? []).filter((x) => x.type !== c.type), next];
}
