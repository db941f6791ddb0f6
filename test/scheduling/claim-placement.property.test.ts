// SPDX-License-Identifier: Apache-2.0
// Property: placing pods on new NodeClaims (simulate.ts placeOnClaims with new-claims.ts addPod,
// which remember their answers per claim requirements, requests and pod shape) decides exactly
// what the straightforward version did (old-claims.ts, a test-only copy): the same claim or the
// same error text for every pod, and the same claims — pool, requirements, instance types in
// order, pods, requests and target labels. The pools are prepared once and serve several runs,
// as a consolidation pass shares them between its simulations, so remembered answers are reused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NodeSelectorRequirement, Pod, Taint } from '../../src/core/cluster/types.js';
import type { PlannedClaim, PreparedPool } from '../../src/world/scheduling/new-claims.js';
import { requiredPodAntiAffinity } from '../../src/world/scheduling/pod-spec.js';
import type { PlacementTarget } from '../../src/world/scheduling/predicates.js';
import { toNodeSelectorRequirements } from '../../src/core/cluster/requirements.js';
import { addResources, podRequests, type Resources } from '../../src/core/cluster/resources.js';
import {
  byDescendingSize,
  claimPlan,
  inList,
  launchableZonesOf,
  placeOnClaims,
  preparePools,
  type SimNode,
} from '../../src/world/scheduling/simulate.js';
import type { TopologyView } from '../../src/world/scheduling/topology.js';
import { placeOnClaims as oldPlaceOnClaims } from './old-claims.js';
import { instanceType, pod, simNode, TYPES, ZONES } from './builders.js';
import type { Offering } from '../../src/world/cloud/provider.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';
const ARCH = 'kubernetes.io/arch';
const CAPACITY = 'karpenter.sh/capacity-type';
const POOL = 'karpenter.sh/nodepool';
const TAINT: Taint = { key: 'dedicated', value: 'x', effect: 'NoSchedule' };

const offered = (zones: string[], price: number, available = true): Offering[] =>
  zones.flatMap((zone) => [
    { zone, capacityType: 'on-demand' as const, price, available },
    { zone, capacityType: 'spot' as const, price: price / 3, available },
  ]);
/** The builders' types, and some a zone pin narrows: offered in one zone only, or unavailable in one. */
const INSTANCE_TYPES = [
  ...TYPES,
  instanceType('z5.large', 2, 8, 0.07, { offerings: offered([ZONES[0]], 0.07) }),
  instanceType('z5.4xlarge', 16, 64, 0.5, {
    offerings: [...offered([ZONES[0], ZONES[2]], 0.5), ...offered([ZONES[1]], 0.5, false)],
  }),
];

const op = fc.constantFrom<NodeSelectorRequirement['operator']>('In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt');
/** A requirement over keys pools define, instance types provide, or nobody knows. */
const exprArb = fc
  .record({
    key: fc.constantFrom(ZONE, ARCH, CAPACITY, POOL, 'team', 'gen', 'unknown', 'node.kubernetes.io/instance-type'),
    operator: op,
    values: fc.array(
      fc.constantFrom(...ZONES, 'amd64', 'arm64', 'spot', 'on-demand', 'pool-0', 'pool-1', 'a', 'b', '3', '7'),
      { maxLength: 3 },
    ),
  })
  .map((e): NodeSelectorRequirement => {
    if (e.operator === 'Exists' || e.operator === 'DoesNotExist') return { key: e.key, operator: e.operator };
    if (e.operator === 'Gt' || e.operator === 'Lt') return { key: e.key, operator: e.operator, values: ['5'] };
    return { key: e.key, operator: e.operator, values: e.values };
  });

const poolArb = fc.record({
  weight: fc.integer({ min: 0, max: 2 }),
  requirements: fc.oneof(
    { arbitrary: fc.constant<NodeSelectorRequirement[]>([]), weight: 2 },
    { arbitrary: fc.array(exprArb, { maxLength: 2 }), weight: 1 },
  ),
  team: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
  gen: fc.option(fc.constantFrom('3', '7'), { nil: undefined }),
  tainted: fc.boolean(),
  noTypes: fc.oneof(fc.constant(false), fc.constant(false), fc.constant(true)),
});

/** A pod shape, as a ReplicaSet's template: several pods share one. */
const shapeArb = fc.record({
  cpu: fc.constantFrom('100m', '250m', '1', '1500m', '3'),
  memory: fc.constantFrom('128Mi', '1Gi', '6Gi', '20Gi'),
  nodeSelector: fc.option(
    fc.dictionary(
      fc.constantFrom(ZONE, POOL, 'team', ARCH),
      fc.constantFrom('a', 'pool-0', 'pool-1', 'amd64', ...ZONES),
      {
        maxKeys: 2,
      },
    ),
    { nil: undefined },
  ),
  terms: fc.option(fc.array(fc.array(exprArb, { minLength: 1, maxLength: 2 }), { maxLength: 3 }), {
    nil: undefined,
    freq: 2,
  }),
  tolerates: fc.boolean(),
  topology: fc.constantFrom('none', 'none', 'spread', 'zoneAnti', 'hostAnti'),
});

const caseArb = fc.record({
  pools: fc.array(poolArb, { minLength: 0, maxLength: 4 }),
  shapes: fc.array(shapeArb, { minLength: 1, maxLength: 4 }),
  daemonSet: fc.boolean(),
  runs: fc.array(
    fc.record({
      pods: fc.array(fc.record({ shape: fc.nat(), count: fc.integer({ min: 1, max: 6 }) }), { maxLength: 6 }),
      nodes: fc.array(fc.constantFrom(...ZONES), { maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;
type Shape = Case['shapes'][number];

function affinityOf(s: Shape, app: string): Record<string, unknown> {
  const nodeAffinity =
    s.terms === undefined
      ? undefined
      : {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: s.terms.map((t) => ({ matchExpressions: t })),
          },
        };
  const anti =
    s.topology === 'zoneAnti' || s.topology === 'hostAnti'
      ? {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { topologyKey: s.topology === 'zoneAnti' ? ZONE : HOST, labelSelector: { matchLabels: { app } } },
          ],
        }
      : undefined;
  return { ...(nodeAffinity && { nodeAffinity }), ...(anti && { podAntiAffinity: anti }) };
}

/** A fresh pod of the shape (each its own object, as pods of a ReplicaSet are). */
function podOf(s: Shape, shapeIndex: number, name: string): Pod {
  const app = `shape-${shapeIndex}`;
  const affinity = affinityOf(s, app);
  return pod(name, {
    cpu: s.cpu,
    memory: s.memory,
    labels: { app },
    ...(s.nodeSelector && { nodeSelector: { ...s.nodeSelector } }),
    ...(s.tolerates && { tolerations: [{ key: 'dedicated', operator: 'Exists' as const }] }),
    ...(Object.keys(affinity).length > 0 && { affinity }),
    ...(s.topology === 'spread' && {
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app } } },
      ],
    }),
  });
}

function poolsOf(c: Case): PreparedPool[] {
  const daemon = pod('ds', { cpu: '200m', memory: '256Mi' });
  return preparePools({
    nodePools: c.pools.map((p, i) => ({
      name: `pool-${i}`,
      weight: p.weight,
      requirements: p.noTypes ? [...p.requirements, { key: ARCH, operator: 'In', values: ['s390x'] }] : p.requirements,
      taints: p.tainted ? [TAINT] : [],
      labels: { ...(p.team && { team: p.team }), ...(p.gen && { gen: p.gen }) },
    })),
    instanceTypes: INSTANCE_TYPES,
    daemonSetPods: c.daemonSet ? [daemon] : [],
  });
}

type Place = typeof oldPlaceOnClaims;

/** One simulation's claim placements, as simulateScheduling drives placeOnClaims (existing nodes only as domains). */
function drive(place: Place, pools: PreparedPool[], pods: Pod[], nodes: SimNode[]) {
  const targets: PlacementTarget[] = nodes.map((n) => ({
    name: n.name,
    labels: n.labels,
    taints: n.taints,
    allocatable: n.allocatable,
    pods: [...n.pods],
    requested: n.pods.reduce<Resources>((s, p) => addResources(s, podRequests(p)), {}),
  }));
  const holders: { pod: Pod; target: PlacementTarget }[] = [];
  const view: TopologyView = {
    targets,
    antiAffinityHolders: holders,
    launchableZones: launchableZonesOf(pools),
    newHostnamePossible: pools.length > 0,
    version: 0,
  };
  const record = (p: Pod, target: PlacementTarget): void => {
    view.version = (view.version ?? 0) + 1;
    if (requiredPodAntiAffinity(p).length > 0) holders.push({ pod: p, target });
  };
  const claims: PlannedClaim[] = [];
  const outcomes = pods.map((p) => place(p, claims, pools, view, targets, record));
  return {
    outcomes,
    claims: claims.map((c) => ({
      pool: c.pool.template.name,
      index: c.index,
      requirements: toNodeSelectorRequirements(c.requirements),
      instanceTypes: c.instanceTypes.map((t) => t.name),
      plan: claimPlan(c).instanceTypes.map((t) => t.name),
      pods: c.pods,
      requested: c.requested,
      target: { ...c.target, requirements: toNodeSelectorRequirements(c.target.requirements!) },
    })),
    targets: targets.map((t) => t.name),
    holders: holders.map((h) => [h.pod, h.target.name]),
  };
}

describe('placeOnClaims with remembered answers', () => {
  it('decides what the straightforward placement decides, run after run on the same pools', () => {
    let placedOnClaims = 0;
    let refused = 0;
    fc.assert(
      fc.property(caseArb, (c) => {
        const pools = poolsOf(c);
        const oldPools = poolsOf(c);
        c.runs.forEach((run, r) => {
          const pods = run.pods.flatMap(({ shape, count }) =>
            Array.from({ length: count }, (_, k) => podOf(c.shapes[shape % c.shapes.length], shape, `r${r}-${k}`)),
          );
          const nodes = run.nodes.map((zone, i) => simNode(`n${i}`, { zone }));
          const fast = drive(
            (p, claims, ps, view, targets, record) => placeOnClaims(p, claims, ps, view, inList(targets), record),
            pools,
            pods,
            nodes,
          );
          const slow = drive(oldPlaceOnClaims, oldPools, pods, nodes);
          expect(fast).toEqual(slow);
          for (const o of fast.outcomes)
            if (typeof o === 'number') placedOnClaims++;
            else refused++;
        });
      }),
      { numRuns: 400, seed: 20261126 },
    );
    // The inputs reach both answers often enough to mean something.
    expect(placedOnClaims).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(500);
  });

  it('orders pods largest first exactly as the straightforward sort did', () => {
    // The straightforward version: [cpu, memory] per comparison, input order on a tie.
    const reference = (pods: readonly Pod[]): Pod[] => {
      const size = (p: Pod): [number, number] => [podRequests(p).cpu ?? 0, podRequests(p).memory ?? 0];
      return pods
        .map((p, i) => ({ p, i, s: size(p) }))
        .sort((a, b) => b.s[0] - a.s[0] || b.s[1] - a.s[1] || a.i - b.i)
        .map((x) => x.p);
    };
    const podsArb = fc.array(
      fc.record({
        cpu: fc.option(fc.constantFrom('0', '100m', '250m', '1', '1500m'), { nil: undefined }),
        memory: fc.option(fc.constantFrom('0', '128Mi', '1Gi', '6Gi'), { nil: undefined }),
      }),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(podsArb, (raw) => {
        const pods = raw.map((r, i) =>
          pod(`p${i}`, { ...(r.cpu && { cpu: r.cpu }), ...(r.memory && { memory: r.memory }) }),
        );
        expect(byDescendingSize(pods)).toEqual(reference(pods));
      }),
      { numRuns: 300, seed: 26 },
    );
  });
});
