// SPDX-License-Identifier: Apache-2.0
// The template hash is kept per frozen NodePool object; a changed pool is a new object and gets
// its own hash, and an object that can still change is hashed afresh each time.
import { describe, expect, it } from 'vitest';
import type { NodePool } from '../../src/core/cluster/types.js';
import { templateHash } from '../../src/control/reconciler/nodepool-hash.js';

const pool = (labels: Record<string, string>): NodePool =>
  ({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'default' },
    spec: { template: { metadata: { labels }, spec: { nodeClassRef: { group: 'g', kind: 'K', name: 'n' } } } },
  }) as unknown as NodePool;

const deepFreeze = <T>(o: T): T => {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
};

describe('templateHash', () => {
  it('gives a frozen pool the hash of its template, and a changed (new) pool its own', () => {
    const a = deepFreeze(pool({ team: 'a' }));
    const b = deepFreeze(pool({ team: 'b' }));
    expect(templateHash(a)).toBe(templateHash(pool({ team: 'a' })));
    expect(templateHash(a)).toBe(templateHash(a));
    expect(templateHash(b)).not.toBe(templateHash(a));
  });

  it('hashes a pool that can still change each time it is asked', () => {
    const p = pool({ team: 'a' });
    const before = templateHash(p);
    p.spec.template!.metadata!.labels!.team = 'b';
    expect(templateHash(p)).not.toBe(before);
    expect(templateHash(p)).toBe(templateHash(deepFreeze(pool({ team: 'b' }))));
  });
});
