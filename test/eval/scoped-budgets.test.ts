// SPDX-License-Identifier: Apache-2.0
// Cluster and selector budgets in `kpol eval` and `kpol explain` (issue 15), as tables over
// small clusters: what each scope counts, what it allows, which nodes it holds back and how the
// why-not names the statement, and that the decisions (the reconciler's own methods) respect it.
import { describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../src/core/cluster/snapshot.js';
import { indexCluster } from '../../src/core/cluster/state.js';
import type { KubeObject } from '../../src/core/cluster/types.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { explainNode, renderExplanation } from '../../src/core/eval/explain.js';
import { poolAllowedWithScopes } from '../../src/core/eval/budget-scopes.js';
import { renderText } from '../../src/core/eval/output.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { planDecisions } from '../../src/control/reconciler/plan.js';
import { makeNodeClaimAndNode, makeNodePool, makePod, toList } from '../support/cluster-builder.js';

const AT = Date.parse('2026-08-20T12:00:00Z'); // a Thursday

function index(objects: KubeObject[]) {
  const { snapshot, errors } = loadSnapshot(JSON.stringify(toList(objects)), 'snapshot.json');
  expect(errors).toEqual([]);
  return indexCluster(snapshot!);
}

function kpol(text: string) {
  const loaded = loadPolicies([{ fileName: 'fleet.kpol', text }]);
  expect(loaded.files.flatMap((f) => f.diagnostics.filter((d) => d.severity === 'error'))).toEqual([]);
  return loaded.policies;
}

/** `n` drifted nodes per pool, node i in zone a/b/c by index; `disrupting` names machines already deleting. */
function fleet(pools: Record<string, number>, disrupting: string[] = []): KubeObject[] {
  const out: KubeObject[] = [];
  for (const [pool, n] of Object.entries(pools)) {
    out.push(makeNodePool(pool));
    for (let i = 0; i < n; i++) {
      const { nodeClaim, node } = makeNodeClaimAndNode(pool, i, {
        drifted: true,
        deleting: disrupting.includes(`${pool}-${i}`),
      });
      out.push(nodeClaim, node, makePod(`${pool}-${i}`, node.metadata.name));
    }
  }
  return out;
}

const POLICIES = (extra: string) =>
  `${extra}\npolicy web for nodepool web {\n  consolidate never\n  budget 3 for Drifted\n}\n` +
  `policy batch for nodepool batch, ml {\n  consolidate never\n  budget 3 for Drifted\n` +
  `  budget 1 for Drifted on nodes where topology.kubernetes.io/zone = us-west-2a\n}\n`;

describe('scoped budgets in eval', () => {
  it.each([
    {
      name: 'a cluster budget over every pool of the file',
      cluster: 'cluster budget 2 for Drifted',
      disrupting: ['web-0'],
      scope: 'cluster:web:1',
      want: {
        nodePools: ['batch', 'ml', 'web'],
        nodes: 9,
        disrupting: 1,
        budgets: { Drifted: 2 },
        allowed: { Drifted: 1 },
      },
    },
    {
      name: 'a percentage of the scope rounds up (34% of 9 = 4)',
      cluster: 'cluster budget 34% for Drifted',
      disrupting: [],
      scope: 'cluster:web:1',
      want: { nodes: 9, budgets: { Drifted: 4 }, allowed: { Drifted: 4 } },
    },
    {
      name: 'a cluster budget naming pools counts only those',
      cluster: 'cluster budget 1 on nodepools web, ml',
      disrupting: ['batch-1'],
      scope: 'cluster:web:1',
      want: { nodePools: ['ml', 'web'], nodes: 6, disrupting: 0, budgets: { Drifted: 1, Empty: 1, Underutilized: 1 } },
    },
    {
      name: 'an inactive cluster budget is ignored (null = unlimited)',
      cluster: 'cluster budget 0 during "0 20 * * *" for 1h',
      disrupting: [],
      scope: 'cluster:web:1',
      want: { budgets: { Drifted: null }, allowed: { Drifted: null } },
    },
    {
      name: "a selector budget counts the matching nodes of its own policy's pools only",
      cluster: '',
      disrupting: ['ml-0', 'web-0'],
      scope: 'batch/s0',
      // batch-0 and ml-0 are in us-west-2a; web-0 is too, but web is not the policy's.
      want: { kind: 'nodes', nodePools: ['batch', 'ml'], nodes: 2, disrupting: 1, allowed: { Drifted: 0 } },
    },
  ])('$name', async ({ cluster, disrupting, scope, want }) => {
    const out = await new Evaluator().evaluate(
      index(fleet({ web: 3, batch: 3, ml: 3 }, disrupting)),
      kpol(POLICIES(cluster)),
      AT,
    );
    expect(out.scopes?.[scope]).toMatchObject(want);
  });

  it('a full scope holds its candidates back with a why-not naming the statement and file:line', async () => {
    const idx = index(fleet({ web: 2, batch: 2, ml: 2 }, ['web-0', 'batch-1']));
    const policies = kpol(POLICIES('cluster budget 2 for Drifted'));
    const out = await new Evaluator().evaluate(idx, policies, AT);
    const node = out.nodes[idx.nodeClaimsByName.get('ml-aaaa1')!.name]!;
    expect(node).toMatchObject({ candidate: true, reasons: ['Drifted'] });
    expect(node.scopeHolds).toEqual([
      {
        reason: 'Drifted',
        scope: 'cluster:web:1',
        message:
          'cluster budget 2 for Drifted (fleet.kpol:1) has no room for Drifted: 2 of 6 node(s) in its scope ' +
          'disrupting, budget 2',
      },
    ]);
    // Each pool alone would let a drift start; the cluster budget does not, so nothing is decided.
    expect(out.nodePools.ml!.allowed.Drifted).toBe(3);
    // The week calendars (editor, simulate) draw pools with the cluster budget folded in.
    expect(poolAllowedWithScopes(out, 'ml')).toMatchObject({ Drifted: 0, Empty: null });
    expect(planDecisions(idx, out, policies, AT)).toEqual([]);
    expect(renderText(out)).toContain('waiting for a cluster or selector budget:');
    const explained = await explainNode(
      idx,
      policies,
      'ml-aaaa1',
      AT,
      new Map([['fleet.kpol', POLICIES('cluster budget 2 for Drifted')]]),
    );
    const text = renderExplanation(explained!);
    expect(text).toContain('cluster budget 2 for Drifted (fleet.kpol:1): 6 nodes in scope, 2 disrupting');
    expect(text).toContain('held for Drifted: cluster budget 2 for Drifted (fleet.kpol:1) has no room');
    expect(text).toMatch(/✔ fired {2}cluster budget 2 for Drifted \(fleet\.kpol:1\) → scope-budget/);
  });

  it('with room, the decision takes a node its scopes admit: the selector slice is skipped when full', async () => {
    // batch-0 (us-west-2a) is disrupting, so the zone budget of 1 is full: ml-0, the oldest drifted
    // node in us-west-2a, must wait, and drift takes a node in another zone.
    const idx = index(fleet({ batch: 2, ml: 2 }, ['batch-0']));
    const policies = kpol(POLICIES(''));
    const out = await new Evaluator().evaluate(idx, policies, AT);
    const [decision] = planDecisions(idx, out, policies, AT);
    expect(decision).toMatchObject({ method: 'Drift', nodePools: [expect.any(String)] });
    const taken = decision!.nodes[0]!;
    expect(out.nodes[taken]!.budgetScopes ?? []).not.toContain('batch/s0');
    expect(out.nodes[idx.nodeClaimsByName.get('ml-aaaa0')!.name]!.scopeHolds?.[0]?.scope).toBe('batch/s0');
  });
});
