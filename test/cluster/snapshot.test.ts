// SPDX-License-Identifier: Apache-2.0
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadSnapshot } from '../../src/core/cluster/snapshot.js';
import { makeNodeClaimAndNode, makeNodePool, makePdb, makePod, makePool, toList } from '../support/cluster-builder.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`../fixtures/snapshots/${name}`, import.meta.url), 'utf8');

const { nodeClaim, node } = makeNodeClaimAndNode('default', 0);
const pod = makePod('web-1', node.metadata.name);
const objects = [makeNodePool('default'), nodeClaim, node, pod, makePdb('web', { matchLabels: { app: 'web' } })];
const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default' },
  spec: {},
};

describe('loadSnapshot', () => {
  it.each([
    ['a YAML List', stringify(toList([...objects, deployment]))],
    ['multi-document YAML', [...objects, deployment].map((o) => stringify(o)).join('---\n') + '---\n'],
    ['a JSON array', JSON.stringify([...objects, deployment])],
    ['a JSON List', JSON.stringify(toList([...objects, deployment]))],
  ])('reads %s', (_, text) => {
    const { snapshot, errors } = loadSnapshot(text, 'snap.yaml');
    expect(errors).toEqual([]);
    expect(snapshot!.nodePools.map((o) => o.metadata.name)).toEqual(['default']);
    expect(snapshot!.nodeClaims).toHaveLength(1);
    expect(snapshot!.nodes).toHaveLength(1);
    expect(snapshot!.pods).toHaveLength(1);
    expect(snapshot!.pdbs).toHaveLength(1);
    expect(snapshot!.ignored).toBe(1);
  });

  it('reads a single object', () => {
    const { snapshot, errors } = loadSnapshot(stringify(node), 'n.yaml');
    expect(errors).toEqual([]);
    expect(snapshot!.nodes[0].metadata.name).toBe(node.metadata.name);
  });

  it('fills kind and apiVersion of typed-list items', () => {
    const text = JSON.stringify({
      apiVersion: 'v1',
      kind: 'PodList',
      items: [{ metadata: { name: 'a', namespace: 'x' }, spec: {} }],
    });
    const { snapshot, errors } = loadSnapshot(text, 'pods.json');
    expect(errors).toEqual([]);
    expect(snapshot!.pods[0].kind).toBe('Pod');
  });

  it('locates a YAML syntax error (1-based line:col) and returns no snapshot', () => {
    const { snapshot, errors } = loadSnapshot(
      'apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels: {x: 1\n',
      'bad.yaml',
    );
    expect(snapshot).toBeUndefined();
    expect(errors[0].location).toMatch(/^bad\.yaml:\d+:\d+$/);
  });

  it('locates a JSON syntax error through the YAML parser', () => {
    const { errors } = loadSnapshot('{\n  "kind": "Node",\n  "metadata": {"name": }\n}', 'bad.json');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toEqual({ location: 'bad.json:3:24', message: 'expected a value, unexpected `}` in JSON' });
  });

  it('rejects a wrong apiVersion for a known kind', () => {
    const old = { ...makeNodePool('old'), apiVersion: 'karpenter.sh/v1beta1' };
    const { snapshot, errors } = loadSnapshot(JSON.stringify([old, node]), 's.json');
    expect(errors).toEqual([
      {
        location: 's.json: NodePool/old',
        message:
          'apiVersion: `karpenter.sh/v1beta1` is not supported for NodePool, expected ' +
          '`karpenter.sh/v1`; upgrade to the Karpenter v1 APIs (v1.0 or later)',
      },
    ]);
    expect(snapshot!.nodePools).toEqual([]);
    expect(snapshot!.nodes).toHaveLength(1);
  });

  it('rejects an object without metadata.name', () => {
    const { errors } = loadSnapshot(
      JSON.stringify([{ apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'team-a' }, spec: {} }]),
      's.json',
    );
    expect(errors).toEqual([
      { location: 's.json: Pod/team-a/<unnamed item 1>', message: 'metadata.name: is required' },
    ]);
  });

  it('rejects non-string annotations and invalid PDB selectors', () => {
    const p = makePod('p', 'n', { annotations: { 'karpenter.sh/do-not-disrupt': true as unknown as string } });
    const pdb = makePdb('bad', { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] });
    const { errors } = loadSnapshot(JSON.stringify([p, pdb]), 's.json');
    expect(errors.map((e) => e.location)).toEqual(['s.json: Pod/default/p', 's.json: PodDisruptionBudget/default/bad']);
    expect(errors[0].message).toBe(
      'metadata.annotations["karpenter.sh/do-not-disrupt"]: must be a string, found boolean',
    );
    expect(errors[1].message).toMatch(/^spec\.selector: /);
  });

  it('loads the docs example fixture', () => {
    const { snapshot, errors } = loadSnapshot(fixture('docs-example.yaml'), 'docs-example.yaml');
    expect(errors).toEqual([]);
    expect(snapshot!.nodePools).toHaveLength(1);
    expect(snapshot!.nodes).toHaveLength(19);
    expect(snapshot!.nodeClaims).toHaveLength(19);
  });

  it('loads 5,000 nodes and 150,000 pods of JSON (timing: npm run bench)', () => {
    const text = JSON.stringify(toList([makeNodePool('big'), ...makePool('big', 5000, 30)]));
    const { snapshot, errors } = loadSnapshot(text, 'big.json');
    expect(errors).toEqual([]);
    expect(snapshot!.pods).toHaveLength(150_000);
  });
});
