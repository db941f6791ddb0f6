// SPDX-License-Identifier: Apache-2.0
// RequirementsDrifted (KARPENTER.md#drift-detection item 2): narrowing a NodePool's requirements drifts the
// nodes that no longer satisfy them; widening does not.
import { describe, expect, it } from 'vitest';
import type { NodeSelectorRequirement } from '../../src/core/cluster/types.js';
import { requirementsDrifted } from '../../src/core/facts/node-facts.js';
import { makeNodePool } from '../support/cluster-builder.js';

const labels = {
  'kubernetes.io/arch': 'amd64',
  'karpenter.sh/capacity-type': 'spot',
  'topology.kubernetes.io/zone': 'us-west-2a',
};
const pool = (requirements: NodeSelectorRequirement[]) => {
  const np = makeNodePool('p');
  np.spec.template!.spec!.requirements = requirements;
  return np;
};

describe('requirementsDrifted', () => {
  it.each([
    ['widening In is not drift', [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] }], false],
    ['Exists on a present key is not drift', [{ key: 'karpenter.sh/capacity-type', operator: 'Exists' }], false],
    [
      'narrowing away the value is drift',
      [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
      true,
    ],
    ['a required key the node lacks is drift', [{ key: 'team', operator: 'In', values: ['a'] }], true],
    ['NotIn on a missing key is not drift', [{ key: 'team', operator: 'NotIn', values: ['a'] }], false],
    [
      'DoesNotExist on a present key is drift',
      [{ key: 'topology.kubernetes.io/zone', operator: 'DoesNotExist' }],
      true,
    ],
  ] as const)('%s', (_, reqs, want) => {
    expect(requirementsDrifted(labels, pool(reqs as unknown as NodeSelectorRequirement[]))).toBe(want);
  });
});
