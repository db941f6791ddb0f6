// SPDX-License-Identifier: Apache-2.0
// keepUnchanged (src/core/policy/unchanged-policies.ts): a reload hands back the object in force
// for a policy equal field by field, and a new object for any difference, however small.
import { describe, expect, it } from 'vitest';
import type { PolicySpec } from '../../rules/model.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { keepUnchanged } from '../../src/core/policy/unchanged-policies.js';

const load = (text: string, fileName = 'p.kpol') => {
  const r = loadPolicies([{ fileName, text }]);
  expect(r.ok).toBe(true);
  return r.policies;
};
const TEXT = `policy a for nodepool x {\n  budget 10%\n}\npolicy b for nodepool y {\n  budget 20%\n}\n`;

describe('keepUnchanged', () => {
  it('keeps equal policies, replaces changed ones, and starts from nothing on the first load', () => {
    const first = load(TEXT);
    expect(keepUnchanged([], first)).toEqual(first);
    const again = keepUnchanged(first, load(TEXT));
    expect(again[0]).toBe(first[0]);
    expect(again[1]).toBe(first[1]);
    const edited = keepUnchanged(first, load(TEXT.replace('20%', '30%')));
    expect(edited[0]).toBe(first[0]);
    expect(edited[1]).not.toBe(first[1]);
    expect(edited[1]!.budgets[0]!.nodes).toEqual({ kind: 'percent', value: 30 });
  });

  it('treats another file name as a change: messages cite the file', () => {
    const first = load(TEXT);
    const moved = keepUnchanged(first, load(TEXT, 'q.kpol'));
    expect(moved[0]).not.toBe(first[0]);
    expect(moved[0]!.file).toBe('q.kpol');
  });

  it('tells Infinity from NaN and null, which JSON alone prints alike', () => {
    const base = load(TEXT)[0]!;
    const withValue = (v: number | null) => ({ ...base, terminationGracePeriodSeconds: v }) as unknown as PolicySpec;
    const inForce = [withValue(Infinity)];
    expect(keepUnchanged(inForce, [withValue(Infinity)])[0]).toBe(inForce[0]);
    expect(keepUnchanged(inForce, [withValue(null)])[0]).not.toBe(inForce[0]);
    expect(keepUnchanged(inForce, [withValue(NaN)])[0]).not.toBe(inForce[0]);
  });
});
