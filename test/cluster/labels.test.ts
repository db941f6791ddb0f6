// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { labelSignature, matchesLabelSelector } from '../../src/core/cluster/labels.js';
import { matchesSelector } from '../../rules/selector.js';
import type { LabelRequirement } from '../../rules/model.js';

const labels = { app: 'web', tier: 'front' };

describe('matchesLabelSelector (metav1.LabelSelector)', () => {
  it.each([
    ['missing selector matches nothing', undefined, false],
    ['empty selector matches everything', {}, true],
    ['matchLabels hit', { matchLabels: { app: 'web' } }, true],
    ['matchLabels miss', { matchLabels: { app: 'db' } }, false],
    ['In', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }, true],
    ['NotIn on a missing key matches', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, true],
    ['Exists', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, true],
    ['DoesNotExist', { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, false],
    [
      'labels AND expressions',
      { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] },
      false,
    ],
    ['invalid operator matches nothing', { matchExpressions: [{ key: 'app', operator: 'Gt', values: ['1'] }] }, false],
    ['In without values is invalid', { matchExpressions: [{ key: 'app', operator: 'In', values: [] }] }, false],
  ])('%s', (_, selector, expected) => {
    expect(matchesLabelSelector(labels, selector)).toBe(expected);
  });

  it('an empty selector matches a pod without labels', () => {
    expect(matchesLabelSelector(undefined, {})).toBe(true);
  });
});

describe('matchesSelector (kpol selectors)', () => {
  const r = (key: string, operator: LabelRequirement['operator'], values: string[] = []): LabelRequirement => ({
    key,
    operator,
    values,
  });
  it.each([
    [[], true],
    [[r('app', 'In', ['web'])], true],
    [[r('app', 'In', ['web']), r('tier', 'NotIn', ['front'])], false],
    [[r('gpu', 'DoesNotExist')], true],
    [[r('gpu', 'Exists')], false],
  ])('%j → %s', (requirements, expected) => {
    expect(matchesSelector(labels, requirements)).toBe(expected);
  });
});

describe('labelSignature', () => {
  it('is independent of key order and distinguishes values', () => {
    expect(labelSignature({ a: '1', b: '2' })).toBe(labelSignature({ b: '2', a: '1' }));
    expect(labelSignature({ a: '1' })).not.toBe(labelSignature({ a: '2' }));
    expect(labelSignature({ 'a=': '1' })).not.toBe(labelSignature({ a: '=1' }));
  });
});
