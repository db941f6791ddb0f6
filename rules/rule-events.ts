// SPDX-License-Identifier: Apache-2.0
// What a fired rule says, typed. The rule graphs are data (compile.ts builds the policy's rules,
// rules/builtin holds the built-in ones) and json-rules-engine hands their events back untyped;
// each event is decoded once here, at the engine's edge, so the budget arithmetic and the node
// verdict read typed fields instead of casting. A malformed event is a bug in a graph, never
// user input, and is reported with the rule that fired it.
import type { Quantity, Reason } from './model.js';

export type RuleEvent =
  | { type: 'eligible'; params: { reason: Reason } }
  | { type: 'block'; params: { code: string; message: string; reasons: Reason[]; order: number } }
  | {
      type: 'budget';
      /** perReason: an independent bucket per reason (`budget … per reason`). `per`: seconds of a
       * rate budget's sliding window (rules/budgets.ts); absent for a concurrency budget. */
      params: {
        nodes: Quantity;
        reasons: Reason[] | null;
        cap: 'quantity' | 'zero';
        perReason: boolean;
        per?: number;
      };
    }
  | { type: 'freeze'; params: { reasons: Reason[] | null } }
  | { type: 'pause'; params: { reasons: Reason[] } }
  | { type: 'fail-closed'; params: Record<string, never> }
  | { type: 'scope-budget'; params: { scope: string; nodes: Quantity; reasons: Reason[] | null } }
  | { type: 'in-scope'; params: { scope: string } };

/** A decoded event and the name of the rule that fired it. */
export type FiredEvent = RuleEvent & { rule: string };

const isReasons = (v: unknown): v is Reason[] => Array.isArray(v) && v.every((r) => typeof r === 'string');
const isQuantity = (v: unknown): v is Quantity =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Quantity).value === 'number' &&
  ((v as Quantity).kind === 'count' || (v as Quantity).kind === 'percent');

/** The typed form of one event json-rules-engine reported; throws naming the rule when malformed. */
export function decodeEvent(type: string, params: Record<string, unknown>, rule: string): FiredEvent {
  const p = params;
  const bad = (what: string): never => {
    throw new Error(`rule ${rule}: a ${type} event needs ${what}`);
  };
  switch (type) {
    case 'eligible':
      return typeof p.reason === 'string' ? { type, rule, params: { reason: p.reason as Reason } } : bad('a reason');
    case 'block':
      if (typeof p.code !== 'string' || typeof p.message !== 'string') return bad('a code and a message');
      if (!isReasons(p.reasons) || typeof p.order !== 'number') return bad('reasons and an order');
      return { type, rule, params: { code: p.code, message: p.message, reasons: p.reasons, order: p.order } };
    case 'budget':
      if (!isQuantity(p.nodes) || (p.cap !== 'quantity' && p.cap !== 'zero')) return bad('nodes and a cap');
      if (p.perReason !== undefined && typeof p.perReason !== 'boolean') return bad('perReason as a boolean');
      if (p.per !== undefined && typeof p.per !== 'number') return bad('a rate window in seconds');
      return {
        type,
        rule,
        params: {
          nodes: p.nodes,
          reasons: reasonsOrAll(p.reasons, bad),
          cap: p.cap,
          perReason: p.perReason === true,
          ...(p.per !== undefined && { per: p.per }),
        },
      };
    case 'freeze':
      return { type, rule, params: { reasons: reasonsOrAll(p.reasons, bad) } };
    case 'pause':
      return isReasons(p.reasons) ? { type, rule, params: { reasons: p.reasons } } : bad('reasons as a list');
    case 'fail-closed':
      return { type, rule, params: {} };
    case 'scope-budget':
      if (typeof p.scope !== 'string' || !isQuantity(p.nodes)) return bad('a scope and nodes');
      return { type, rule, params: { scope: p.scope, nodes: p.nodes, reasons: reasonsOrAll(p.reasons, bad) } };
    case 'in-scope':
      return typeof p.scope === 'string' ? { type, rule, params: { scope: p.scope } } : bad('a scope');
    default:
      throw new Error(`rule ${rule}: unknown event type ${type}`);
  }
}

function reasonsOrAll(v: unknown, bad: (what: string) => never): Reason[] | null {
  if (v === null || v === undefined) return null;
  return isReasons(v) ? v : bad('reasons as a list');
}
