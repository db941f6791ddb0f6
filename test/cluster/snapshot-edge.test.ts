// SPDX-License-Identifier: Apache-2.0
// The snapshot edge (issue 13, defects 4 and 6): nesting and alias limits, the shape check's
// finer points, and objects listed twice. The CLI-level reproducers are in
// test/cli/snapshot-errors.test.ts.
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseSnapshotText } from '../../src/core/cluster/snapshot-parse.js';
import { MAX_NESTING } from '../../src/core/cluster/snapshot-limits.js';
import { loadSnapshot } from '../../src/core/cluster/snapshot.js';
import { isDeleting, indexCluster } from '../../src/core/cluster/state.js';
import { simulationObjects } from '../../src/edge/simulate/cluster-objects.js';
import { makeNodeClaimAndNode, makeNodePool, makePod, toList } from '../support/cluster-builder.js';

const nested = (levels: number): string =>
  `{"kind":"List","apiVersion":"v1","items":[${'['.repeat(levels - 2)}${']'.repeat(levels - 2)}]}`;

describe('nesting limit', () => {
  it(`reads ${MAX_NESTING} levels and refuses ${MAX_NESTING + 1}, in JSON`, () => {
    expect(parseSnapshotText(nested(MAX_NESTING)).problems).toEqual([]);
    expect(parseSnapshotText(nested(MAX_NESTING + 1)).problems).toEqual([
      {
        line: 1,
        col: 43 + MAX_NESTING - 2,
        message: `values nest deeper than ${MAX_NESTING} levels (the most kpol reads)`,
      },
    ]);
  });

  it('ignores brackets inside JSON strings', () => {
    const text = JSON.stringify({
      kind: 'List',
      apiVersion: 'v1',
      items: [],
      note: '['.repeat(1000) + '\\"' + '{'.repeat(1000),
    });
    expect(parseSnapshotText(text).problems).toEqual([]);
  });

  it('refuses YAML block nesting past the limit (below where the YAML parser overflows)', () => {
    const text = `items:\n${Array.from({ length: MAX_NESTING + 1 }, (_, i) => `${'  '.repeat(i)}- `).join('\n')}x\n`;
    const { problems } = parseSnapshotText(text);
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toMatch(/nest deeper than 200 levels/);
    expect(
      parseSnapshotText(`items:\n${Array.from({ length: 50 }, (_, i) => `${'  '.repeat(i)}- `).join('\n')}x\n`)
        .problems,
    ).toEqual([]);
  });

  it('counts depth through aliases', () => {
    const half = MAX_NESTING / 2 + 1;
    const text = `a: &a ${'['.repeat(half)}${']'.repeat(half)}\nb: &b ${'['.repeat(half)}*a${']'.repeat(half)}\n`;
    expect(parseSnapshotText(text).problems[0]?.message).toMatch(/nest deeper than 200 levels/);
  });
});

describe('YAML aliases', () => {
  it('reads ordinary anchors and aliases', () => {
    const text = 'x: &labels {app: web}\nitems:\n- *labels\n- *labels\n';
    const { documents, problems } = parseSnapshotText(text);
    expect(problems).toEqual([]);
    expect(documents).toEqual([{ x: { app: 'web' }, items: [{ app: 'web' }, { app: 'web' }] }]);
  });

  it('refuses an alias inside the node it names (toJS would build a cycle)', () => {
    expect(parseSnapshotText('a: &a [1, *a]\n').problems).toEqual([
      { line: 1, col: 11, message: 'alias *a refers to a node that contains it' },
    ]);
  });

  it.each([
    ['in a map', 'items:\n- {[a]: 1}\n', 4],
    ['through an alias', 'a: &k [x]\nitems:\n- {*k : 1}\n', 4],
    ['in a flow sequence pair', 'items:\n- [[a]: 1]\n', 4],
    ['tagged as bytes', 'items:\n- {!!binary aGk=: 1}\n', 13, 'a map key must be a plain value (a string)'],
  ])('refuses a map key %s (yaml would stringify it with a process warning)', (_, text, col, message?: string) => {
    const { problems } = parseSnapshotText(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      col,
      message: message ?? 'a map key must be a plain value, found a collection',
    });
  });

  it('bounds expansion by size, not by alias count: one big anchor used 30 times', () => {
    const big = `big: &big [${Array.from({ length: 2000 }, (_, i) => i).join(', ')}]\n`;
    const text = `${big}uses: [${Array(30).fill('*big').join(', ')}]\n`;
    expect(parseSnapshotText(text).problems[0]?.message).toMatch(
      /YAML aliases expand this document to more than \d+ values/,
    );
  });
});

describe('shape check', () => {
  const { nodeClaim, node } = makeNodeClaimAndNode('default', 0);

  it('treats a null optional field as absent: `deletionTimestamp: null` is not deleting', () => {
    const n = { ...node, metadata: { ...node.metadata, deletionTimestamp: null } };
    const { snapshot, errors } = loadSnapshot(JSON.stringify([makeNodePool('default'), n]), 's.json');
    expect(errors).toEqual([]);
    expect(isDeleting(indexCluster(snapshot!).stateNodes[0])).toBe(false);
  });

  it.each([
    [
      'a time that is not RFC 3339',
      { metadata: { ...nodeClaim.metadata, creationTimestamp: 'yesterday' } },
      'metadata.creationTimestamp: "yesterday" is not an RFC 3339 time',
    ],
    [
      'an unparseable quantity',
      { status: { ...nodeClaim.status, capacity: { cpu: 'lots' } } },
      'status.capacity.cpu: "lots" is not a Kubernetes quantity',
    ],
    [
      'a fractional integer',
      { spec: { ...nodeClaim.spec, requirements: [{ key: 'k', operator: 'In', values: ['a'], minValues: 1.5 }] } },
      'spec.requirements[0].minValues: must be an integer, found 1.5',
    ],
    [
      'a missing required field',
      { status: { ...nodeClaim.status, conditions: [{ status: 'True' }] } },
      'status.conditions[0].type: is required',
    ],
  ])('%s', (_, change, message) => {
    const { errors } = loadSnapshot(JSON.stringify([{ ...nodeClaim, ...change }]), 's.json');
    expect(errors).toEqual([{ location: `s.json: NodeClaim/${nodeClaim.metadata.name}`, message }]);
  });

  it('cuts echoed values short', () => {
    const long = 'x'.repeat(100_000);
    const { errors } = loadSnapshot(
      JSON.stringify([
        {
          ...node,
          spec: { ...node.spec, taints: [{ key: 'k', effect: 'NoSchedule', value: 1 }] },
          status: { capacity: { [long]: long } },
        },
      ]),
      's.json',
    );
    expect(errors[0].message.length).toBeLessThan(200);
  });

  it('checks ReplicaSets a simulation reads', () => {
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: '3' },
    };
    const { errors } = simulationObjects(JSON.stringify([rs]), 's.json');
    expect(errors).toEqual([
      { location: 's.json: ReplicaSet/default/web', message: 'spec.replicas: must be an integer, found string' },
    ]);
  });
});

describe('an object listed twice', () => {
  it('is counted once, the later copy used, with a located warning', () => {
    const pod = makePod('web-1', 'n1');
    const later = { ...pod, metadata: { ...pod.metadata, labels: { v: 'later' } } };
    const other = { ...pod, metadata: { ...pod.metadata, namespace: 'other' } }; // same name, other namespace: distinct
    const { snapshot, errors, warnings } = loadSnapshot(stringify(toList([pod, other, later])), 's.yaml');
    expect(errors).toEqual([]);
    expect(snapshot!.pods.map((p) => `${p.metadata.namespace}/${p.metadata.labels?.v ?? '-'}`)).toEqual([
      'default/later',
      'other/-',
    ]);
    expect(warnings).toEqual([
      { location: 's.yaml: Pod/default/web-1', message: 'listed again (items 1 and 3); the later copy is used' },
    ]);
  });
});

describe('aliases the YAML composer lets through', () => {
  // The long fuzz run's one failure (seed 27): `*a` with no anchor before it is not in the
  // document's errors, and yaml throws only when the value is built — exit 70 before the fix.
  it('an alias with no anchor is a located error at its document, not a crash', () => {
    const parsed = parseSnapshotText('apiVersion: v1\nkind: List\nitems:\n  - *a\n');
    expect(parsed.documents).toEqual([]);
    expect(parsed.problems).toEqual([{ line: 1, col: 1, message: expect.stringContaining('Unresolved alias') }]);
  });
});
