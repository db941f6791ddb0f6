// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { availableOfferings, loadCatalog } from '../../src/world/cloud/catalog.js';
import {
  incompatibility,
  instanceTypeCompatible,
  instanceTypeLabels,
  isInstanceTypeKey,
  offeringCompatible,
  pinnedLabels,
} from '../../src/world/cloud/offering-fit.js';
import type { NodeSelectorRequirement } from '../../src/core/cluster/types.js';

const catalog = loadCatalog();
const get = (n: string) => catalog.find((t) => t.name === n)!;
const r = (
  key: string,
  operator: NodeSelectorRequirement['operator'],
  ...values: string[]
): NodeSelectorRequirement => ({ key, operator, values });

describe('instance type and offering compatibility', () => {
  it('labels a catalog type with its well-known labels', () => {
    expect(instanceTypeLabels(get('g5.xlarge'))).toMatchObject({
      'node.kubernetes.io/instance-type': 'g5.xlarge',
      'kpol.dev/instance-family': 'g5',
      'kubernetes.io/arch': 'amd64',
      'kpol.dev/instance-cpu': '4',
      'kpol.dev/instance-gpu-count': '1',
      'kpol.dev/instance-gpu-name': 'a10g',
      'kpol.dev/instance-size': 'xlarge',
    });
    expect(instanceTypeLabels(get('m5.large'))['kpol.dev/instance-gpu-count']).toBeUndefined();
  });
  it('arch, family, and numeric Gt/Lt on cpu', () => {
    const arm = [r('kubernetes.io/arch', 'In', 'arm64')];
    expect(catalog.filter((t) => instanceTypeCompatible(arm, t)).map((t) => t.family)).toEqual([
      'c6g',
      'c6g',
      'c6g',
      'c6g',
    ]);
    const mid = [
      r('kpol.dev/instance-cpu', 'Gt', '2'),
      r('kpol.dev/instance-cpu', 'Lt', '16'),
      r('kpol.dev/instance-family', 'In', 'm5'),
    ];
    expect(catalog.filter((t) => instanceTypeCompatible(mid, t)).map((t) => t.name)).toEqual([
      'm5.xlarge',
      'm5.2xlarge',
    ]);
  });
  it('GPU types need Exists on the gpu label; DoesNotExist rules them out', () => {
    const gpu = catalog
      .filter((t) => instanceTypeCompatible([r('kpol.dev/instance-gpu-count', 'Exists')], t))
      .map((t) => t.name);
    expect(gpu).toEqual(['g5.xlarge', 'g5.2xlarge']);
    expect(instanceTypeCompatible([r('kpol.dev/instance-gpu-count', 'DoesNotExist')], get('g5.xlarge'))).toBe(false);
    expect(instanceTypeCompatible([r('kpol.dev/instance-gpu-name', 'In', 'a10g')], get('m5.large'))).toBe(false);
  });
  it('custom keys constrain nothing; zone and capacity type only judge offerings', () => {
    const reqs = [
      r('team', 'In', 'payments'),
      r('karpenter.sh/nodepool', 'In', 'default'),
      r('topology.kubernetes.io/zone', 'In', 'us-west-2b'),
      r('karpenter.sh/capacity-type', 'NotIn', 'spot'),
    ];
    const m5 = get('m5.large');
    expect(instanceTypeCompatible(reqs, m5)).toBe(true);
    expect(availableOfferings(m5, reqs).map((o) => `${o.zone}/${o.capacityType}`)).toEqual([
      'us-west-2b/on-demand',
      'us-west-2b/reserved',
    ]);
    expect(offeringCompatible(reqs, m5, m5.offerings[0])).toBe(false);
  });
  it('says why an offering is ruled out', () => {
    expect(incompatibility([r('kubernetes.io/arch', 'In', 'arm64')], get('m5.large'))).toBe(
      'kubernetes.io/arch is `amd64`, requirement In [arm64]',
    );
    expect(incompatibility([r('kpol.dev/instance-gpu-count', 'Exists')], get('m5.large'))).toBe(
      'kpol.dev/instance-gpu-count is undefined, requirement Exists',
    );
  });
  it('availableOfferings skips unavailable ones; offeringCompatible does not judge availability', () => {
    const g5 = get('g5.2xlarge');
    const spotC = [r('karpenter.sh/capacity-type', 'In', 'spot'), r('topology.kubernetes.io/zone', 'In', 'us-west-2c')];
    expect(availableOfferings(g5, spotC)).toEqual([]);
    expect(g5.offerings.filter((o) => offeringCompatible(spotC, g5, o))).toHaveLength(1);
  });
  it('judges by type labels exactly the well-known keys other than zone and capacity type', () => {
    expect(
      ['kubernetes.io/arch', 'kpol.dev/instance-cpu', 'node.kubernetes.io/instance-type'].every(isInstanceTypeKey),
    ).toBe(true);
    expect(
      ['topology.kubernetes.io/zone', 'karpenter.sh/capacity-type', 'karpenter.sh/nodepool', 'team'].some(
        isInstanceTypeKey,
      ),
    ).toBe(false);
  });
  it('pinnedLabels takes single-valued In requirements', () => {
    expect(
      pinnedLabels([
        r('team', 'In', 'a'),
        r('node.kubernetes.io/instance-type', 'In', 'm5.large', 'c5.large'),
        r('x', 'Exists'),
      ]),
    ).toEqual({ team: 'a' });
  });
});
