// SPDX-License-Identifier: Apache-2.0
// The termination pass's lookups by kept names (src/core/cluster/kept-names.ts) answer
// for the list in hand: an object that leaves a key (its providerID changes, it stops finalizing,
// it is deleted) after the list was taken is still found in that list until the next pass begins
// (mark), and the answers are in list order, as a filter over the list gives. The controller's
// own equality check is test/reconciler/incremental-scans.test.ts (termination.incremental).
import { describe, expect, it } from 'vitest';
import { KeptNames, pick } from '../../src/core/cluster/kept-names.js';
import type { NodeClaim } from '../../src/core/cluster/types.js';

const claim = (name: string, providerID?: string): NodeClaim =>
  ({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: { name },
    spec: {},
    ...(providerID && { status: { providerID } }),
  }) as NodeClaim;

const idOf = (c: NodeClaim): string => c.status?.providerID ?? '';

describe('kept names for a termination pass', () => {
  it('find what a filter over the list in hand finds, in list order, until the next mark', () => {
    const kept = new KeptNames();
    // A list in name order, as the in-memory server lists.
    const list = [claim('a', 'p1'), claim('b', 'p2'), claim('c', 'p1'), claim('d')];
    for (const c of list) kept.note(c.metadata.name, idOf(c) || undefined);
    kept.mark();
    const filter = (id: string) => list.filter((c) => idOf(c) === id);
    expect(pick(list, kept.under('p1'), (c) => idOf(c) === 'p1')).toEqual(filter('p1'));
    // Noted in reverse: the answer is still in list order.
    kept.note('c', undefined);
    kept.note('c', 'p1');
    expect(pick(list, kept.under('p1'), (c) => idOf(c) === 'p1').map((c) => c.metadata.name)).toEqual(['a', 'c']);

    // After the list was taken, `a` moves to p3 and `b` is deleted: the list in hand still holds them.
    kept.note('a', 'p3');
    kept.note('b', undefined);
    expect(pick(list, kept.under('p1'), (c) => idOf(c) === 'p1')).toEqual(filter('p1'));
    expect(pick(list, kept.under('p2'), (c) => idOf(c) === 'p2')).toEqual(filter('p2'));
    // A new pass: names answer for the keys they have now.
    kept.mark();
    expect([...(kept.under('p1') ?? [])]).toEqual(['c']);
    expect(kept.under('p2')).toBeUndefined();
    expect([...(kept.under('p3') ?? [])]).toEqual(['a']);
    // A name that left and came back before the mark stays.
    kept.note('c', 'p9');
    kept.note('c', 'p1');
    kept.mark();
    expect([...(kept.under('p1') ?? [])]).toEqual(['c']);
    expect(kept.under('p9')).toBeUndefined();
  });

  it('skip names the list does not hold (created after it, or filtered out of it)', () => {
    const list = [claim('a', 'p1'), claim('c', 'p1')];
    expect(pick(list, ['b', 'c', 'z'], () => true).map((c) => c.metadata.name)).toEqual(['c']);
    expect(pick(list, undefined, () => true)).toEqual([]);
  });
});
