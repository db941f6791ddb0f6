// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/world/cloud/catalog.js';
import type { Pod } from '../../src/core/cluster/types.js';
import {
  allNonPendingScheduled,
  simulateScheduling,
  type SchedulingInput,
  type SchedulingResult,
} from '../../src/world/scheduling/simulate.js';
import { DEFAULT_POOL, pod, simNode, TYPES, ZONES } from './builders.js';
import { seq } from '../support/regex.js';

const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';

const run = (o: Partial<SchedulingInput>): SchedulingResult =>
  simulateScheduling({ pods: [], nodes: [], nodePools: [DEFAULT_POOL], instanceTypes: TYPES, ...o });

const where = (r: SchedulingResult, p: Pod) => r.placements.get(p);

describe('simulateScheduling: existing capacity', () => {
  it('places pods on existing nodes, first fit in name order', () => {
    const pods = [pod('a', { cpu: '1' }), pod('b', { cpu: '1' }), pod('c', { cpu: '1' })];
    const r = run({ pods, nodes: [simNode('n2'), simNode('n1')] });
    expect(pods.map((p) => where(r, p))).toEqual([{ node: 'n1' }, { node: 'n1' }, { node: 'n2' }]);
    expect(r.newNodeClaims).toEqual([]);
    expect(r.errors.size).toBe(0);
  });

  it('counts pods already on the node', () => {
    const p = pod('p', { cpu: '1500m' });
    const r = run({ pods: [p], nodes: [simNode('n1', { pods: [pod('old', { cpu: '1' })] }), simNode('n2')] });
    expect(where(r, p)).toEqual({ node: 'n2' });
  });

  it('places larger pods first', () => {
    const small = pod('small', { cpu: '500m' });
    const big = pod('big', { cpu: '2' });
    const r = run({ pods: [small, big], nodes: [simNode('n1')] });
    expect(where(r, big)).toEqual({ node: 'n1' });
    expect(where(r, small)).toEqual({ newNodeClaim: 0 });
  });
});

describe('simulateScheduling: new NodeClaims', () => {
  it('a pod too big for every node opens one NodeClaim with the cheapest compatible type first', () => {
    const p = pod('p', { cpu: '3', memory: '4Gi' });
    const r = run({ pods: [p], nodes: [simNode('n1')] });
    expect(where(r, p)).toEqual({ newNodeClaim: 0 });
    expect(r.newNodeClaims).toHaveLength(1);
    const nc = r.newNodeClaims[0];
    expect(nc.nodePool).toBe('default');
    expect(nc.pods).toEqual([p]);
    expect(nc.instanceTypes.map((t) => t.name)).toEqual(['m5.xlarge', 'm5.2xlarge', 'g5.xlarge']);
    expect(nc.requirements).toContainEqual({
      key: 'karpenter.sh/capacity-type',
      operator: 'In',
      values: ['on-demand'],
    });
    expect(nc.requirements).toContainEqual({ key: 'karpenter.sh/nodepool', operator: 'In', values: ['default'] });
  });

  it('bin-packs several pods onto one NodeClaim, keeping only types that fit them all', () => {
    const pods = [1, 2, 3, 4].map((i) => pod(`p${i}`, { cpu: '1500m', memory: '1Gi' }));
    const r = run({ pods });
    expect(r.newNodeClaims).toHaveLength(1);
    expect(r.newNodeClaims[0].pods).toHaveLength(4);
    expect(r.newNodeClaims[0].instanceTypes.map((t) => t.name)).toEqual(['m5.2xlarge']);
  });

  it('opens a second NodeClaim only when no type fits them all', () => {
    const pods = [1, 2, 3].map((i) => pod(`p${i}`, { cpu: '5' }));
    const r = run({ pods });
    expect(r.newNodeClaims.map((c) => c.pods.length)).toEqual([1, 1, 1]);
    expect(r.newNodeClaims[0].instanceTypes.map((t) => t.name)).toEqual(['m5.2xlarge']);
  });

  it('daemonset overhead is reserved on new claims of pools its pods would run on', () => {
    const p = pod('p', { cpu: '1900m' });
    const ds = pod('ds', { cpu: '200m', memory: '256Mi' });
    const gpuOnly = pod('ds-gpu', { cpu: '1', nodeSelector: { 'kubernetes.io/arch': 'arm64' } });
    const r = run({ pods: [p], daemonSetPods: [ds, gpuOnly] });
    expect(r.newNodeClaims[0].instanceTypes.map((t) => t.name)).toEqual(['m5.xlarge', 'm5.2xlarge', 'g5.xlarge']);
    expect(r.newNodeClaims[0].pods).toEqual([p]);
    const tooBig = pod('big', { cpu: '7900m' });
    expect(run({ pods: [tooBig], daemonSetPods: [ds, gpuOnly] }).errors.get(tooBig)).toMatch(
      seq(
        /^incompatible with nodepool "default", daemonset overhead=\{"cpu":"200m","memory":"256Mi","pods":"1"\}, /,
        /no instance type satisfied resources \{"cpu":"8100m","memory":"256Mi","pods":"2"\}/,
      ),
    );
  });

  it('a GPU pod gets only g5', () => {
    const p = pod('gpu', { cpu: '1', gpu: '1' });
    const r = run({ pods: [p], nodes: [simNode('n1')] });
    expect(r.newNodeClaims[0].instanceTypes.map((t) => t.name)).toEqual(['g5.xlarge']);
  });

  it('a GPU pod on the real catalog gets only g5 types, cheapest first', () => {
    const p = pod('gpu', { cpu: '1', gpu: '1' });
    const r = run({ pods: [p], instanceTypes: loadCatalog() });
    expect(r.newNodeClaims[0].instanceTypes.map((t) => t.name)).toEqual(['g5.xlarge', 'g5.2xlarge']);
  });

  it('a nodeSelector zone narrows the claim and the offerings priced', () => {
    const p = pod('p', { cpu: '1', nodeSelector: { [ZONE]: 'us-west-2b' } });
    const r = run({ pods: [p], nodes: [simNode('n1', { zone: 'us-west-2a' })] });
    expect(where(r, p)).toEqual({ newNodeClaim: 0 });
    expect(r.newNodeClaims[0].requirements).toContainEqual({ key: ZONE, operator: 'In', values: ['us-west-2b'] });
    expect(r.newNodeClaims[0].instanceTypes[0].name).toBe('c5.large');
  });

  it('a nodeSelector zone matching an existing node lands there', () => {
    const p = pod('p', { cpu: '1', nodeSelector: { [ZONE]: 'us-west-2b' } });
    const r = run({ pods: [p], nodes: [simNode('a', { zone: 'us-west-2a' }), simNode('b', { zone: 'us-west-2b' })] });
    expect(where(r, p)).toEqual({ node: 'b' });
  });

  it('pools are tried by weight, highest first', () => {
    const heavy = { ...DEFAULT_POOL, name: 'heavy', weight: 10, labels: { team: 'x' } };
    const p = pod('p', { cpu: '1' });
    const r = run({ pods: [p], nodePools: [DEFAULT_POOL, heavy] });
    expect(r.newNodeClaims[0].nodePool).toBe('heavy');
  });

  it('a pod requiring a custom label only its pool defines goes to that pool', () => {
    const team = { ...DEFAULT_POOL, name: 'team', labels: { team: 'x' } };
    const p = pod('p', { cpu: '1', nodeSelector: { team: 'x' } });
    const r = run({ pods: [p], nodePools: [DEFAULT_POOL, team] });
    expect(r.newNodeClaims[0].nodePool).toBe('team');
    const q = pod('q', { cpu: '1', nodeSelector: { team: 'y' } });
    expect(run({ pods: [q] }).errors.get(q)).toBe(
      'incompatible with nodepool "default", label "team" does not have known values',
    );
  });

  it('arm64-only requirement picks m6g when the pool allows it', () => {
    const any = { ...DEFAULT_POOL, requirements: [] };
    const p = pod('p', { cpu: '1', nodeSelector: { 'kubernetes.io/arch': 'arm64' } });
    const r = run({ pods: [p], nodePools: [any] });
    expect(r.newNodeClaims[0].instanceTypes.map((t) => t.name)).toEqual(['m6g.large']);
  });
});

describe('simulateScheduling: taints', () => {
  const tainted = { ...DEFAULT_POOL, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] };

  it('an existing node’s taint without toleration is refused', () => {
    const p = pod('p', { cpu: '1' });
    const r = run({
      pods: [p],
      nodes: [simNode('n1', { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] })],
      nodePools: [],
    });
    expect(r.errors.get(p)).toBe('no nodepools found');
  });

  it('a pool taint without toleration is reported as Karpenter does', () => {
    const p = pod('p', { cpu: '1' });
    const r = run({ pods: [p], nodePools: [tainted] });
    expect(r.errors.get(p)).toBe(
      'incompatible with nodepool "default", did not tolerate taint dedicated=gpu:NoSchedule',
    );
    const ok = pod('ok', {
      cpu: '1',
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }],
    });
    expect(where(run({ pods: [ok], nodePools: [tainted] }), ok)).toEqual({ newNodeClaim: 0 });
  });

  it('errors from several pools are joined', () => {
    const p = pod('p', { cpu: '100' });
    const r = run({ pods: [p], nodePools: [tainted, { ...DEFAULT_POOL, name: 'other' }] });
    expect(r.errors.get(p)).toMatch(
      seq(
        /^incompatible with nodepool "default", did not tolerate .*; /,
        /incompatible with nodepool "other", no instance type satisfied resources \{"cpu":"100","pods":"1"\}/,
      ),
    );
  });
});

describe('simulateScheduling: topology', () => {
  it('anti-affinity spreads replicas to distinct hosts, opening claims for the rest', () => {
    const affinity = {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { topologyKey: HOST, labelSelector: { matchLabels: { app: 'web' } } },
        ],
      },
    };
    const pods = [1, 2, 3, 4].map((i) => pod(`w${i}`, { cpu: '100m', labels: { app: 'web' }, affinity }));
    const r = run({ pods, nodes: [simNode('n1'), simNode('n2')] });
    expect(pods.map((p) => where(r, p))).toEqual([
      { node: 'n1' },
      { node: 'n2' },
      { newNodeClaim: 0 },
      { newNodeClaim: 1 },
    ]);
    expect(r.newNodeClaims).toHaveLength(2);
  });

  it('topology spread with maxSkew 1 over 3 zones places 2 per zone', () => {
    const tsc = [
      {
        maxSkew: 1,
        topologyKey: ZONE,
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { app: 's' } },
      },
    ];
    const pods = [1, 2, 3, 4, 5, 6].map((i) =>
      pod(`s${i}`, { cpu: '100m', labels: { app: 's' }, topologySpreadConstraints: tsc }),
    );
    const nodes = ZONES.map((z, i) => simNode(`n${i}`, { zone: z }));
    const r = run({ pods, nodes });
    const perNode = new Map<string, number>();
    for (const p of pods) {
      const w = where(r, p) as { node: string };
      perNode.set(w.node, (perNode.get(w.node) ?? 0) + 1);
    }
    expect([...perNode.values()]).toEqual([2, 2, 2]);
  });

  it('topology spread opens a claim pinned to the empty zone when only two zones have nodes', () => {
    const tsc = [
      {
        maxSkew: 1,
        topologyKey: ZONE,
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { app: 's' } },
      },
    ];
    const pods = [1, 2, 3].map((i) =>
      pod(`s${i}`, { cpu: '100m', labels: { app: 's' }, topologySpreadConstraints: tsc }),
    );
    const r = run({ pods, nodes: [simNode('a', { zone: ZONES[0] }), simNode('b', { zone: ZONES[1] })] });
    expect(pods.map((p) => where(r, p))).toEqual([{ node: 'a' }, { node: 'b' }, { newNodeClaim: 0 }]);
    expect(r.newNodeClaims[0].requirements).toContainEqual({ key: ZONE, operator: 'In', values: [ZONES[2]] });
  });
});

describe('simulateScheduling: KARPENTER.md#scheduling-simulation rules', () => {
  it('a pod landing on an uninitialized node is an error', () => {
    const p = pod('p', { cpu: '1' });
    const r = run({ pods: [p], nodes: [simNode('n1', { initialized: false, nodeClaim: 'default-abc' })] });
    expect(r.errors.get(p)).toBe('would schedule against uninitialized nodeclaim/default-abc, node/n1');
    expect(r.placements.has(p)).toBe(false);
    expect(allNonPendingScheduled(r, [])).toBe(false);
    expect(allNonPendingScheduled(r, [p])).toBe(true);
  });

  it('pods from deleting nodes and pending pods are exempt from the uninitialized error', () => {
    const p = pod('p', { cpu: '1' });
    const r = run({
      pods: [p],
      nodes: [simNode('n1', { initialized: false, nodeClaim: 'nc' })],
      exemptFromDestinationRule: new Set([p]),
    });
    expect(where(r, p)).toEqual({ node: 'n1' });
  });

  it('consolidateAfter destination rule: blocked nodes refuse candidates’ pods only in consolidation', () => {
    const p = pod('p', { cpu: '1' });
    const nodes = [simNode('young', { consolidateAfterBlocked: true })];
    expect(where(run({ pods: [p], nodes }), p)).toEqual({ node: 'young' });
    expect(where(run({ pods: [p], nodes, consolidation: true }), p)).toEqual({ newNodeClaim: 0 });
    expect(where(run({ pods: [p], nodes, consolidation: true, exemptFromDestinationRule: new Set([p]) }), p)).toEqual({
      node: 'young',
    });
  });

  it('the disrupted taint keeps pods off a node', () => {
    const p = pod('p', { cpu: '1', tolerations: [{ operator: 'Exists' }] });
    const r = run({
      pods: [p],
      nodes: [simNode('n1', { taints: [{ key: 'karpenter.sh/disrupted', effect: 'NoSchedule' }] })],
    });
    expect(where(r, p)).toEqual({ newNodeClaim: 0 });
  });

  it('allNonPendingScheduled ignores errors on pending pods', () => {
    const pending = pod('pending', { cpu: '1000' });
    const moved = pod('moved', { cpu: '1' });
    const r = run({ pods: [pending, moved] });
    expect(r.errors.has(pending)).toBe(true);
    expect(allNonPendingScheduled(r, new Set([pending]))).toBe(true);
  });

  it('truncates replacement types to the cheapest 600', () => {
    const many = Array.from({ length: 700 }, (_, i) => ({
      ...TYPES[0],
      name: `t${String(i).padStart(3, '0')}.large`,
      offerings: TYPES[0].offerings.map((o) => ({ ...o, price: 1 + i / 1000 })),
    }));
    const r = run({ pods: [pod('p', { cpu: '1' })], instanceTypes: many });
    expect(r.newNodeClaims[0].instanceTypes).toHaveLength(600);
    expect(r.newNodeClaims[0].instanceTypes[599].name).toBe('t599.large');
  });
});

describe('simulateScheduling: determinism', () => {
  it('gives the same result for the same input, whatever the node order', () => {
    const mk = () => ({
      pods: [1, 2, 3, 4, 5].map((i) => pod(`p${i}`, { cpu: `${i * 300}m`, memory: `${i}Gi` })),
      nodes: [simNode('b', { cpu: '1' }), simNode('a', { cpu: '2' })],
    });
    const shape = (input: ReturnType<typeof mk>, r: SchedulingResult) => ({
      placements: input.pods.map((p) => where(r, p)),
      claims: r.newNodeClaims.map((c) => ({
        pods: c.pods.map((p) => p.metadata.name),
        types: c.instanceTypes.map((t) => t.name),
      })),
    });
    const i1 = mk();
    const i2 = mk();
    i2.nodes.reverse();
    expect(shape(i1, run(i1))).toEqual(shape(i2, run(i2)));
    expect(shape(i1, run(i1))).toEqual(shape(i1, run(i1)));
  });
});
