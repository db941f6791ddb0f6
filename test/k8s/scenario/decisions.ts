// SPDX-License-Identifier: Apache-2.0
// What a scenario decided, in order, in a form two backends' runs can be compared by: each
// disruption command started (method, reason, the NodeClaims it disrupts, the pool and instance
// types of each replacement) and each forceful expiration and interruption, each with the tick
// (index in the scenario's history) it was made on.
import type { TickResult } from '../../../src/control/runtime/runtime.js';

export interface Decision {
  tick: number;
  decision: string;
}

export function decisionsOf(history: readonly TickResult[]): Decision[] {
  const out: Decision[] = [];
  history.forEach((h, tick) => {
    const c = h.disruption.started;
    if (c) {
      const replacements = c.replacements.map((r) => `${r.nodePool}:${r.instanceTypes.join('|')}`);
      out.push({
        tick,
        decision:
          `${c.method}/${c.reason}: ${c.candidates.map((x) => x.nodeClaim).join(',')} -> ` +
          `[${replacements.join(', ')}]`,
      });
    }
    for (const n of h.expired) out.push({ tick, decision: `Expiration/Expired: ${n}` });
    for (const n of h.interrupted) out.push({ tick, decision: `Interruption/Interrupted: ${n}` });
  });
  return out;
}
