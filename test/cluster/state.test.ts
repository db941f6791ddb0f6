// SPDX-License-Identifier: Apache-2.0
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSnapshot, type Snapshot } from '../../src/core/cluster/snapshot.js';
import {
  indexCluster,
  isActive,
  isDaemonSetPod,
  isDeleting,
  isDrainable,
  isEvictable,
  isInitialized,
  isInstanceTerminating,
  isManaged,
  isMirrorPod,
  isReady,
  isReschedulable,
  isStatefulSetPod,
  nodeDoNotDisrupt,
  nodePdbBlock,
  nodePoolOf,
  pdbBlock,
  podDoNotDisrupt,
  toleratesDisruptedTaint,
} from '../../src/core/cluster/state.js';
import type { KubeObject, Pod } from '../../src/core/cluster/types.js';
import {
  makeNodeClaimAndNode,
  makeNodePool,
  makePdb,
  makePod,
  type PodOptions,
  toList,
} from '../support/cluster-builder.js';

const T0 = Date.parse('2026-08-20T12:00:00Z');
const START = '2026-08-20T11:55:00Z'; // 5 minutes before T0

function snap(objects: KubeObject[]): Snapshot {
  const { snapshot, errors } = loadSnapshot(JSON.stringify(toList(objects)), 't.json');
  expect(errors).toEqual([]);
  return snapshot!;
}
const dnd = (value: string | undefined, o: PodOptions = {}): Pod =>
  makePod('p-1', 'n', {
    ...o,
    ...(value === undefined ? {} : { annotations: { 'karpenter.sh/do-not-disrupt': value } }),
  });

describe('indexCluster', () => {
  it('joins NodeClaims and Nodes by providerID and binds pods by nodeName', () => {
    const a = makeNodeClaimAndNode('default', 0);
    const b = makeNodeClaimAndNode('default', 1);
    const orphanNode = { ...makeNodeClaimAndNode('x', 2).node, spec: { providerID: 'aws:///us-west-2a/i-unmanaged' } };
    const pod = makePod('web-1', a.node.metadata.name);
    const index = indexCluster(snap([makeNodePool('default'), a.nodeClaim, a.node, b.nodeClaim, pod, orphanNode]));
    const sa = index.nodesByName.get(a.node.metadata.name)!;
    expect(sa.nodeClaim?.metadata.name).toBe(a.nodeClaim.metadata.name);
    expect(sa.pods.map((p) => p.metadata.name)).toEqual(['web-1']);
    expect(isManaged(sa)).toBe(true);
    expect(nodePoolOf(sa)).toBe('default');
    const sb = index.nodeClaimsByName.get(b.nodeClaim.metadata.name)!;
    expect(sb.node).toBeUndefined();
    expect(isInitialized(sb)).toBe(false);
    expect(isManaged(index.nodesByName.get(orphanNode.metadata.name)!)).toBe(false);
    expect(index.stateNodes).toHaveLength(3);
    expect(index.nodePoolsByName.has('default')).toBe(true);
  });

  it.each([
    ['a Ready initialized node', {}, { initialized: true, ready: true, deleting: false, terminating: false }],
    ['uninitialized', { initialized: false }, { initialized: false, ready: true, deleting: false, terminating: false }],
    ['NotReady', { ready: 'False' as const }, { initialized: true, ready: false, deleting: false, terminating: false }],
    [
      'Ready missing',
      { ready: 'missing' as const },
      { initialized: true, ready: false, deleting: false, terminating: false },
    ],
    ['deleting NodeClaim', { deleting: true }, { initialized: true, ready: true, deleting: true, terminating: false }],
    [
      'InstanceTerminating',
      { instanceTerminating: true },
      { initialized: true, ready: true, deleting: false, terminating: true },
    ],
  ])('node predicates: %s', (_, options, expected) => {
    const m = makeNodeClaimAndNode('default', 0, options);
    const sn = indexCluster(snap([m.nodeClaim, m.node])).stateNodes[0];
    expect({
      initialized: isInitialized(sn),
      ready: isReady(sn),
      deleting: isDeleting(sn),
      terminating: isInstanceTerminating(sn),
    }).toEqual(expected);
  });

  it('a Node without NodeClaim is deleting by its own deletionTimestamp', () => {
    const { node } = makeNodeClaimAndNode('default', 0);
    node.metadata.deletionTimestamp = '2026-08-20T11:00:00Z';
    expect(isDeleting(indexCluster(snap([node])).stateNodes[0])).toBe(true);
  });

  it.each([
    ['true', true],
    ['false', false],
    ['True', false],
    ['5m', false],
  ])('node do-not-disrupt %j → %s', (value, expected) => {
    const m = makeNodeClaimAndNode('default', 0, { nodeAnnotations: { 'karpenter.sh/do-not-disrupt': value } });
    expect(nodeDoNotDisrupt(indexCluster(snap([m.nodeClaim, m.node])).stateNodes[0])).toBe(expected);
  });
});

describe('podDoNotDisrupt', () => {
  it.each([
    ['absent', undefined, {}, { active: false }],
    ['"true"', 'true', {}, { active: true }],
    ['5m before the boundary', '5m', { startTime: '2026-08-20T11:55:00.001Z' }, { active: true, until: T0 + 1 }],
    ['5m exactly at the boundary (strict <)', '5m', { startTime: START }, { active: false, until: T0 }],
    ['5m after the boundary', '5m', { startTime: '2026-08-20T11:50:00Z' }, { active: false, until: T0 - 300_000 }],
    ['1h30m with a nil startTime (fail safe)', '1h30m', { noStartTime: true }, { active: true }],
    [
      '"false"',
      'false',
      {},
      { active: false, invalid: 'failed to parse "false" as a duration: time: invalid duration "false"' },
    ],
    ['"-5m"', '-5m', {}, { active: false, invalid: 'duration "-5m" must be positive' }],
    ['"0s"', '0s', {}, { active: false, invalid: 'duration "0s" must be positive' }],
    [
      '"5"',
      '5',
      {},
      { active: false, invalid: 'failed to parse "5" as a duration: time: missing unit in duration "5"' },
    ],
    [
      '"5d"',
      '5d',
      {},
      { active: false, invalid: 'failed to parse "5d" as a duration: time: unknown unit "d" in duration "5d"' },
    ],
    [
      '"1.5h" (Go durations allow fractions)',
      '1.5h',
      { startTime: START },
      { active: true, until: Date.parse(START) + 5_400_000 },
    ],
  ])('%s', (_, value, o, expected) => {
    expect(podDoNotDisrupt(dnd(value, o), T0)).toEqual(expected);
  });
});

describe('pod predicates', () => {
  const running = makePod('web-1', 'n');
  const terminating = makePod('web-2', 'n', { deletionTimestamp: '2026-08-20T11:59:30Z' });
  const stuck = makePod('web-3', 'n', { deletionTimestamp: '2026-08-20T11:58:59Z' });
  const succeeded = makePod('job-1', 'n', { owner: 'Job', phase: 'Succeeded' });
  const daemon = makePod('ds-1', 'n', { owner: 'DaemonSet' });
  const mirror = makePod('etcd-n', 'n', { owner: 'Node' });
  const sts = makePod('db-0', 'n', { owner: 'StatefulSet', deletionTimestamp: '2026-08-20T11:59:30Z' });
  const tolerant = makePod('tol-1', 'n', { tolerations: [{ operator: 'Exists' }] });
  const protectedPod = dnd('true');

  it.each([
    // name, pod, active, reschedulable, evictable, drainable
    ['running ReplicaSet pod', running, true, true, true, true],
    ['terminating pod', terminating, false, false, false, true],
    ['stuck terminating pod (>1m)', stuck, false, false, false, false],
    ['succeeded pod', succeeded, false, false, false, true],
    ['DaemonSet pod', daemon, true, false, true, true],
    ['mirror pod', mirror, true, false, false, false],
    ['terminating StatefulSet pod', sts, false, true, false, true],
    ['pod tolerating everything', tolerant, true, true, false, false],
    ['do-not-disrupt pod', protectedPod, true, true, false, true],
  ])('%s', (_, pod, active, reschedulable, evictable, drainable) => {
    expect([isActive(pod), isReschedulable(pod), isEvictable(pod, T0), isDrainable(pod, T0)]).toEqual([
      active,
      reschedulable,
      evictable,
      drainable,
    ]);
  });

  it('ownership is matched on apiVersion and kind', () => {
    expect(isDaemonSetPod(daemon)).toBe(true);
    expect(isMirrorPod(mirror)).toBe(true);
    expect(isStatefulSetPod(sts)).toBe(true);
    const oldApi = makePod('x', 'n', { owner: 'DaemonSet' });
    oldApi.metadata.ownerReferences![0].apiVersion = 'extensions/v1beta1';
    expect(isDaemonSetPod(oldApi)).toBe(false);
  });

  it.each([
    [[{ operator: 'Exists' }], true],
    [[{ operator: 'Exists', effect: 'NoSchedule' }], true],
    [[{ operator: 'Exists', effect: 'NoExecute' }], false],
    [[{ key: 'karpenter.sh/disrupted', operator: 'Exists' }], true],
    [[{ key: 'karpenter.sh/disrupted', operator: 'Equal', value: '' }], true],
    [[{ key: 'karpenter.sh/disrupted' }], true],
    [[{ key: 'karpenter.sh/disrupted', operator: 'Equal', value: 'x' }], false],
    [[{ key: 'other', operator: 'Exists' }], false],
    [[], false],
  ] as const)('tolerations %j → %s', (tolerations, expected) => {
    expect(toleratesDisruptedTaint(makePod('p', 'n', { tolerations: tolerations as never }))).toBe(expected);
  });
});

describe('PDB blocking', () => {
  const { nodeClaim, node } = makeNodeClaimAndNode('default', 0);
  const nodeName = node.metadata.name;
  const web = makePod('web-1', nodeName, { labels: { app: 'web', tier: 'front' } });
  const index = (...objects: KubeObject[]) => indexCluster(snap([nodeClaim, node, ...objects]));

  it.each([
    ['no PDB', [], { kind: 'none' }],
    [
      'PDB with disruptions allowed',
      [makePdb('web', { matchLabels: { app: 'web' } }, { disruptionsAllowed: 1 })],
      { kind: 'none' },
    ],
    [
      'PDB at zero',
      [makePdb('web', { matchLabels: { app: 'web' } }, { disruptionsAllowed: 0 })],
      { kind: 'blocked', pdb: 'default/web' },
    ],
    [
      'PDB without status (= 0)',
      [makePdb('web', { matchLabels: { app: 'web' } })],
      { kind: 'blocked', pdb: 'default/web' },
    ],
    [
      'empty selector matches all in the namespace',
      [makePdb('all', {}, { disruptionsAllowed: 0 })],
      { kind: 'blocked', pdb: 'default/all' },
    ],
    ['missing selector matches nothing', [makePdb('none', undefined, { disruptionsAllowed: 0 })], { kind: 'none' }],
    ['other namespace', [makePdb('web', {}, { namespace: 'other', disruptionsAllowed: 0 })], { kind: 'none' }],
    [
      'expressions',
      [
        makePdb('e', {
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['front'] },
            { key: 'legacy', operator: 'DoesNotExist' },
          ],
        }),
      ],
      { kind: 'blocked', pdb: 'default/e' },
    ],
    [
      'NotIn excludes',
      [makePdb('e', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] })],
      { kind: 'none' },
    ],
    [
      'multiple PDBs',
      [
        makePdb('a', { matchLabels: { app: 'web' } }, { disruptionsAllowed: 5 }),
        makePdb('b', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, { disruptionsAllowed: 5 }),
      ],
      { kind: 'multiple', pdbs: ['default/a', 'default/b'] },
    ],
  ] as const)('%s', (_, pdbs, expected) => {
    expect(pdbBlock(index(web, ...(pdbs as unknown as KubeObject[])), web)).toEqual(expected);
  });

  it('AlwaysAllow lets an unready pod through, not a ready one', () => {
    const pdb = makePdb(
      'web',
      { matchLabels: { app: 'web' } },
      { disruptionsAllowed: 0, unhealthyPodEvictionPolicy: 'AlwaysAllow' },
    );
    const unready = makePod('web-2', nodeName, { labels: { app: 'web' }, ready: 'False' });
    const idx = index(web, unready, pdb);
    expect(pdbBlock(idx, unready)).toEqual({ kind: 'none' });
    expect(pdbBlock(idx, web)).toEqual({ kind: 'blocked', pdb: 'default/web' });
    const ifHealthy = makePdb(
      'web',
      { matchLabels: { app: 'web' } },
      { disruptionsAllowed: 0, unhealthyPodEvictionPolicy: 'IfHealthyBudget' },
    );
    expect(pdbBlock(index(unready, ifHealthy), unready)).toEqual({ kind: 'blocked', pdb: 'default/web' });
  });

  it('only evictable pods block a node', () => {
    const pdb = makePdb('all', {}, { disruptionsAllowed: 0 });
    const mirror = makePod('static', nodeName, { owner: 'Node' });
    const tol = makePod('tol', nodeName, { tolerations: [{ operator: 'Exists' }] });
    const dndPod = makePod('dnd', nodeName, { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    const idx = index(mirror, tol, dndPod, pdb);
    expect(nodePdbBlock(idx, idx.nodesByName.get(nodeName)!, T0)).toBeUndefined();
    const idx2 = index(mirror, web, pdb);
    expect(nodePdbBlock(idx2, idx2.nodesByName.get(nodeName)!, T0)).toMatchObject({
      kind: 'blocked',
      pdb: 'default/all',
      pod: { metadata: { name: 'web-1' } },
    });
  });
});

describe('docs example fixture', () => {
  it('has 19 managed, initialized, Ready nodes of pool default; the variant has one deleting', () => {
    for (const [file, deleting] of [
      ['docs-example.yaml', 0],
      ['docs-example-deleting.yaml', 1],
    ] as const) {
      const text = readFileSync(new URL(`../fixtures/snapshots/${file}`, import.meta.url), 'utf8');
      const index = indexCluster(loadSnapshot(text, file).snapshot!);
      const nodes = index.stateNodes.filter((sn) => isManaged(sn) && isInitialized(sn) && nodePoolOf(sn) === 'default');
      expect(nodes).toHaveLength(19);
      expect(nodes.filter(isDeleting)).toHaveLength(deleting);
      expect(nodes.every(isReady)).toBe(true);
    }
  });
});
