// SPDX-License-Identifier: Apache-2.0
// The disruption controller's numbers for one PDB, as table tests over computePdbStatus.
import { describe, expect, it } from 'vitest';
import type { ReplicaSet } from '../../src/core/cluster/memory/api-fields.js';
import type { Pod, PodDisruptionBudget } from '../../src/core/cluster/types.js';
import { computePdbStatus, DELETION_TIMEOUT_MS, scaledValue } from '../../src/world/controllers/pdb-arithmetic.js';
import { makePdb, makePod } from '../support/cluster-builder.js';

const NOW = Date.parse('2026-08-20T12:00:00Z');
const web = { app: 'web' };

/** `ready` Ready pods and `unready` unready pods of ReplicaSet `web` (uid uid-ReplicaSet-web). */
function pods(ready: number, unready = 0): Pod[] {
  return [
    ...Array.from({ length: ready }, (_, i) => makePod(`web-r${i}`, 'node-a', { labels: web })),
    ...Array.from({ length: unready }, (_, i) => makePod(`web-u${i}`, 'node-a', { labels: web, ready: 'False' })),
  ];
}

const rs = (replicas: number): ReplicaSet => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'web', namespace: 'default', uid: 'uid-ReplicaSet-web' },
  spec: { replicas },
});

const budget = (spec: Partial<PodDisruptionBudget['spec']>): PodDisruptionBudget => {
  const pdb = makePdb('web', { matchLabels: web });
  return { ...pdb, metadata: { ...pdb.metadata, generation: 3 }, spec: { ...pdb.spec, ...spec } };
};

describe('scaledValue (percent rounded up)', () => {
  it.each([
    [1, 10, 1],
    ['50%', 3, 2],
    ['10%', 3, 1],
    ['0%', 3, 0],
    ['100%', 3, 3],
    ['34%', 3, 2],
    ['25%', 4, 1],
  ] as const)('%s of %i → %i', (value, total, want) => {
    expect(scaledValue(value, total)).toBe(want);
  });
  it('rejects a string that is not a percentage', () => {
    expect(() => scaledValue('2', 3)).toThrow(/not a percentage/);
  });
});

describe('computePdbStatus', () => {
  it.each([
    [
      'maxUnavailable 1',
      { maxUnavailable: 1 },
      3,
      0,
      3,
      { expectedPods: 3, currentHealthy: 3, desiredHealthy: 2, disruptionsAllowed: 1 },
    ],
    [
      'maxUnavailable "34%"',
      { maxUnavailable: '34%' },
      3,
      0,
      3,
      { expectedPods: 3, desiredHealthy: 1, disruptionsAllowed: 2 },
    ],
    ['maxUnavailable 0', { maxUnavailable: 0 }, 3, 0, 3, { desiredHealthy: 3, disruptionsAllowed: 0 }],
    ['minAvailable 2', { minAvailable: 2 }, 3, 0, 3, { expectedPods: 3, desiredHealthy: 2, disruptionsAllowed: 1 }],
    [
      'minAvailable "50%" of 3',
      { minAvailable: '50%' },
      3,
      0,
      3,
      { expectedPods: 3, desiredHealthy: 2, disruptionsAllowed: 1 },
    ],
    ['minAvailable "100%"', { minAvailable: '100%' }, 3, 0, 3, { desiredHealthy: 3, disruptionsAllowed: 0 }],
    [
      'unready pods are not healthy',
      { maxUnavailable: 1 },
      2,
      1,
      3,
      { currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0 },
    ],
    [
      'percent counts the ReplicaSet scale, not the pods',
      { minAvailable: '50%' },
      2,
      0,
      4,
      { expectedPods: 4, desiredHealthy: 2, disruptionsAllowed: 0 },
    ],
    [
      'minAvailable int counts the matched pods',
      { minAvailable: 1 },
      2,
      0,
      4,
      { expectedPods: 2, desiredHealthy: 1, disruptionsAllowed: 1 },
    ],
    ['no pods allow nothing', { minAvailable: 0 }, 0, 0, 3, { expectedPods: 0, disruptionsAllowed: 0 }],
  ] as const)('%s', (_name, spec, ready, unready, replicas, want) => {
    const status = computePdbStatus(budget(spec), pods(ready, unready), [rs(replicas)], NOW);
    expect(status).toMatchObject({ ...want, observedGeneration: 3 });
    expect(status.conditions).toEqual([
      expect.objectContaining({ type: 'DisruptionAllowed', status: want.disruptionsAllowed! > 0 ? 'True' : 'False' }),
    ]);
  });

  it('without the ReplicaSet, takes the matched pods as the scale', () => {
    expect(computePdbStatus(budget({ maxUnavailable: 1 }), pods(3), [], NOW)).toMatchObject({
      expectedPods: 3,
      disruptionsAllowed: 1,
    });
  });

  it('does not expect pods without a controller (percent and maxUnavailable), as upstream', () => {
    const bare = [makePod('solo', 'node-a', { labels: web, owner: 'none' })];
    expect(computePdbStatus(budget({ maxUnavailable: 1 }), bare, [], NOW)).toMatchObject({
      expectedPods: 0,
      currentHealthy: 1,
      disruptionsAllowed: 0,
    });
    expect(computePdbStatus(budget({ minAvailable: 0 }), bare, [], NOW)).toMatchObject({
      expectedPods: 1,
      disruptionsAllowed: 1,
    });
  });

  it('terminating pods are not healthy', () => {
    const [a, b, c] = pods(3);
    const status = computePdbStatus(
      budget({ maxUnavailable: 1 }),
      [a, b, { ...c, metadata: { ...c.metadata, deletionTimestamp: '2026-08-20T12:00:30Z' } }],
      [rs(3)],
      NOW,
    );
    expect(status).toMatchObject({ currentHealthy: 2, disruptionsAllowed: 0 });
  });

  it('an evicted pod that still runs is not healthy for two minutes, then the record expires', () => {
    const pdb = budget({ maxUnavailable: 1 });
    pdb.status = {
      disruptionsAllowed: 0,
      disruptedPods: { 'web-r0': '2026-08-20T12:00:00Z' },
    } as PodDisruptionBudget['status'];
    const during = computePdbStatus(pdb, pods(3), [rs(3)], NOW + DELETION_TIMEOUT_MS - 1000);
    expect(during).toMatchObject({
      currentHealthy: 2,
      disruptionsAllowed: 0,
      disruptedPods: { 'web-r0': '2026-08-20T12:00:00Z' },
    });
    const after = computePdbStatus(pdb, pods(3), [rs(3)], NOW + DELETION_TIMEOUT_MS + 1000);
    expect(after).toMatchObject({ currentHealthy: 3, disruptionsAllowed: 1 });
    expect(after.disruptedPods).toBeUndefined();
  });

  it('drops the record once the pod terminates or is gone', () => {
    const pdb = budget({ maxUnavailable: 1 });
    pdb.status = {
      disruptedPods: { 'web-r0': '2026-08-20T12:00:00Z', gone: '2026-08-20T12:00:00Z' },
    } as PodDisruptionBudget['status'];
    const [a, ...rest] = pods(3);
    const status = computePdbStatus(
      pdb,
      [{ ...a, metadata: { ...a.metadata, deletionTimestamp: '2026-08-20T12:00:30Z' } }, ...rest],
      [rs(3)],
      NOW,
    );
    expect(status.disruptedPods).toBeUndefined();
  });

  it('an invalid percentage fails safe: nothing allowed, SyncFailed, old numbers kept', () => {
    const pdb = budget({ maxUnavailable: 'one' });
    pdb.status = { disruptionsAllowed: 2, currentHealthy: 3, observedGeneration: 2 } as PodDisruptionBudget['status'];
    const status = computePdbStatus(pdb, pods(3), [rs(3)], NOW);
    expect(status).toMatchObject({ disruptionsAllowed: 0, currentHealthy: 3, observedGeneration: 2 });
    expect(status.conditions).toEqual([
      expect.objectContaining({ type: 'DisruptionAllowed', status: 'False', reason: 'SyncFailed' }),
    ]);
  });

  it('selects by the selector: a missing selector matches nothing, an empty one everything', () => {
    const none = { ...budget({ minAvailable: 0 }), spec: { minAvailable: 0 } };
    expect(computePdbStatus(none, pods(2), [], NOW)).toMatchObject({ expectedPods: 0 });
    const all = { ...budget({ minAvailable: 0 }), spec: { minAvailable: 0, selector: {} } };
    expect(
      computePdbStatus(all, [...pods(2), makePod('other', 'node-a', { labels: { app: 'other' } })], [], NOW),
    ).toMatchObject({ expectedPods: 3 });
  });
});
