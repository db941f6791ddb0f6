// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import type { NodeSelectorRequirement } from '../../src/core/cluster/types.js';
import {
  allowsLabel,
  intersect,
  intersectionProblem,
  matchesExpression,
  requirementAllows,
  requirementsOf,
  toNodeSelectorRequirements,
} from '../../src/core/cluster/requirements.js';

const req = (
  key: string,
  operator: NodeSelectorRequirement['operator'],
  values?: string[],
): NodeSelectorRequirement => ({ key, operator, ...(values && { values }) });

describe('matchesExpression (kube-scheduler semantics on labels)', () => {
  const labels = { zone: 'a', cpu: '4' };
  it.each([
    [req('zone', 'In', ['a', 'b']), true],
    [req('zone', 'In', ['b']), false],
    [req('zone', 'NotIn', ['b']), true],
    [req('missing', 'NotIn', ['b']), true],
    [req('zone', 'Exists'), true],
    [req('missing', 'Exists'), false],
    [req('missing', 'DoesNotExist'), true],
    [req('cpu', 'Gt', ['3']), true],
    [req('cpu', 'Gt', ['4']), false],
    [req('cpu', 'Lt', ['5']), true],
    [req('zone', 'Gt', ['1']), false],
    [req('missing', 'Lt', ['1']), false],
  ])('%j → %s', (e, expected) => expect(matchesExpression(labels, e)).toBe(expected));
});

describe('requirementAllows (one requirement against a label value)', () => {
  it.each([
    [req('k', 'In', ['a', 'b']), 'a', true],
    [req('k', 'In', ['a']), 'c', false],
    [req('k', 'In', ['a']), undefined, false],
    [req('k', 'NotIn', ['a']), 'b', true],
    [req('k', 'NotIn', ['a']), 'a', false],
    [req('k', 'NotIn', ['a']), undefined, true],
    [req('k', 'Exists'), 'x', true],
    [req('k', 'Exists'), undefined, false],
    [req('k', 'DoesNotExist'), undefined, true],
    [req('k', 'DoesNotExist'), 'x', false],
    [req('k', 'Gt', ['4']), '8', true],
    [req('k', 'Gt', ['8']), '8', false],
    [req('k', 'Gt', ['4']), 'eight', false],
    [req('k', 'Gt', ['4']), undefined, false],
    [req('k', 'Lt', ['4']), '2', true],
    [req('k', 'Lt', ['4']), '4', false],
    [req('k', 'Lt', ['x']), '2', false],
    [req('k', 'Gt', ['+4']), '8', true],
    [req('k', 'Lt', ['4']), '-2', true],
    [req('k', 'Gt', ['4', '5']), '8', false],
  ] as [NodeSelectorRequirement, string | undefined, boolean][])('%j on %s → %s', (e, value, want) => {
    expect(requirementAllows(e, value)).toBe(want);
  });
});

describe('requirement sets', () => {
  it('allowsLabel leaves a key the requirements do not mention open', () => {
    const reqs = requirementsOf([req('zone', 'In', ['a'])]);
    expect(allowsLabel(reqs, 'zone', 'a')).toBe(true);
    expect(allowsLabel(reqs, 'zone', 'b')).toBe(false);
    expect(allowsLabel(reqs, 'arch', 'arm64')).toBe(true);
  });

  it('a signed Gt/Lt operand bounds like the unsigned one (strconv.ParseInt)', () => {
    const r = intersect(
      requirementsOf([req('cpu', 'In', ['2', '4', '8'])]),
      requirementsOf([req('cpu', 'Gt', ['+2'])]),
    );
    expect(toNodeSelectorRequirements(r)).toEqual([req('cpu', 'In', ['4', '8'])]);
  });

  it('intersects In with NotIn and keeps the result as In', () => {
    const r = intersect(
      requirementsOf([req('zone', 'In', ['a', 'b', 'c'])]),
      requirementsOf([req('zone', 'NotIn', ['b'])]),
    );
    expect(toNodeSelectorRequirements(r)).toEqual([req('zone', 'In', ['a', 'c'])]);
  });

  it('Gt and Lt bound In values', () => {
    const r = intersect(
      requirementsOf([req('cpu', 'In', ['2', '4', '8'])]),
      requirementsOf([req('cpu', 'Gt', ['2']), req('cpu', 'Lt', ['8'])]),
    );
    expect(toNodeSelectorRequirements(r)).toEqual([req('cpu', 'In', ['4'])]);
  });

  it.each([
    [[req('zone', 'In', ['a'])], [req('zone', 'In', ['b'])], 'key zone, zone In [b] not in zone In [a]'],
    [[req('zone', 'In', ['a'])], [req('zone', 'In', ['a', 'b'])], undefined],
    [[req('zone', 'In', ['a'])], [req('zone', 'Exists')], undefined],
    [[req('zone', 'In', ['a'])], [req('zone', 'DoesNotExist')], 'key zone, zone DoesNotExist not in zone In [a]'],
    [[req('gpu', 'DoesNotExist')], [req('gpu', 'NotIn', ['x'])], undefined],
    [[req('cpu', 'Gt', ['4'])], [req('cpu', 'Lt', ['5'])], 'key cpu, cpu Lt [5] not in cpu Gt [4]'],
    [[req('other', 'In', ['x'])], [req('zone', 'In', ['b'])], undefined],
  ])('%j ∩ %j → %s', (a, b, problem) => {
    expect(intersectionProblem(requirementsOf(a), requirementsOf(b))).toBe(problem);
  });
});
