// SPDX-License-Identifier: Apache-2.0
// Lean copies (src/core/cluster/lean.ts): the informer's projection keeps everything kpol reads
// (the evaluation of a cluster dressed as the API server returns it is the same from lean copies
// as from whole objects), the in-memory store drops nothing, and equal parts are one object.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { leanCopy, Sharing } from '../../src/core/cluster/lean.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import { emptySnapshot, type Snapshot } from '../../src/core/cluster/snapshot.js';
import { indexCluster } from '../../src/core/cluster/state.js';
import type { KubeObject, Pod } from '../../src/core/cluster/types.js';
import { Evaluator } from '../../src/core/eval/evaluate-cluster.js';
import { asListed } from '../bench/api-objects.js';
import { generateCluster } from '../bench/generate.js';
import { makePod } from '../support/cluster-builder.js';

const AT = Date.parse('2026-11-23T02:00:00Z');

/** A small generated cluster as a list returns it, plus pods exercising each pod predicate. */
function listed(): KubeObject[] {
  const objects = generateCluster({ pools: 3, nodes: 24, pods: 24 * 6 });
  const node = objects.find((o) => o.kind === 'Node')!.metadata.name;
  objects.push(
    makePod('ds-0', node, { owner: 'DaemonSet' }),
    makePod('mirror-0', node, { owner: 'Node' }),
    makePod('sts-0', node, { owner: 'StatefulSet', deletionTimestamp: '2026-11-23T01:00:00Z' }),
    makePod('tolerant-0', node, { tolerations: [{ key: 'karpenter.sh/disrupted', operator: 'Exists' }] }),
    makePod('dnd-for-0', node, { annotations: { 'karpenter.sh/do-not-disrupt': '30m' } }),
    makePod('unready-0', node, { ready: 'False' }),
  );
  return asListed(objects) as unknown as KubeObject[];
}

/** The evaluation as the controller's view makes it from informer lists (cluster-view.ts): no loader in between. */
async function evaluation(objects: readonly KubeObject[]) {
  const of = <T>(kind: string) => objects.filter((o) => o.kind === kind) as T[];
  const snapshot: Snapshot = {
    ...emptySnapshot(),
    nodePools: of('NodePool'),
    nodeClaims: of('NodeClaim'),
    nodes: of('Node'),
    pods: of('Pod'),
    pdbs: of('PodDisruptionBudget'),
  };
  return new Evaluator().evaluate(indexCluster(snapshot), [], AT);
}

describe('lean copies', () => {
  it('an informer cache of lean copies evaluates as the whole objects do', async () => {
    const whole = listed();
    const sharing = new Sharing();
    const lean = whole.map((o) => leanCopy(o, sharing));
    const pod = lean.find((o) => o.kind === 'Pod') as Pod & { spec: Record<string, unknown> };
    // What the projection is for: what kpol never reads is gone.
    expect((pod.metadata as unknown as Record<string, unknown>).managedFields).toBeUndefined();
    expect(pod.spec.volumes).toBeUndefined();
    expect(Object.keys(pod.spec.containers![0])).toEqual(['name', 'resources']);
    expect(JSON.stringify(lean).length).toBeLessThan(JSON.stringify(whole).length / 3);
    const [a, b] = [await evaluation(whole), await evaluation(lean)];
    expect(Object.keys(b.nodes).length).toBe(24);
    expect(b).toEqual(a);
  });

  it('kinds kpol writes back whole keep every field but managedFields', () => {
    const sharing = new Sharing();
    for (const o of listed().filter((x) => x.kind !== 'Pod' && x.kind !== 'Node')) {
      const { managedFields: _, ...metadata } = o.metadata as KubeObject['metadata'] & { managedFields?: unknown };
      expect(leanCopy(o, sharing)).toEqual({ ...o, metadata });
    }
  });

  it('equal parts are one frozen object; different ones stay apart', () => {
    const sharing = new Sharing();
    const pods = [
      makePod('a-1', 'n1', { labels: { app: 'a' } }),
      makePod('a-2', 'n2', { labels: { app: 'a' } }),
      makePod('b-1', 'n1', { labels: { app: 'b' } }),
    ].map((p) => leanCopy(p, sharing));
    expect(pods[1].metadata.labels).toBe(pods[0].metadata.labels);
    expect(Object.isFrozen(pods[0].metadata.labels)).toBe(true);
    expect(pods[2].metadata.labels).not.toBe(pods[0].metadata.labels);
    expect(pods[2].metadata.labels).toEqual({ app: 'b' });
    expect(pods[1].spec.containers).toBe(pods[0].spec.containers);
    expect(pods[1].metadata.name).toBe('a-2');
  });

  it('the in-memory server stores every field but managedFields and shares equal parts', async () => {
    const input = listed();
    const cluster = new MemoryCluster(new FakeClock(AT), input);
    const pods = await cluster.list<Pod>('Pod');
    const byName = new Map(input.map((o) => [`${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, o]));
    for (const p of pods) {
      const original = byName.get(`Pod/${p.metadata.namespace}/${p.metadata.name}`) as Pod;
      // The server's own: resourceVersion, and generation on create.
      const { resourceVersion: _r, generation: _g, ...meta } = p.metadata;
      const {
        resourceVersion: _o,
        managedFields: _m,
        ...originalMeta
      } = original.metadata as Pod['metadata'] & {
        managedFields?: unknown;
      };
      expect({ ...p, metadata: meta }).toEqual({ ...original, metadata: originalMeta });
    }
    const sameLabels = pods.filter((p) => p.metadata.labels?.app === pods[0].metadata.labels?.app);
    expect(sameLabels.length).toBeGreaterThan(1);
    for (const p of sameLabels)
      if (JSON.stringify(p.metadata.labels) === JSON.stringify(pods[0].metadata.labels))
        expect(p.metadata.labels).toBe(pods[0].metadata.labels);
  });
});
