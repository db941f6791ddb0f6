// SPDX-License-Identifier: Apache-2.0
// `kpol eval --cluster` on malformed snapshots (issue 13, defects 4 and 6): each case below
// ended in exit 70 "internal error" (or, for a listed-twice object, silently counted twice)
// before the snapshot was shape-checked at the edge. Now: a located error and exit 1.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { KubeObject, Node, NodePool, Pod } from '../../src/core/cluster/types.js';
import { makeNodePool, makePdb, makePod, makePool, toList } from '../support/cluster-builder.js';
import { runCli } from './run-cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'kpol-snap-'));
const file = (name: string, text: string): string => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const policy = file(
  'p.kpol',
  'policy p for nodepool default {\n  budget 1\n  window w blocks Drifted on nodes where ' +
    'constructor exists during "@daily" for 1h\n}\n',
);

function base(): KubeObject[] {
  return [
    makeNodePool('default'),
    ...makePool('default', 2, 1),
    makePdb('web', { matchLabels: { app: 'app-0' } }, { disruptionsAllowed: 1 }),
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'kpol-system' }, data: { a: 'b' } },
  ];
}
const first = <T extends KubeObject>(objects: KubeObject[], kind: string): T =>
  objects.find((o) => o.kind === kind) as T;
const evalFile = (path: string) =>
  runCli('eval', '--policy', policy, '--cluster', path, '--at', '2026-08-20T12:00:00Z', '--output', 'json');
const mutated = (name: string, change: (objects: KubeObject[]) => void): string => {
  const objects = base();
  change(objects);
  return file(name, JSON.stringify(toList(objects)));
};

describe('kpol eval --cluster with a malformed snapshot', () => {
  it('evaluates the unmutated snapshot (the baseline every case below breaks)', async () => {
    const r = await evalFile(mutated('ok.json', () => {}));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  const deep = 200_000;
  it.each([
    [
      '200,000 nested `[` (invalid JSON)',
      'open.json',
      '['.repeat(deep),
      /open\.json:1:201: values nest deeper than 200 levels/,
    ],
    [
      'deeply nested valid JSON',
      'deep.json',
      '['.repeat(deep) + ']'.repeat(deep),
      /deep\.json:1:201: values nest deeper than 200/,
    ],
    [
      'a deeply nested List',
      'list.json',
      `{"kind":"List","apiVersion":"v1","items":${'['.repeat(deep)}${']'.repeat(deep)}}`,
      /list\.json:1:\d+: values nest deeper than 200/,
    ],
    [
      'deeply nested YAML flow',
      'flow.yaml',
      `items: ${'['.repeat(deep)}${']'.repeat(deep)}\n`,
      /flow\.yaml:1:\d+: values nest deeper than 200/,
    ],
    [
      'a YAML alias bomb (billion laughs)',
      'bomb.yaml',
      [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        ...'bcdefghij'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefghij'[i]}`).join(', ')}]`),
      ].join('\n') + '\n',
      /bomb\.yaml:1:1: YAML aliases expand this document to more than \d+ values/,
    ],
  ])('%s: a located error, exit 1', async (_, name, text, expected) => {
    const r = await evalFile(file(name, text));
    expect(r.stderr).not.toMatch(/internal error|Maximum call stack/);
    expect(r.stderr).toMatch(expected);
    expect(r.code).toBe(1);
  });

  it.each<[string, (o: KubeObject[]) => void, string]>([
    [
      'Node status.conditions: "Ready"',
      (o) => void ((first<Node>(o, 'Node').status as Record<string, unknown>).conditions = 'Ready'),
      'Node/ip-10-124-0-1.us-west-2.compute.internal: status.conditions: must be a list, found string',
    ],
    [
      'ownerReferences as an object',
      (o) =>
        void ((first<Pod>(o, 'Pod').metadata as unknown as Record<string, unknown>).ownerReferences = {
          kind: 'ReplicaSet',
        }),
      'Pod/default/app-0-0: metadata.ownerReferences: must be a list, found an object',
    ],
    [
      'a non-string quantity',
      (o) => void ((first<Node>(o, 'Node').status!.allocatable as Record<string, unknown>).cpu = {}),
      'Node/ip-10-124-0-1.us-west-2.compute.internal: status.allocatable.cpu: must be a quantity ' +
        'such as "500m" or "2Gi", found an object',
    ],
    [
      'a null container',
      (o) => void ((first<Pod>(o, 'Pod').spec as Record<string, unknown>).containers = [null]),
      'Pod/default/app-0-0: spec.containers[0]: must not be null',
    ],
    [
      'an unknown requirement operator',
      (o) =>
        void ((
          first<NodePool>(o, 'NodePool').spec.template!.spec!.requirements![0] as unknown as Record<string, unknown>
        ).operator = 'Near'),
      'NodePool/default: spec.template.spec.requirements[0].operator: must be one of In, NotIn, ' +
        'Exists, DoesNotExist, Gt, Lt, found "Near"',
    ],
    [
      'non-string ConfigMap data',
      (o) => {
        const cm = first<KubeObject>(o, 'ConfigMap');
        cm.metadata.labels = { 'kpol.dev/policy': 'true' };
        cm.data = { 'a.kpol': 42 };
      },
      'ConfigMap/kpol-system/c: data["a.kpol"]: must be a string, found number',
    ],
  ])('%s: kind/namespace/name: field: problem, exit 1', async (_, change, expected) => {
    const path = mutated('bad.json', change);
    const r = await evalFile(path);
    expect(r.stderr).toBe(`kpol eval: ${path}: ${expected}\n`);
    expect(r.code).toBe(1);
  });

  it('says how many more errors there are past the first 20', async () => {
    const path = mutated('many.json', (o) => {
      for (let i = 0; i < 25; i++)
        o.push({ ...makePod(`p${i}`, undefined), spec: { containers: [null] } } as unknown as KubeObject);
    });
    const r = await evalFile(path);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(21);
    expect(r.stderr).toMatch(/… and 5 more errors\n$/);
  });
});

describe('kpol eval --cluster with an object listed twice', () => {
  it('warns where (counted once: test/cluster/snapshot-edge.test.ts)', async () => {
    const objects = base();
    const pod = first<Pod>(objects, 'Pod');
    const again = { ...pod, metadata: { ...pod.metadata, labels: { app: 'later' } } };
    const path = file('dup.yaml', stringify(toList([...objects, again])));
    const r = await evalFile(path);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      `warning: ${path}: Pod/default/app-0-0: listed again (items 4 and 10); the later copy is used\n`,
    );
  });
});
