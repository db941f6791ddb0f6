// SPDX-License-Identifier: Apache-2.0
// Turns the events a node-rule run fired into the node's verdict: a node is a candidate for
// a reason when an `eligible` rule fired for it and no `block` rule names that reason.
import { format } from '../grammar/diagnostic.js';
import type { FiredEvent, RuleEvent } from './rule-events.js';
import type { NodeDetails } from './facts.js';
import { REASONS, type Reason } from './model.js';

export interface Block {
  code: string;
  message: string;
}

/**
 * Blocks that only kpol knows: Karpenter has no pod windows or maintenance windows, so in govern
 * mode kpol holds such a node with Karpenter's node-level do-not-disrupt annotation instead.
 */
export const KPOL_ONLY_BLOCKS: ReadonlySet<string> = new Set(['PodDisruptionWindow', 'MaintenanceWindow']);

/** A kpol-only block in force on a node, whether or not the node is a candidate right now. */
export interface Hold extends Block {
  reasons: Reason[];
}

export interface NodeVerdict {
  /** Reasons the node is a candidate for right now, before budgets, in REASONS order. */
  reasons: Reason[];
  /** Why it is not a candidate for the reasons it would otherwise be; Karpenter's first reason first. */
  blocked: Block[];
  /** KPOL_ONLY_BLOCKS in force, with the reasons they block; empty when none. */
  holds: Hold[];
  /** The selector budgets whose selector the node matches (issue 15), in rule order; empty when none. */
  scopes: string[];
}

export function nodeVerdict(
  events: readonly FiredEvent[],
  details: NodeDetails,
  reasonsInScope: readonly Reason[],
): NodeVerdict {
  const eligible = new Set<Reason>();
  for (const e of events) if (e.type === 'eligible') eligible.add(e.params.reason);
  const blockedReasons = new Set<Reason>();
  const blocks: { order: number; block: Block }[] = [];
  const seen = new Set<string>();
  const holds = new Map<string, Hold>();
  for (const e of events) {
    if (e.type !== 'block') continue;
    if (KPOL_ONLY_BLOCKS.has(e.params.code)) addHold(holds, e.params, details, reasonsInScope);
    const covers = e.params.reasons.filter((r) => eligible.has(r) && reasonsInScope.includes(r));
    if (covers.length === 0) continue;
    covers.forEach((r) => blockedReasons.add(r));
    const message = format(e.params.message, details as unknown as Record<string, string>);
    const key = `${e.params.code}\u0000${message}`;
    if (seen.has(key)) continue; // graceful and eventual variants of one filter say the same thing
    seen.add(key);
    blocks.push({ order: e.params.order, block: { code: e.params.code, message } });
  }
  blocks.sort((a, b) => a.order - b.order);
  const reasons = REASONS.filter((r) => reasonsInScope.includes(r) && eligible.has(r) && !blockedReasons.has(r));
  const scopes = events.flatMap((e) => (e.type === 'in-scope' ? [e.params.scope] : []));
  return { reasons, blocked: blocks.map((b) => b.block), holds: [...holds.values()], scopes };
}

/** Joins the graceful and eventual variants of one hold into one entry with both reason sets. */
function addHold(
  holds: Map<string, Hold>,
  params: Extract<RuleEvent, { type: 'block' }>['params'],
  details: NodeDetails,
  inScope: readonly Reason[],
): void {
  const message = format(params.message, details as unknown as Record<string, string>);
  const reasons = params.reasons.filter((r) => inScope.includes(r));
  if (reasons.length === 0) return;
  const key = `${params.code}\u0000${message}`;
  const h = holds.get(key);
  if (!h) holds.set(key, { code: params.code, message, reasons });
  else h.reasons = REASONS.filter((r) => h.reasons.includes(r) || reasons.includes(r));
}
