// SPDX-License-Identifier: Apache-2.0
// Fired rule events are decoded once at the engine's edge (rules/rule-events.ts): every event the
// compiled and built-in graphs can fire decodes, and a malformed one names its rule.
import { describe, expect, it } from 'vitest';
import builtin from '../../rules/builtin/candidate-rules.json' with { type: 'json' };
import { decodeEvent } from '../../rules/rule-events.js';

describe('rule events', () => {
  it('decodes every built-in rule event', () => {
    for (const r of builtin.rules) {
      const e = decodeEvent(r.event.type, (r.event.params ?? {}) as Record<string, unknown>, r.name);
      expect(e.type).toBe(r.event.type);
    }
  });

  it('reads a budget: its quantity, its reasons, or every reason when it names none', () => {
    const nodes = { kind: 'percent', value: 20 };
    expect(decodeEvent('budget', { budget: 'b0', nodes, reasons: ['Empty'], cap: 'quantity' }, 'budget:b0')).toEqual({
      type: 'budget',
      rule: 'budget:b0',
      params: { nodes, reasons: ['Empty'], cap: 'quantity', perReason: false },
    });
    // `per reason` (an independent bucket) is carried only when set; absent reads as shared
    const bucket = { budget: 'b1', nodes, reasons: null, cap: 'quantity', perReason: true };
    expect(decodeEvent('budget', bucket, 'budget:b1').params).toEqual({
      nodes,
      reasons: null,
      cap: 'quantity',
      perReason: true,
    });
    expect(decodeEvent('freeze', { freeze: 'f0' }, 'freeze:f0').params).toEqual({ reasons: null });
  });

  it('names the rule of a malformed event', () => {
    expect(() => decodeEvent('budget', { nodes: '5', cap: 'quantity' }, 'budget:b1')).toThrow(
      'rule budget:b1: a budget event needs nodes and a cap',
    );
    expect(() => decodeEvent('block', { code: 'X', message: 'm', reasons: 'Empty', order: 1 }, 'r')).toThrow(
      'rule r: a block event needs reasons and an order',
    );
    expect(() => decodeEvent('launch', {}, 'r')).toThrow('rule r: unknown event type launch');
    expect(() =>
      decodeEvent('budget', { nodes: { kind: 'count', value: 1 }, cap: 'quantity', perReason: 'yes' }, 'b'),
    ).toThrow('rule b: a budget event needs perReason as a boolean');
  });
});
