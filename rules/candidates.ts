// SPDX-License-Identifier: Apache-2.0
// Turns the events a node-rule run fired into the node's verdict: a node is a candidate for
// a reason when an `eligible` rule fired for it and no `block` rule names that reason.
import { format } from '../grammar/diagnostic.js';
import type { FiredEvent } from './engine.js';
import type { NodeDetails } from './facts.js';
import { REASONS, type Reason } from './model.js';

export interface Block {
  code: string;
  message: string;
}

export interface NodeVerdict {
  /** Reasons the node is a candidate for right now, before budgets, in REASONS order. */
  reasons: Reason[];
  /** Why it is not a candidate for the reasons it would otherwise be; Karpenter's first reason first. */
  blocked: Block[];
}

export function nodeVerdict(events: readonly FiredEvent[], details: NodeDetails, reasonsInScope: readonly Reason[]): NodeVerdict {
  const eligible = new Set<Reason>();
  for (const e of events) if (e.type === 'eligible') eligible.add(e.params.reason as Reason);
  const blockedReasons = new Set<Reason>();
  const blocks: { order: number; block: Block }[] = [];
  const seen = new Set<string>();
  for (const e of events) {
    if (e.type !== 'block') continue;
    const covers = (e.params.reasons as Reason[]).filter((r) => eligible.has(r) && reasonsInScope.includes(r));
    if (covers.length === 0) continue;
    covers.forEach((r) => blockedReasons.add(r));
    const message = format(e.params.message as string, details as unknown as Record<string, string>);
    const key = `${e.params.code}\u0000${message}`;
    if (seen.has(key)) continue; // graceful and eventual variants of one filter say the same thing
    seen.add(key);
    blocks.push({ order: e.params.order as number, block: { code: e.params.code as string, message } });
  }
  blocks.sort((a, b) => a.order - b.order);
  const reasons = REASONS.filter((r) => reasonsInScope.includes(r) && eligible.has(r) && !blockedReasons.has(r));
  return { reasons, blocked: blocks.map((b) => b.block) };
}
