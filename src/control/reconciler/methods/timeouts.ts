// SPDX-License-Identifier: Apache-2.0
// Karpenter's consolidation time limits (KARPENTER.md#multi-node, KARPENTER.md#single-node): multi-node consolidation's
// binary search stops after 1 minute with the best command found so far; single-node
// consolidation checks a 3-minute deadline before each candidate and gives up. Time is read
// from the pass's clock (MethodContext.clock): a simulated cluster's clock that does not move
// while the controller thinks never times out, and tests advance it per simulation.
import type { MethodContext } from './method.js';

/** Karpenter's MultiNodeConsolidationTimeoutDuration. */
export const MULTI_NODE_TIMEOUT_MS = 60_000;
/** Karpenter's SingleNodeConsolidationTimeoutDuration. */
export const SINGLE_NODE_TIMEOUT_MS = 3 * 60_000;

/** A check that turns true once the clock is strictly past `limitMs` from now (Go's `Now().After(timeout)`). */
export function deadline(ctx: MethodContext, limitMs: number): () => boolean {
  const clock = ctx.clock;
  if (!clock) return () => false;
  const end = clock.now() + limitMs;
  return () => clock.now() > end;
}
