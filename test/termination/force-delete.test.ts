// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import {
  forceDeleteAt,
  forceDeleteGraceSeconds,
  needsForceDelete,
} from '../../src/control/termination/force-delete.js';
import { makePod } from '../support/cluster-builder.js';

const T = Date.parse('2026-08-20T12:05:00Z'); // deletion at 12:00:00 + TGP 5m
const at = (iso: string): number => Date.parse(iso);
const pod = (g: number | undefined, deletionTimestamp?: string) => {
  const p = makePod('web-1', 'node-a', deletionTimestamp ? { deletionTimestamp } : {});
  if (g === undefined) delete p.spec.terminationGracePeriodSeconds;
  else p.spec.terminationGracePeriodSeconds = g;
  return p;
};

describe('needsForceDelete', () => {
  it.each([
    // [case, g, pod deletionTimestamp, T, now, expected]
    ['no termination time: never', 30, undefined, undefined, '2026-08-20T13:00:00Z', false],
    // An API server always writes one; a pod that never went through one has the API's 30 s (Karpenter: never).
    [
      'no grace period on the pod: the API default 30 s, at T − 30 s not yet',
      undefined,
      undefined,
      T,
      '2026-08-20T12:04:30Z',
      false,
    ],
    [
      'no grace period on the pod: the API default 30 s, 1 ms later forced',
      undefined,
      undefined,
      T,
      '2026-08-20T12:04:30.001Z',
      true,
    ],
    ['g = TGP (300 s): at T − g exactly, not yet (strict)', 300, undefined, T, '2026-08-20T12:00:00Z', false],
    [
      'g = TGP: 1 ms after T − g, forced (deleted as soon as draining starts)',
      300,
      undefined,
      T,
      '2026-08-20T12:00:00.001Z',
      true,
    ],
    ['g > TGP (600 s): forced at once', 600, undefined, T, '2026-08-20T12:00:00Z', true],
    ['g = 30 s: at T − 30 s, not yet', 30, undefined, T, '2026-08-20T12:04:30Z', false],
    ['g = 30 s: 1 ms later, forced', 30, undefined, T, '2026-08-20T12:04:30.001Z', true],
    ['g = 30 s: well before, not forced', 30, undefined, T, '2026-08-20T12:01:00Z', false],
    ['after T: forced', 30, undefined, T, '2026-08-20T12:06:00Z', true],
    ['g = 0: forced only after T', 0, undefined, T, '2026-08-20T12:05:00Z', false],
    ['g = 0: after T', 0, undefined, T, '2026-08-20T12:05:00.001Z', true],
    ['terminating, kubelet kills it after T: forced', 30, '2026-08-20T12:05:01Z', T, '2026-08-20T12:00:30Z', true],
    [
      'terminating, kubelet kills it exactly at T: not forced',
      30,
      '2026-08-20T12:05:00Z',
      T,
      '2026-08-20T12:04:59Z',
      false,
    ],
    ['terminating before T, even after T: not forced', 30, '2026-08-20T12:04:00Z', T, '2026-08-20T12:06:00Z', false],
    ['terminating without T: never', 30, '2026-08-20T12:09:00Z', undefined, '2026-08-20T12:06:00Z', false],
  ])('%s', (_case, g, deletionTimestamp, deadline, now, expected) => {
    expect(
      needsForceDelete(
        pod(g as number | undefined, deletionTimestamp as string | undefined),
        deadline as number | undefined,
        at(now as string),
      ),
    ).toBe(expected);
  });
});

describe('forceDeleteGraceSeconds', () => {
  it.each([
    ['300 s before T', '2026-08-20T12:00:00Z', 300],
    ['the seconds left are truncated, not rounded', '2026-08-20T12:00:00.900Z', 299],
    ['1.5 s before T → 1', '2026-08-20T12:04:58.500Z', 1],
    ['0.5 s before T → 1 (never 0)', '2026-08-20T12:04:59.500Z', 1],
    ['at T → 1', '2026-08-20T12:05:00Z', 1],
    ['after T every pod gets 1 s', '2026-08-20T12:30:00Z', 1],
  ])('%s', (_case, now, expected) => {
    expect(forceDeleteGraceSeconds(T, at(now))).toBe(expected);
  });
});

describe('forceDeleteAt', () => {
  it('is the first millisecond after T − g', () => {
    const t = forceDeleteAt(pod(30), T)!;
    expect(t).toBe(at('2026-08-20T12:04:30.001Z'));
    expect(needsForceDelete(pod(30), T, t - 1)).toBe(false);
    expect(needsForceDelete(pod(30), T, t)).toBe(true);
  });
  it('takes an absent g as the API default, 30 s', () => {
    expect(forceDeleteAt(pod(undefined), T)).toBe(at('2026-08-20T12:04:30.001Z'));
  });
  it('is undefined without T or for a terminating pod', () => {
    expect(forceDeleteAt(pod(30), undefined)).toBeUndefined();
    expect(forceDeleteAt(pod(30, '2026-08-20T12:00:30Z'), T)).toBeUndefined();
  });
});
