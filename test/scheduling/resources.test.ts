// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../src/core/cluster/types.js';
import {
  formatResources,
  insufficientResource,
  nodeAllocatable,
  parseQuantity,
  addResources,
  podRequests,
  sumRequests,
} from '../../src/core/cluster/resources.js';

describe('parseQuantity', () => {
  it.each([
    ['100m', 0.1],
    ['2', 2],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['128Mi', 128 * 2 ** 20],
    ['1Gi', 2 ** 30],
    ['4Ki', 4096],
    ['1e3', 1000],
    ['1E3', 1000],
    ['2e-3', 0.002],
    ['500M', 5e8],
    ['1k', 1000],
    ['1E', 1e18],
    ['250u', 0.00025],
    ['10n', 1e-8],
    ['+3', 3],
    ['-1', -1],
    ['1.5Gi', 1.5 * 2 ** 30],
  ])('%s → %d', (text, value) => {
    expect(parseQuantity(text)).toBeCloseTo(value, 12);
  });

  it.each(['', 'abc', '1mi', '1KiB', '1e', '1 Gi', 'Gi'])('rejects %j', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
  });
});

const podWith = (spec: Partial<Pod['spec']>): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec });

describe('podRequests', () => {
  it('sums containers and adds pods: 1', () => {
    const r = podRequests(
      podWith({
        containers: [
          { name: 'a', resources: { requests: { cpu: '250m', memory: '64Mi' } } },
          { name: 'b', resources: { requests: { cpu: '750m', memory: '64Mi', 'example.com/foo': '2' } } },
        ],
      }),
    );
    expect(r).toEqual({ cpu: 1, memory: 128 * 2 ** 20, 'example.com/foo': 2, pods: 1 });
  });

  it('takes the larger of the container sum and the biggest init container, per resource, plus overhead', () => {
    const r = podRequests(
      podWith({
        containers: [{ name: 'a', resources: { requests: { cpu: '500m', memory: '1Gi' } } }],
        initContainers: [
          { name: 'i1', resources: { requests: { cpu: '2', memory: '100Mi' } } },
          { name: 'i2', resources: { requests: { cpu: '1' } } },
        ],
        overhead: { cpu: '100m' },
      }),
    );
    expect(r.cpu).toBeCloseTo(2.1);
    expect(r.memory).toBe(2 ** 30);
  });

  it('a limit without a request requests the limit', () => {
    expect(
      podRequests(
        podWith({
          containers: [{ name: 'a', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '200m' } } }],
        }),
      ),
    ).toEqual({ cpu: 0.2, memory: 2 ** 30, pods: 1 });
  });

  it('a pod with no requests still takes a pod slot', () => {
    expect(podRequests(podWith({ containers: [{ name: 'a' }] }))).toEqual({ pods: 1 });
  });

  // Pods sharing one containers list (as the stores' pods of one ReplicaSet do) share its answer,
  // but only when the list is all they request: an init container or an overhead adds its own.
  it('pods sharing a containers list share its requests, unless init containers or an overhead add to them', () => {
    const containers = [{ name: 'a', resources: { requests: { cpu: '500m' } } }];
    const first = podRequests(podWith({ containers }));
    expect(podRequests(podWith({ containers }))).toBe(first);
    expect(podRequests(podWith({ containers, overhead: { cpu: '100m' } })).cpu).toBeCloseTo(0.6);
    const init = [{ name: 'i', resources: { requests: { cpu: '2' } } }];
    expect(podRequests(podWith({ containers, initContainers: init })).cpu).toBe(2);
    expect(podRequests(podWith({ containers }))).toEqual({ cpu: 0.5, pods: 1 });
  });

  it('sumRequests adds the pods in order, as adding them pairwise does', () => {
    const pods = [
      podWith({ containers: [{ name: 'a', resources: { requests: { cpu: '100m', memory: '1Mi' } } }] }),
      podWith({ containers: [{ name: 'b', resources: { requests: { cpu: '200m', 'example.com/gpu': '1' } } }] }),
      podWith({ containers: [{ name: 'c', resources: { requests: { cpu: '300m' } } }] }),
    ];
    const pairwise = pods.reduce<Record<string, number>>((s, p) => addResources(s, podRequests(p)), {});
    expect(sumRequests(pods)).toEqual(pairwise);
    expect(Object.keys(sumRequests(pods))).toEqual(Object.keys(pairwise));
    expect(sumRequests([])).toEqual({});
  });
});

describe('allocatable and fit', () => {
  it('reads Node status.allocatable, falling back to capacity', () => {
    const node = {
      apiVersion: 'v1',
      kind: 'Node' as const,
      metadata: { name: 'n' },
      spec: {},
      status: { capacity: { cpu: '4', memory: '16Gi', pods: '110' } },
    };
    expect(nodeAllocatable(node)).toEqual({ cpu: 4, memory: 16 * 2 ** 30, pods: 110 });
    expect(nodeAllocatable({ ...node, status: { ...node.status, allocatable: { cpu: '3920m' } } })).toEqual({
      cpu: 3.92,
    });
  });

  it('tolerates float rounding in sums and names the first short resource', () => {
    expect(insufficientResource({ cpu: 0.1 + 0.2 }, { cpu: 0.3 })).toBeUndefined();
    expect(insufficientResource({ cpu: 1, memory: 2 }, { cpu: 1, memory: 1 })).toEqual({
      name: 'memory',
      requested: 2,
      available: 1,
    });
    expect(insufficientResource({ 'nvidia.com/gpu': 1 }, { cpu: 8 })?.name).toBe('nvidia.com/gpu');
  });

  it('formats resources compactly and stably', () => {
    expect(formatResources({ pods: 2, memory: 3 * 2 ** 30, cpu: 1.5 })).toBe(
      '{"cpu":"1500m","memory":"3Gi","pods":"2"}',
    );
  });
});
