// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import {
  CATALOG_ZONES,
  cheapestOffering,
  loadCatalog,
  orderByPrice,
  toInstanceType,
  worstLaunchPrice,
} from '../../src/world/cloud/catalog.js';
import type { InstanceType, Offering } from '../../src/world/cloud/provider.js';
import type { NodeSelectorRequirement } from '../../src/core/cluster/types.js';

const catalog = loadCatalog();
const byName = (n: string): InstanceType => {
  const it = catalog.find((t) => t.name === n);
  if (it === undefined) throw new Error(n);
  return it;
};
const ct = (...values: string[]): NodeSelectorRequirement => ({
  key: 'karpenter.sh/capacity-type',
  operator: 'In',
  values,
});
const zone = (...values: string[]): NodeSelectorRequirement => ({
  key: 'topology.kubernetes.io/zone',
  operator: 'In',
  values,
});

describe('catalog', () => {
  it('ships the families and sizes, three zones, and realistic shapes', () => {
    expect(new Set(catalog.map((t) => t.family))).toEqual(new Set(['c5', 'c6g', 'm5', 'm6i', 'r5', 't3', 'g5']));
    expect(catalog.filter((t) => t.family === 'm5').map((t) => t.name)).toEqual([
      'm5.large',
      'm5.xlarge',
      'm5.2xlarge',
      'm5.4xlarge',
    ]);
    expect(catalog.filter((t) => t.family === 'g5').map((t) => t.name)).toEqual(['g5.xlarge', 'g5.2xlarge']);
    expect(CATALOG_ZONES).toEqual(['us-west-2a', 'us-west-2b', 'us-west-2c']);
    expect(byName('c6g.large').architecture).toBe('arm64');
    expect(byName('g5.xlarge').capacity['nvidia.com/gpu']).toBe(1);
    expect(byName('m5.large').capacity['nvidia.com/gpu']).toBeUndefined();
    expect(catalog.map((t) => t.capacity.pods)).toEqual(expect.arrayContaining([29, 35, 58, 234]));
  });

  it('allocatable is below node capacity by the kubelet reservations (m5.large: 2 vCPU, 8 GiB)', () => {
    const m5 = byName('m5.large');
    expect(m5.nodeCapacity).toEqual({ cpu: 2, memory: (8192 - 615) * 2 ** 20, pods: 29 });
    // 60m + 10m kube-reserved; 11*29+255 MiB kube-reserved + 100 MiB eviction
    expect(m5.capacity.cpu).toBeCloseTo(1.93, 5);
    expect(m5.capacity.memory).toBe((8192 - 615 - 574 - 100) * 2 ** 20);
  });

  it(
    'every on-demand price is the list price in all zones; spot is 30–40 % of it; reserved is ' +
      'cheaper than on-demand',
    () => {
      for (const it of catalog) {
        const od = it.offerings.filter((o) => o.capacityType === 'on-demand');
        expect(od.map((o) => o.zone)).toEqual(CATALOG_ZONES);
        expect(new Set(od.map((o) => o.price)).size).toBe(1);
        for (const o of it.offerings.filter((x) => x.capacityType === 'spot')) {
          expect(o.price / od[0].price).toBeGreaterThanOrEqual(0.3 - 1e-3);
          expect(o.price / od[0].price).toBeLessThanOrEqual(0.4 + 1e-3);
        }
        for (const o of it.offerings.filter((x) => x.capacityType === 'reserved'))
          expect(o.price).toBeLessThan(od[0].price);
      }
      expect(byName('m5.large').offerings.find((o) => o.capacityType === 'on-demand')?.price).toBe(0.096);
      expect(catalog.some((t) => t.offerings.some((o) => o.capacityType === 'reserved'))).toBe(true);
    },
  );

  it('loadCatalog returns a fresh copy each time', () => {
    const a = loadCatalog();
    a[0].offerings[0].available = false;
    expect(loadCatalog()[0].offerings[0].available).toBe(true);
  });
});

describe('cheapestOffering', () => {
  const m5 = byName('m5.large');
  it('picks the cheapest available offering overall (spot)', () => {
    const o = cheapestOffering(m5);
    const spot = m5.offerings.filter((x) => x.capacityType === 'spot').map((x) => x.price);
    expect(o?.capacityType).toBe('spot');
    expect(o?.price).toBe(Math.min(...spot));
  });
  it('respects capacity-type and zone requirements', () => {
    expect(cheapestOffering(m5, [ct('on-demand')])).toMatchObject({
      capacityType: 'on-demand',
      zone: 'us-west-2a',
      price: 0.096,
    });
    expect(cheapestOffering(m5, [ct('on-demand', 'reserved')])).toMatchObject({ capacityType: 'reserved' });
    expect(cheapestOffering(m5, [ct('reserved'), zone('us-west-2c')])).toBeUndefined();
    expect(cheapestOffering(m5, [ct('spot'), zone('us-west-2c')])).toMatchObject({
      zone: 'us-west-2c',
      capacityType: 'spot',
    });
  });
  it('skips unavailable offerings and accepts a predicate', () => {
    const g5 = byName('g5.2xlarge');
    expect(g5.offerings.find((o) => o.zone === 'us-west-2c' && o.capacityType === 'spot')?.available).toBe(false);
    expect(cheapestOffering(g5, [ct('spot'), zone('us-west-2c')])).toBeUndefined();
    expect(cheapestOffering(m5, (o) => o.price > 0.09)).toMatchObject({ price: 0.096, capacityType: 'on-demand' });
  });
  it('orders instance types by their cheapest compatible offering', () => {
    const order = orderByPrice(catalog, [ct('on-demand')]).map((t) => t.name);
    expect(order.slice(0, 3)).toEqual(['c6g.large', 't3.large', 'c5.large']);
    expect(order.at(-1)).toBe('g5.2xlarge');
  });
});

describe('worstLaunchPrice (KARPENTER.md#consolidation-decision)', () => {
  const mk = (offerings: Offering[]): InstanceType =>
    toInstanceType({
      name: 'x.large',
      family: 'x',
      architecture: 'amd64',
      vcpu: 2,
      memoryMiB: 4096,
      maxPods: 29,
      offerings,
    });
  const off = (zone: string, capacityType: Offering['capacityType'], price: number, available = true): Offering => ({
    zone,
    capacityType,
    price,
    available,
  });
  const it3 = mk([
    off('a', 'on-demand', 1),
    off('b', 'on-demand', 1.2),
    off('a', 'spot', 0.3),
    off('b', 'spot', 0.45),
    off('c', 'spot', 0.9, false),
    off('a', 'reserved', 0.6),
    off('b', 'reserved', 0.7),
  ]);
  it.each([
    ['all allowed → most expensive reserved', undefined, 0.7],
    ['spot and on-demand → most expensive available spot', [ct('spot', 'on-demand')], 0.45],
    ['on-demand only', [ct('on-demand')], 1.2],
    [
      'zone a only, reserved excluded → spot in a',
      [ct('spot', 'on-demand'), { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a'] }],
      0.3,
    ],
    [
      'spot only in zone c (unavailable) → no price',
      [ct('spot'), { key: 'topology.kubernetes.io/zone', operator: 'In', values: ['c'] }],
      Infinity,
    ],
  ] as [string, NodeSelectorRequirement[] | undefined, number][])('%s', (_name, reqs, price) => {
    expect(worstLaunchPrice(it3, reqs)).toBe(price);
  });
  it('on the real catalog: m5.large with spot allowed is its dearest spot zone', () => {
    const m5 = byName('m5.large');
    const spot = m5.offerings.filter((o) => o.capacityType === 'spot').map((o) => o.price);
    expect(worstLaunchPrice(m5, [ct('spot', 'on-demand')])).toBe(Math.max(...spot));
  });
});
