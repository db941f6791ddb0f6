// SPDX-License-Identifier: Apache-2.0
// `kpol eval` on Karpenter-format snapshots reproduces Karpenter's allowances and candidate
// decisions (KARPENTER.md#budget-counting–KARPENTER.md#budget-example, KARPENTER.md#candidates), and the same cases
// written as .kpol agree.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/core/cluster/snapshot.js';
import { indexCluster } from '../../src/core/cluster/state.js';
import type { KubeObject } from '../../src/core/cluster/types.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { makeNodeClaimAndNode, makeNodePool, makePdb, makePod, toList } from '../support/cluster-builder.js';

const here = (p: string) => new URL(p, import.meta.url).pathname;

function load(text: string) {
  const { snapshot, errors } = loadSnapshot(text, 'snapshot.yaml');
  expect(errors).toEqual([]);
  return indexCluster(snapshot!);
}
const fromObjects = (objects: KubeObject[]) => load(JSON.stringify(toList(objects)));

function kpol(text: string) {
  const loaded = loadPolicies([{ fileName: 'p.kpol', text }]);
  expect(loaded.files.flatMap((f) => f.diagnostics.filter((d) => d.severity === 'error'))).toEqual([]);
  return loaded.policies;
}

const DOCS_KPOL = `policy docs for nodepool default {
  consolidate when empty or underutilized after 1m
  budget 20% for Empty, Drifted
  budget 5
  budget 0 for Underutilized during "@daily" for 10m
}
`;

describe('the docs example (KARPENTER.md#budget-example): 19 nodes', () => {
  const index = load(readFileSync(here('../fixtures/snapshots/docs-example.yaml'), 'utf8'));
  it.each([
    ['2026-08-20T12:00:00Z', { Empty: 4, Drifted: 4, Underutilized: 5 }],
    ['2026-08-21T00:00:00Z', { Empty: 4, Drifted: 4, Underutilized: 0 }],
    ['2026-08-21T00:09:59.999Z', { Empty: 4, Drifted: 4, Underutilized: 0 }],
    ['2026-08-21T00:10:00Z', { Empty: 4, Drifted: 4, Underutilized: 5 }],
    ['2026-08-20T23:59:59Z', { Empty: 4, Drifted: 4, Underutilized: 5 }],
  ])('at %s from the NodePool spec and from .kpol', async (at, want) => {
    const fromSpec = await new Evaluator().evaluate(index, [], Date.parse(at));
    expect(fromSpec.nodePools.default).toMatchObject({
      nodes: 19,
      disrupting: 0,
      budgets: want,
      allowed: want,
      errors: [],
    });
    const fromKpol = await new Evaluator().evaluate(index, kpol(DOCS_KPOL), Date.parse(at));
    expect(fromKpol.nodePools.default.allowed).toEqual(fromSpec.nodePools.default.allowed);
    expect(fromKpol.nodePools.default.policy).toBe('docs');
  });
  it('a deleting node is subtracted from every reason', async () => {
    const del = load(readFileSync(here('../fixtures/snapshots/docs-example-deleting.yaml'), 'utf8'));
    const out = await new Evaluator().evaluate(del, [], Date.parse('2026-08-20T12:00:00Z'));
    expect(out.nodePools.default.disrupting).toBe(1);
    expect(out.nodePools.default.allowed).toEqual({ Empty: 3, Drifted: 3, Underutilized: 4 });
  });
});

describe('counting (KARPENTER.md#budget-counting)', () => {
  const at = Date.parse('2026-08-20T12:00:00Z');
  it('uninitialized and InstanceTerminating nodes count nowhere; NotReady ones consume budget', async () => {
    const a = makeNodeClaimAndNode('p', 0);
    const b = makeNodeClaimAndNode('p', 1, { initialized: false });
    const c = makeNodeClaimAndNode('p', 2, { ready: 'False' });
    const d = makeNodeClaimAndNode('p', 3, { instanceTerminating: true });
    const e = makeNodeClaimAndNode('p', 4, { ready: 'Unknown' });
    const out = await new Evaluator().evaluate(
      fromObjects([
        makeNodePool('p', { budgets: [{ nodes: '3' }] }),
        ...[a, b, c, d, e].flatMap((x) => [x.nodeClaim, x.node]),
      ]),
      [],
      at,
    );
    expect(out.nodePools.p).toMatchObject({
      nodes: 3,
      disrupting: 2,
      budgets: { Drifted: 3 },
      allowed: { Drifted: 1 },
    });
  });
  it('every NodePool appears, with zero nodes too; budgets omitted → 10%', async () => {
    const out = await new Evaluator().evaluate(fromObjects([makeNodePool('empty-pool')]), [], at);
    expect(out.nodePools['empty-pool']).toMatchObject({
      nodes: 0,
      budgets: { Empty: 0, Drifted: 0, Underutilized: 0 },
    });
  });
  it('one invalid schedule fails the whole NodePool closed', async () => {
    const np = makeNodePool('p', {
      budgets: [
        { nodes: '50%', reasons: ['Drifted'] },
        { nodes: '0', schedule: '0 9 * * 7', duration: '1h', reasons: ['Drifted'] },
      ],
    });
    const x = makeNodeClaimAndNode('p', 0);
    const out = await new Evaluator().evaluate(fromObjects([np, x.nodeClaim, x.node]), [], at);
    expect(out.nodePools.p.allowed).toEqual({ Empty: 0, Drifted: 0, Underutilized: 0 });
    expect(out.nodePools.p.errors.join(' ')).toMatch(/above maximum \(6\)/);
  });
});

describe('candidates (KARPENTER.md#candidates)', () => {
  const at = Date.parse('2026-08-20T12:00:00Z');
  const pool = makeNodePool('p', { consolidateAfter: '0s' });
  async function verdict(objects: KubeObject[], node: string) {
    const out = await new Evaluator().evaluate(fromObjects([pool, ...objects]), [], at);
    return out.nodes[node];
  }
  it('an empty node is an Empty candidate, a busy one an Underutilized candidate', async () => {
    const e = makeNodeClaimAndNode('p', 0);
    const b = makeNodeClaimAndNode('p', 1);
    const objs = [e.nodeClaim, e.node, b.nodeClaim, b.node, makePod('web-1', b.node.metadata.name)];
    expect(await verdict(objs, e.node.metadata.name)).toMatchObject({
      candidate: true,
      reasons: ['Empty'],
      blocked: [],
    });
    expect(await verdict(objs, b.node.metadata.name)).toMatchObject({ candidate: true, reasons: ['Underutilized'] });
  });
  it("a do-not-disrupt pod blocks consolidation with Karpenter's message", async () => {
    const n = makeNodeClaimAndNode('p', 0);
    const pod = makePod('batch-1', n.node.metadata.name, { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    const v = await verdict([n.nodeClaim, n.node, pod], n.node.metadata.name);
    expect(v.candidate).toBe(false);
    expect(v.blocked).toEqual([
      { code: 'DoNotDisruptPod', message: 'pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/batch-1)' },
    ]);
  });
  it(
    'a drifted node whose NodeClaim has a TGP stays a Drifted candidate despite do-not-disrupt,' +
      ' but is no consolidation candidate',
    async () => {
      const n = makeNodeClaimAndNode('p', 0, { drifted: true, terminationGracePeriod: '24h' });
      const pod = makePod('batch-1', n.node.metadata.name, { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
      const v = await verdict([n.nodeClaim, n.node, pod], n.node.metadata.name);
      expect(v.reasons).toEqual(['Drifted']);
      expect(v.blocked.map((b) => b.code)).toEqual(['DoNotDisruptPod']);
    },
  );
  it('without a TGP the same drifted node is blocked for Drifted too', async () => {
    const n = makeNodeClaimAndNode('p', 0, { drifted: true });
    const pod = makePod('batch-1', n.node.metadata.name, { annotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    expect((await verdict([n.nodeClaim, n.node, pod], n.node.metadata.name)).reasons).toEqual([]);
  });
  it('a PDB allowing no disruption blocks, with the PDB named', async () => {
    const n = makeNodeClaimAndNode('p', 0);
    const pod = makePod('web-1', n.node.metadata.name, { labels: { app: 'web' } });
    const pdb = makePdb('web', { matchLabels: { app: 'web' } }, { disruptionsAllowed: 0 });
    const v = await verdict([n.nodeClaim, n.node, pod, pdb], n.node.metadata.name);
    expect(v.blocked).toEqual([
      { code: 'PDBBlocked', message: 'pdb prevents pod evictions (PodDisruptionBudget=[default/web])' },
    ]);
  });
  it('node do-not-disrupt counts only for the exact value "true"', async () => {
    const yes = makeNodeClaimAndNode('p', 0, { nodeAnnotations: { 'karpenter.sh/do-not-disrupt': 'true' } });
    const no = makeNodeClaimAndNode('p', 1, { nodeAnnotations: { 'karpenter.sh/do-not-disrupt': 'True' } });
    const objs = [yes.nodeClaim, yes.node, no.nodeClaim, no.node];
    expect((await verdict(objs, yes.node.metadata.name)).blocked[0]?.code).toBe('DoNotDisruptNode');
    expect((await verdict(objs, no.node.metadata.name)).candidate).toBe(true);
  });
  it("Karpenter's first failing filter is listed first", async () => {
    const n = makeNodeClaimAndNode('p', 0, {
      initialized: false,
      nodeAnnotations: { 'karpenter.sh/do-not-disrupt': 'true' },
    });
    const v = await verdict([n.nodeClaim, n.node, makePod('w', n.node.metadata.name)], n.node.metadata.name);
    expect(v.blocked[0]).toEqual({ code: 'NotInitialized', message: "node isn't initialized" });
  });
});

describe('pod disruption-schedule annotations (KARPENTER.md#pod-disruption-schedule-proposal)', () => {
  const at = Date.parse('2026-08-19T12:00:00Z'); // a Wednesday, outside "0 2 * * 6"
  const n = makeNodeClaimAndNode('p', 0);
  const pod = makePod('trainer', n.node.metadata.name, {
    annotations: { 'karpenter.sh/disruption-schedule': '0 2 * * 6', 'karpenter.sh/disruption-schedule-duration': '4h' },
  });
  const index = fromObjects([makeNodePool('p', { consolidateAfter: '0s' }), n.nodeClaim, n.node, pod]);
  it('are ignored for a NodePool evaluated from its own spec, as Karpenter ignores them', async () => {
    const out = await new Evaluator().evaluate(index, [], at);
    expect(out.nodes[n.node.metadata.name].reasons).toEqual(['Underutilized']);
  });
  it('hold the node outside the window when a .kpol policy governs the pool', async () => {
    const policies = kpol('policy p for nodepool p {\n  consolidate when empty or underutilized after 0s\n}\n');
    const out = await new Evaluator().evaluate(index, policies, at);
    expect(out.nodes[n.node.metadata.name]).toMatchObject({
      candidate: false,
      blocked: [
        {
          code: 'PodDisruptionWindow',
          message: 'pod may not be disrupted now (Pod=default/trainer, Window=annotation)',
        },
      ],
    });
    const open = await new Evaluator().evaluate(index, policies, Date.parse('2026-08-22T03:00:00Z'));
    expect(open.nodes[n.node.metadata.name].reasons).toEqual(['Underutilized']);
  });
});
