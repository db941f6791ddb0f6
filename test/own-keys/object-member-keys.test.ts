// SPDX-License-Identifier: Apache-2.0
// Issue 13, defect 3 beyond node labels: keys a user controls (label keys, topology keys,
// resource names, ConfigMap keys, fixture paths) named like Object members — `constructor`,
// `toString`, `valueOf`, `hasOwnProperty`, `__proto__` — are looked up as own keys only, so a
// key that is absent is absent, whatever Object.prototype holds. One describe per site class.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { loadSnapshot } from '../../src/core/cluster/snapshot.js';
import { indexCluster } from '../../src/core/cluster/state.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { makeNodeClaimAndNode, makeNodePool, toList } from '../support/cluster-builder.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import { matchesLabelSelector } from '../../src/core/cluster/labels.js';
import type { ConfigMap, NodePool, Pod } from '../../src/core/cluster/types.js';
import { requirementsDrifted } from '../../src/core/facts/node-facts.js';
import { match } from '../../src/edge/fixtures/match.js';
import type { PlacementTarget } from '../../src/world/scheduling/predicates.js';
import { nodeSelectorFits } from '../../src/world/scheduling/predicates.js';
import {
  addResources,
  fitsWithin,
  insufficientResource,
  podRequests,
  remaining,
} from '../../src/core/cluster/resources.js';
import { topologySpreadFits, topologyView } from '../../src/world/scheduling/topology.js';
import { PolicyConfigMaps } from '../../src/edge/server/policy-configmaps.js';

const MEMBERS = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'];
const LABELS = { 'topology.kubernetes.io/zone': 'us-west-2a' };

const pool = (key: string, operator: string): NodePool =>
  ({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'p' },
    spec: { template: { spec: { requirements: [{ key, operator: operator as 'DoesNotExist' }] } } },
  }) as NodePool;

const pod = (spec: Partial<Pod['spec']>): Pod =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'x', namespace: 'default', labels: { app: 'x' } },
    spec: { containers: [{ name: 'c' }], ...spec },
  }) as Pod;

const target = (name: string, labels: Record<string, string>): PlacementTarget => ({
  name,
  labels,
  taints: [],
  allocatable: { cpu: 4, pods: 10 },
  pods: [],
});

describe('labels: NodePool requirements, selectors, node selectors and topology keys', () => {
  it.each(MEMBERS)('a node without label %s is not drifted by its DoesNotExist', (key) => {
    expect(requirementsDrifted(LABELS, pool(key, 'DoesNotExist'))).toBe(false);
    expect(requirementsDrifted(LABELS, pool(key, 'Exists'))).toBe(true);
  });

  it.each(MEMBERS)('matchLabels %s matches only a label that is there', (key) => {
    expect(matchesLabelSelector(LABELS, { matchExpressions: [{ key, operator: 'Exists' }] })).toBe(false);
    expect(matchesLabelSelector(LABELS, { matchExpressions: [{ key, operator: 'DoesNotExist' }] })).toBe(true);
  });

  it.each(MEMBERS)('a node selector on %s reports the label absent', (key) => {
    const why = nodeSelectorFits(pod({ nodeSelector: JSON.parse(`{${JSON.stringify(key)}: "x"}`) }), LABELS);
    expect(why).toContain('<absent>');
  });

  it.each(MEMBERS)('a spread constraint over topology key %s does not fit a node without that label', (key) => {
    const p = pod({
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: key,
          whenUnsatisfiable: 'DoNotSchedule',
          labelSelector: { matchLabels: { app: 'x' } },
        },
      ],
    });
    const t = target('n', LABELS);
    expect(topologySpreadFits(p, t, topologyView([t]))).toBe(`missing topology key ${key} for spread constraint`);
  });
});

describe('annotations', () => {
  // No site looks annotations up by a user's key (kpol reads fixed keys such as
  // karpenter.sh/do-not-disrupt); this guards the one way a user's key could still reach them:
  // a snapshot whose annotations hold `__proto__`, which must stay an own key, not a prototype.
  const title = 'an annotation named __proto__ in a %s snapshot does not make a pod do-not-disrupt';
  it.each(['json', 'yaml'])(title, async (format) => {
    const { parse } = await import('yaml');
    const { podDoNotDisrupt } = await import('../../src/core/cluster/state.js');
    const annotations = '{"__proto__": {"karpenter.sh/do-not-disrupt": "true"}}';
    const text = `{"metadata": {"name": "p", "annotations": ${annotations}}, "spec": {}}`;
    const p = (format === 'json' ? JSON.parse(text) : parse(text)) as Pod;
    expect(podDoNotDisrupt(p, 0)).toEqual({ active: false });
  });
});

describe('snapshot fields: resource names in requests and allocatable', () => {
  it.each(MEMBERS)('a request for %s does not fit a node that lacks it', (name) => {
    const asked = JSON.parse(`{"cpu": "1", ${JSON.stringify(name)}: "1"}`) as Record<string, string>;
    const requests = podRequests(pod({ containers: [{ name: 'c', resources: { requests: asked } }] }));
    expect(requests[name]).toBe(1);
    expect(fitsWithin(requests, { cpu: 4, pods: 10 })).toBe(false);
    expect(insufficientResource(requests, { cpu: 4, pods: 10 })).toEqual({ name, requested: 1, available: 0 });
    expect(addResources(requests, requests)[name]).toBe(2);
    expect(remaining({ cpu: 4 }, requests)[name]).toBe(-1);
  });
});

describe('snapshot fields: object names in the evaluation output', () => {
  it.each(MEMBERS)('a Node named %s gets its own entry, and no other name finds it', async (name) => {
    const { nodeClaim, node } = makeNodeClaimAndNode('default', 0);
    node.metadata.name = name;
    nodeClaim.status!.nodeName = name;
    const { snapshot } = loadSnapshot(JSON.stringify(toList([makeNodePool('default'), nodeClaim, node])), 'x.json');
    const out = await new Evaluator().evaluate(indexCluster(snapshot!), [], Date.UTC(2026, 8, 1));
    expect(Object.keys(out.nodes)).toEqual([name]);
    expect(Object.hasOwn(out.nodes, name)).toBe(true);
    expect((out.nodes as Record<string, unknown>)['no-such-node']).toBeUndefined();
    expect(JSON.stringify(out.nodes)).toContain(`${JSON.stringify(name)}:{"nodePool":"default"`);
  });
});

describe('ConfigMap data', () => {
  it.each(MEMBERS)('a key named %s that the ConfigMap lacks is not found', async (key) => {
    const cm: ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'team', namespace: 'kpol-system', labels: { 'kpol.dev/policy': 'true' } },
      data: { 'a.kpol': '' },
    };
    const store = new PolicyConfigMaps(new MemoryCluster(new FakeClock(0), [cm]), 'kpol-system');
    expect(await store.get('kpol-system', 'team', key)).toBeUndefined();
  });
});

describe('fixtures: expected paths', () => {
  const members = MEMBERS.filter((k) => k !== '__proto__');
  it.each(members)('an expected node %s that the evaluation lacks is missing', (key) => {
    const expected = JSON.parse(`{"nodes": {${JSON.stringify(key)}: {"candidate": false}}}`);
    const missing = { path: `nodes.${key}`, expected: { candidate: false }, actual: undefined };
    expect(match(expected, { nodes: {} })).toEqual([missing]);
  });

  it('an expected node __proto__ that the evaluation lacks is missing', () => {
    const expected = JSON.parse('{"nodes": {"__proto__": {"candidate": false}}}');
    const missing = { path: 'nodes.__proto__', expected: { candidate: false }, actual: undefined };
    expect(match(expected, { nodes: {} })).toEqual([missing]);
  });
});

describe('snapshot fields: NodePool names in a simulation', () => {
  it('a NodePool named constructor is counted as a number of nodes', async () => {
    const { simulationObjects } = await import('../../src/edge/simulate/cluster-objects.js');
    const { simulate } = await import('../../src/edge/simulate/simulated-run.js');
    const { readFileSync } = await import('node:fs');
    const path = new URL('../../rules/examples/clusters/business-hours.yaml', import.meta.url).pathname;
    // Every reference to NodePool `default` (name, uid, nodepool labels, owner references) renamed.
    const text = readFileSync(path, 'utf8').replace(/(name: |nodepool: |nodepool-)default\b/g, '$1constructor');
    const { objects, errors } = simulationObjects(text, path);
    expect(errors).toEqual([]);
    const from = Date.parse('2026-01-05T00:00:00Z');
    const t = await simulate({ objects, policies: [], fromMs: from, forMs: 2 * 60_000, stepMs: 60_000 });
    const counts = t.samples[0]!.nodesByPool;
    expect(typeof counts.constructor).toBe('number');
    expect(counts.constructor).toBeGreaterThan(0);
  });
});
