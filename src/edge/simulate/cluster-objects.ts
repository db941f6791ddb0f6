// SPDX-License-Identifier: Apache-2.0
// The objects a simulation starts from: everything the snapshot loader keeps, plus the
// ReplicaSets (apps/v1) in the same file, so evicted pods are recreated as they would be.
import { parseSnapshotText } from '../../core/cluster/snapshot-parse.js';
import { loadSnapshot, type LoadError } from '../../core/cluster/snapshot.js';
import type { KubeObject } from '../../core/cluster/types.js';

function flatten(doc: unknown, out: KubeObject[]): void {
  if (Array.isArray(doc)) for (const d of doc) flatten(d, out);
  else if (doc && typeof doc === 'object') {
    const o = doc as KubeObject & { items?: unknown[] };
    if (typeof o.kind === 'string' && o.kind.endsWith('List') && Array.isArray(o.items)) flatten(o.items, out);
    else out.push(o);
  }
}

export function simulationObjects(text: string, fileName: string): { objects: KubeObject[]; errors: LoadError[] } {
  const { snapshot, errors } = loadSnapshot(text, fileName);
  if (!snapshot || errors.length) return { objects: [], errors };
  const all: KubeObject[] = [];
  flatten(parseSnapshotText(text).documents, all);
  const replicaSets = all.filter((o) => o.kind === 'ReplicaSet' && o.apiVersion === 'apps/v1');
  return {
    objects: [...snapshot.nodePools, ...snapshot.nodeClaims, ...snapshot.nodes, ...snapshot.pods, ...snapshot.pdbs, ...snapshot.configMaps, ...replicaSets],
    errors: [],
  };
}
