// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { cheapestOffering, worstLaunchPrice } from '../../src/world/cloud/catalog.js';
import type { InstanceType } from '../../src/world/cloud/provider.js';
import type { NodeSelectorRequirement } from '../../src/core/cluster/types.js';
import { offeringFilter, sortByPrice } from '../../src/world/scheduling/instance-types.js';
import {
  allowsCapacityType,
  allSpot,
  filterByPrice,
  filterOutSameInstanceType,
  spotToSpot,
  withCapacityType,
} from '../../src/world/scheduling/pricing.js';
import { requirementsOf, toNodeSelectorRequirements } from '../../src/core/cluster/requirements.js';
import { instanceType, TYPES } from './builders.js';

const CT = 'karpenter.sh/capacity-type';
const ZONE = 'topology.kubernetes.io/zone';

const mixed: InstanceType = {
  ...instanceType('x.large', 2, 8, 0),
  offerings: [
    { zone: 'a', capacityType: 'on-demand', price: 0.1, available: true },
    { zone: 'b', capacityType: 'on-demand', price: 0.12, available: true },
    { zone: 'a', capacityType: 'spot', price: 0.03, available: true },
    { zone: 'b', capacityType: 'spot', price: 0.05, available: true },
    { zone: 'c', capacityType: 'spot', price: 0.01, available: false },
  ],
};

/** The catalog's offering filter for requirement sets (zone and capacity type only). */
const under = (list: NodeSelectorRequirement[] = []) => offeringFilter(requirementsOf(list));
const cheapestPrice = (it: InstanceType, list?: NodeSelectorRequirement[]) => cheapestOffering(it, under(list))?.price;

describe('catalog prices under requirement sets', () => {
  it('cheapest compatible available offering', () => {
    expect(cheapestPrice(mixed)).toBe(0.03);
    expect(cheapestPrice(mixed, [{ key: CT, operator: 'In', values: ['on-demand'] }])).toBe(0.1);
    expect(cheapestPrice(mixed, [{ key: ZONE, operator: 'In', values: ['c'] }])).toBeUndefined();
  });

  it('worst launch price is the priciest offering in the first class of reserved → spot → on-demand', () => {
    expect(worstLaunchPrice(mixed, under())).toBe(0.05);
    expect(worstLaunchPrice(mixed, under([{ key: CT, operator: 'In', values: ['on-demand'] }]))).toBe(0.12);
    expect(
      worstLaunchPrice(
        mixed,
        under([
          { key: ZONE, operator: 'In', values: ['a'] },
          { key: CT, operator: 'NotIn', values: ['spot'] },
        ]),
      ),
    ).toBe(0.1);
    const reserved: InstanceType = {
      ...mixed,
      offerings: [...mixed.offerings, { zone: 'a', capacityType: 'reserved', price: 0.5, available: true }],
    };
    expect(worstLaunchPrice(reserved, under())).toBe(0.5);
    expect(worstLaunchPrice(mixed, under([{ key: ZONE, operator: 'In', values: ['c'] }]))).toBe(Infinity);
  });
});

describe('filterByPrice', () => {
  const od = [{ key: CT, operator: 'In' as const, values: ['on-demand'] }];
  it('keeps types whose worst launch price is strictly below the candidate price', () => {
    const names = (ts: InstanceType[]) => ts.map((t) => t.name);
    expect(names(filterByPrice(TYPES, 0.096, od))).toEqual(['c5.large', 'm6g.large']);
    expect(names(filterByPrice(TYPES, 0.0961, od))).toEqual(['m5.large', 'c5.large', 'm6g.large']);
  });

  it('sortByPrice orders by cheapest compatible offering', () => {
    expect(sortByPrice(TYPES, requirementsOf(od)).map((t) => t.name)).toEqual([
      'm6g.large',
      'c5.large',
      'm5.large',
      'r5.large',
      'm5.xlarge',
      'm5.2xlarge',
      'g5.xlarge',
    ]);
  });
});

describe('spot helpers', () => {
  it('allSpot needs every candidate on spot', () => {
    expect(allSpot(['spot', 'spot'])).toBe(true);
    expect(allSpot(['spot', 'on-demand'])).toBe(false);
    expect(allSpot([])).toBe(false);
  });

  it('capacity-type narrowing', () => {
    expect(allowsCapacityType([{ key: CT, operator: 'In', values: ['on-demand'] }], 'spot')).toBe(false);
    expect(allowsCapacityType([], 'spot')).toBe(true);
    expect(
      toNodeSelectorRequirements(
        withCapacityType([{ key: CT, operator: 'In', values: ['spot', 'on-demand'] }], 'spot'),
      ),
    ).toEqual([{ key: CT, operator: 'In', values: ['spot'] }]);
  });

  it('spot-to-spot is off unless the feature gate is on', () => {
    expect(spotToSpot(TYPES, [], 1, { enabled: false, singleNode: false })).toEqual({
      ok: false,
      reason: "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
    });
  });

  it('single-node spot-to-spot needs 15 cheaper types and launches from the 15 cheapest', () => {
    const many = Array.from({ length: 20 }, (_, i) => instanceType(`t${i}.large`, 2, 8, 0.1 + i * 0.01));
    const few = spotToSpot(many.slice(0, 10), [], 10, { enabled: true, singleNode: true });
    expect(few).toEqual({
      ok: false,
      reason:
        'SpotToSpotConsolidation requires 15 cheaper instance type options than the current ' +
        'candidate to consolidate, got 10',
    });
    const ok = spotToSpot(many, [], 10, { enabled: true, singleNode: true });
    expect(ok.ok && ok.instanceTypes.map((t) => t.name)).toEqual(many.slice(0, 15).map((t) => t.name));
    expect(ok.ok && toNodeSelectorRequirements(ok.requirements)).toEqual([
      { key: CT, operator: 'In', values: ['spot'] },
    ]);
    const multi = spotToSpot(many.slice(0, 3), [], 10, { enabled: true, singleNode: false });
    expect(multi.ok && multi.instanceTypes).toHaveLength(3);
    expect(spotToSpot(many, [], 0.01, { enabled: true, singleNode: false })).toEqual({
      ok: false,
      reason: "Can't replace with a cheaper node",
    });
  });
});

describe('filterOutSameInstanceType (KARPENTER.md#multi-node step 3)', () => {
  const od = [{ key: CT, operator: 'In' as const, values: ['on-demand'] }];
  it('drops types not cheaper than the cheapest candidate already running one of the options', () => {
    const options = TYPES.filter((t) => ['m5.large', 'm5.xlarge', 'c5.large'].includes(t.name));
    const kept = filterOutSameInstanceType(
      options,
      [{ instanceType: 'm5.xlarge', price: 0.192 }, { instanceType: 'm5.large', price: 0.096 }, { price: 0.05 }],
      od,
    );
    expect(kept.map((t) => t.name)).toEqual(['c5.large']);
  });
  it('keeps everything when no candidate runs one of the options', () => {
    const kept = filterOutSameInstanceType(TYPES, [{ instanceType: 'z9.huge', price: 0.01 }], od);
    expect(kept).toHaveLength(TYPES.length);
  });
});
