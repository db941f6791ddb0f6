// SPDX-License-Identifier: Apache-2.0
// The apply configurations govern mode writes: the user's own settings saved once and given back
// exactly, only kpol's fields in what it applies, and a node annotation that is the user's never
// taken for kpol's.
import { describe, expect, it } from 'vitest';
import type { Node, NodePool } from '../../src/core/cluster/types.js';
import { holdApply, holdStateOf, releaseApply } from '../../src/control/govern/node-holds.js';
import {
  ANNOTATION_USER_SETTINGS,
  governApply,
  governedFields,
  holdsFields,
  restoreApply,
  savedUserSettings,
} from '../../src/control/govern/nodepool-apply.js';
import { loadPolicies } from '../../src/core/policy/load.js';

const pool = (annotations: Record<string, string> = {}): NodePool => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name: 'web', annotations },
  spec: {
    disruption: {
      consolidationPolicy: 'WhenEmpty',
      consolidateAfter: '30s',
      budgets: [{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'], schedule: '@daily', duration: '1h' }],
    },
    template: {
      spec: {
        expireAfter: '720h',
        nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' },
        requirements: [],
      },
    },
  },
});
const policy = loadPolicies([
  {
    fileName: 'p.kpol',
    text:
      'policy p for nodepool web {\n  consolidate when empty or underutilized after 5m\n  expire ' +
      'after 24h\n  termination grace 1h\n}\n',
  },
]).policies[0];
const decision = { policy: 'p', allowed: {}, failClosedAt: '2026-11-25T10:00:00.000Z' };

describe('NodePool apply configurations', () => {
  it('govern: only the fields kpol owns, the user settings saved the first time and kept after', () => {
    const f = governedFields(policy, [{ nodes: '1', reasons: ['Drifted'] }]);
    const first = governApply(pool(), 'p', f, decision);
    expect(first.spec).toEqual({
      disruption: {
        budgets: [{ nodes: '1', reasons: ['Drifted'] }],
        consolidationPolicy: 'WhenEmptyOrUnderutilized',
        consolidateAfter: '5m',
      },
      template: { spec: { expireAfter: '24h', terminationGracePeriod: '1h' } },
    });
    const saved = first.metadata.annotations![ANNOTATION_USER_SETTINGS];
    expect(JSON.parse(saved)).toEqual({ disruption: pool().spec.disruption, expireAfter: '720h' });
    // Governed already: the saved settings are the user's, not kpol's own values read back.
    const live = { ...pool(first.metadata.annotations), spec: { ...pool().spec, disruption: first.spec.disruption } };
    expect(governApply(live, 'p', f, decision).metadata.annotations![ANNOTATION_USER_SETTINGS]).toBe(saved);
    expect(holdsFields(live, f, 'p')).toBe(false); // the template still has the user's expireAfter
  });

  it('restore: the user settings back, and no kpol annotation in what is applied', () => {
    const governed = pool({
      [ANNOTATION_USER_SETTINGS]: JSON.stringify({ disruption: pool().spec.disruption, expireAfter: '720h' }),
    });
    const { settings } = savedUserSettings(governed);
    const back = restoreApply(governed, settings!);
    expect(back.metadata.annotations).toEqual({});
    expect(back.spec).toEqual({ disruption: pool().spec.disruption, template: { spec: { expireAfter: '720h' } } });
  });

  it("a saved annotation that is not kpol's JSON is an error naming the NodePool, never a guess", () => {
    expect(savedUserSettings(pool({ [ANNOTATION_USER_SETTINGS]: '[1,2' })).error).toMatch(
      /^NodePool\/web: annotation kpol\.dev\/user-disruption: /,
    );
    expect(savedUserSettings(pool({ [ANNOTATION_USER_SETTINGS]: '[]' })).error).toMatch(/not a JSON object/);
  });
});

describe('node holds', () => {
  const node = (annotations: Record<string, string>): Node =>
    ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n', annotations }, spec: {} }) as Node;
  it("tells kpol's hold from the user's", () => {
    expect(holdStateOf(node({}))).toBe('free');
    expect(holdStateOf(node({ 'karpenter.sh/do-not-disrupt': 'true' }))).toBe('held-by-user');
    expect(holdStateOf(node({ 'karpenter.sh/do-not-disrupt': 'true', 'kpol.dev/do-not-disrupt': 'why' }))).toBe(
      'held-by-kpol',
    );
    expect(holdStateOf(node({ constructor: 'x' } as Record<string, string>))).toBe('free');
  });
  it('hold sets both annotations; release owns nothing', () => {
    expect(holdApply('n', 'why').metadata.annotations).toEqual({
      'karpenter.sh/do-not-disrupt': 'true',
      'kpol.dev/do-not-disrupt': 'why',
    });
    expect(releaseApply('n').metadata).toEqual({ name: 'n' });
  });
});
