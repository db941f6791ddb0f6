// SPDX-License-Identifier: Apache-2.0
// `budget … per reason` (independent reason buckets, rules/README.md §3.6 and §4.3) and
// `pods … never REASONS` (pod protection, §3.9) through the real checker and evaluator: the
// disrupting nodes' reasons come from the NodeClaim's DisruptionReason condition or the command
// in flight (KARPENTER.md#disruption-reason), and an unknown reason counts against every bucket.
import { describe, expect, it } from 'vitest';
import { indexCluster } from '../../src/core/cluster/state.js';
import { loadSnapshot } from '../../src/core/cluster/snapshot.js';
import type { KubeObject } from '../../src/core/cluster/types.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { explainNode, renderExplanation } from '../../src/core/eval/explain.js';
import { NO_DISRUPTION_STATE, type DisruptionState } from '../../src/core/facts/node-facts.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import type { Reason } from '../../rules/model.js';
import { makeNodeClaimAndNode, makeNodePool, makePod, SNAPSHOT_TIME, toList } from '../support/cluster-builder.js';

const AT = Date.parse(SNAPSHOT_TIME);

/** A pool of 10 nodes; `disrupting` lists the reason of each deleting node (`?` = no DisruptionReason). */
function cluster(disrupting: readonly (Reason | '?')[], pods: KubeObject[] = []) {
  const objects: KubeObject[] = [makeNodePool('web')];
  for (let i = 0; i < 10; i++) {
    const reason = disrupting[i];
    const { nodeClaim, node } = makeNodeClaimAndNode('web', i, { deleting: reason !== undefined, drifted: i >= 6 });
    if (reason !== undefined && reason !== '?')
      nodeClaim.status!.conditions!.push({ type: 'DisruptionReason', status: 'True', reason });
    objects.push(nodeClaim, node, makePod(`app-${i}`, node.metadata.name, { labels: { app: 'web' } }));
  }
  const { snapshot } = loadSnapshot(JSON.stringify(toList([...objects, ...pods])), 'cluster.json');
  return indexCluster(snapshot!);
}

function policies(body: string) {
  const loaded = loadPolicies([{ fileName: 'p.kpol', text: `policy p for nodepool web {\n${body}\n}\n` }]);
  expect(loaded.files.flatMap((f) => f.diagnostics.filter((d) => d.severity === 'error'))).toEqual([]);
  return loaded.policies;
}

async function pool(body: string, disrupting: readonly (Reason | '?')[], state: DisruptionState = NO_DISRUPTION_STATE) {
  const out = await new Evaluator().evaluate(cluster(disrupting), policies(body), AT, state);
  return out.nodePools.web!;
}

describe('per reason buckets: allowed[reason] = min over budgets of value − what that budget counts', () => {
  it.each([
    // body, disrupting reasons, Drifted, Underutilized, Empty
    ['budget 2 for Drifted', ['Underutilized', 'Underutilized'], 0, null, null],
    ['budget 2 for Drifted per reason', ['Underutilized', 'Underutilized'], 2, null, null],
    ['budget 2 for Drifted per reason', ['Drifted', 'Underutilized'], 1, null, null],
    ['budget 2 for Drifted per reason', ['Drifted', 'Drifted', 'Underutilized'], 0, null, null],
    // unknown (no DisruptionReason: a manual delete, a NotReady node) counts against every bucket
    ['budget 2 for Drifted per reason', ['?'], 1, null, null],
    ['budget 2 for Drifted per reason', ['?', 'Drifted', 'Empty'], 0, null, null],
    // no `for`: every reason is its own bucket
    ['budget 2 per reason', ['Drifted', 'Drifted'], 0, 2, 2],
    ['budget 2 per reason', ['Empty', 'Underutilized'], 2, 1, 1],
    // the shared budget still caps the pool; the smaller remainder binds
    ['budget 2 for Drifted per reason\nbudget 4', ['Underutilized', 'Underutilized'], 2, 2, 2],
    ['budget 2 for Drifted per reason\nbudget 4', ['Underutilized', 'Underutilized', 'Underutilized'], 1, 1, 1],
    // percentages: 20% of 10 = 2 per bucket
    ['budget 20% for Drifted, Underutilized per reason', ['Underutilized'], 2, 1, null],
  ] as const)(
    '%j with %j disrupting → Drifted %s, Underutilized %s, Empty %s',
    async (body, d, drifted, under, empty) => {
      const p = await pool(body, d);
      expect(p.disrupting).toBe(d.length);
      expect(p.allowed).toMatchObject({ Drifted: drifted, Underutilized: under, Empty: empty });
    },
  );

  it('reports the disrupting nodes by reason, and which reasons a bucket bound, only with buckets', async () => {
    const p = await pool('budget 2 for Drifted per reason\nbudget 3', ['Drifted', '?', 'Underutilized']);
    expect(p.disruptingByReason).toEqual({ Drifted: 1, Underutilized: 1, unknown: 1 });
    expect(p.boundByBucket).toEqual(['Drifted']); // 2 − 2 = 0 beats 3 − 3 = 0 by the smaller value
    expect(p.budgets).toEqual({ Empty: 3, Drifted: 2, Underutilized: 3 });
    const shared = await pool('budget 2 for Drifted\nbudget 3', ['Drifted']);
    expect(shared.disruptingByReason).toBeUndefined();
    expect(shared.boundByBucket).toBeUndefined();
  });

  it('a DisruptionReason kpol does not budget (an interruption) is unknown', async () => {
    const index = cluster([]);
    const nc = index.stateNodes.find((s) => s.nodeClaim?.metadata.name === 'web-aaaa0')!.nodeClaim!;
    const objects = [
      ...index.snapshot.nodePools,
      ...index.snapshot.nodes,
      ...index.snapshot.pods,
      ...index.snapshot.nodeClaims.filter((x) => x !== nc),
      {
        ...nc,
        metadata: { ...nc.metadata, deletionTimestamp: SNAPSHOT_TIME },
        status: {
          ...nc.status,
          conditions: [...nc.status!.conditions!, { type: 'DisruptionReason', status: 'True', reason: 'Interrupted' }],
        },
      },
    ] as KubeObject[];
    const { snapshot } = loadSnapshot(JSON.stringify(toList(objects)), 'c.json');
    const out = await new Evaluator().evaluate(
      indexCluster(snapshot!),
      policies('budget 1 for Drifted per reason'),
      AT,
    );
    expect(out.nodePools.web!.disruptingByReason).toEqual({ unknown: 1 });
    expect(out.nodePools.web!.allowed.Drifted).toBe(0);
  });

  it("the command in flight names the reason before the NodeClaim's condition is seen", async () => {
    const index = cluster([]);
    const id = index.stateNodes[0]!.providerID!;
    const state: DisruptionState = {
      ...NO_DISRUPTION_STATE,
      marked: new Set([id]),
      queued: new Set([id]),
      reasons: new Map([[id, 'Underutilized' as const]]),
    };
    const out = await new Evaluator().evaluate(index, policies('budget 1 for Drifted per reason'), AT, state);
    expect(out.nodePools.web!.disruptingByReason).toEqual({ Underutilized: 1 });
    expect(out.nodePools.web!.allowed.Drifted).toBe(1);
    // without the reason the same mark is unknown: fail closed
    const blind = await new Evaluator().evaluate(index, policies('budget 1 for Drifted per reason'), AT, {
      ...state,
      reasons: new Map(),
    });
    expect(blind.nodePools.web!.allowed.Drifted).toBe(0);
  });

  it('explain says what a bucket subtracted', async () => {
    const index = cluster(['Underutilized', 'Underutilized', 'Drifted']);
    const e = await explainNode(index, policies('budget 2 for Drifted per reason\nbudget 5'), 'web-aaaa6', AT);
    const text = renderExplanation(e!);
    expect(text).toContain('disrupting by reason: Drifted 1, Underutilized 2');
    expect(text).toContain('Drifted: allowed 1 (budget 2, per reason: minus 1 disrupting for Drifted or unknown)');
    expect(text).toContain('Underutilized: allowed 2 (budget 5)');
  });
});

describe('pods … never REASONS: protection from the listed reasons only', () => {
  const dns = (node: string, name: string) =>
    makePod(name, node, { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } });

  it.each([
    // node index 7 is drifted; 2 is not
    ['never Underutilized', 7, ['Drifted'], ['PodDisruptionWindow']],
    ['never Underutilized', 2, [], ['PodDisruptionWindow']],
    ['never Drifted', 7, ['Underutilized'], ['PodDisruptionWindow']],
    ['never Drifted', 2, ['Underutilized'], []],
    ['never Underutilized, Drifted', 7, [], ['PodDisruptionWindow']],
  ] as const)('`pods … %s` on node %i → candidate for %j, blocked %j', async (form, i, reasons, blocked) => {
    const index = cluster([], []);
    const node = index.stateNodes[i]!.name;
    const withDns = cluster([], [dns(node, 'coredns-1')]);
    const out = await new Evaluator().evaluate(
      withDns,
      policies(`pods where k8s-app = kube-dns in namespace kube-system ${form}\nbudget 10`),
      AT,
    );
    expect(out.nodes[node]!.reasons).toEqual(reasons);
    expect(out.nodes[node]!.blocked.map((b) => b.code)).toEqual(blocked);
  });

  it('names the pod and the statement, and a termination grace period lifts it for drift', async () => {
    const node = cluster([]).stateNodes[7]!.name;
    const index = cluster([], [dns(node, 'coredns-1')]);
    const body = 'pods where k8s-app = kube-dns never Underutilized, Drifted\nbudget 10';
    const out = await new Evaluator().evaluate(index, policies(body), AT);
    expect(out.nodes[node]!.blocked[0]!.message).toBe(
      'pod may not be disrupted for Underutilized, Drifted (Pod=kube-system/coredns-1, Window=p.kpol:2)',
    );
    const tgp = await new Evaluator().evaluate(index, policies(`${body}\ntermination grace 1h`), AT);
    expect(tgp.nodes[node]!.reasons).toEqual(['Drifted']);
  });

  it('a pod that is not selected, or not active, protects nothing', async () => {
    const node = cluster([]).stateNodes[2]!.name;
    const other = makePod('web-x', node, { namespace: 'default', labels: { 'k8s-app': 'kube-dns' } });
    const done = makePod('coredns-old', node, {
      namespace: 'kube-system',
      labels: { 'k8s-app': 'kube-dns' },
      phase: 'Succeeded',
    });
    const out = await new Evaluator().evaluate(
      cluster([], [other, done]),
      policies('pods where k8s-app = kube-dns in namespace kube-system never Underutilized\nbudget 10'),
      AT,
    );
    expect(out.nodes[node]!.reasons).toEqual(['Underutilized']);
  });
});
