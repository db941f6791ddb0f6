// SPDX-License-Identifier: Apache-2.0
// What a kind's watch must reach before its cache shows this client's writes.
import { describe, expect, it } from 'vitest';
import { UnseenWrites } from '../../src/edge/kube/unseen-writes.js';

describe('UnseenWrites', () => {
  it('a kind is shown once its watch reaches the newest version written, and stays shown', () => {
    const u = new UnseenWrites();
    expect(u.shown('Pod', '5', 1)).toBe(true);
    u.written('Pod', '12');
    u.written('Pod', '10'); // an older answer arriving late does not lower the bar
    expect(u.shown('Pod', '11', 1)).toBe(false);
    expect(u.shown('Node', '1', 1)).toBe(true);
    expect(u.shown('Pod', '12', 1)).toBe(true);
    expect(u.shown('Pod', '3', 1)).toBe(true); // forgotten once shown
  });

  it('compares versions as numbers, not strings', () => {
    const u = new UnseenWrites();
    u.written('Node', '100');
    expect(u.shown('Node', '99', 1)).toBe(false);
    expect(u.shown('Node', '100', 1)).toBe(true);
  });

  it('a write of unknown version holds the kind until its informer has listed again', () => {
    const u = new UnseenWrites();
    u.unknown('Pod', 3);
    expect(u.shown('Pod', '1000', 3)).toBe(false);
    expect(u.shown('Node', '1000', 3)).toBe(true);
    expect(u.shown('Pod', '1000', 4)).toBe(true);
    expect(u.shown('Pod', '1', 4)).toBe(true);
  });

  it('a kind with an opaque version is never shown (always read from the server)', () => {
    const u = new UnseenWrites();
    u.written('ConfigMap', 'abc');
    expect(u.shown('ConfigMap', '999', 1)).toBe(false);
    u.written('Pod', '4');
    expect(u.shown('Pod', 'not-a-number', 1)).toBe(false);
    expect(u.shown('Pod', '4', 1)).toBe(true);
  });
});
