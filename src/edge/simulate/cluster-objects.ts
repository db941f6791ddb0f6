// SPDX-License-Identifier: Apache-2.0
// The objects a simulation starts from: everything the snapshot loader keeps, plus the
// ReplicaSets (apps/v1) in the same file, so evicted pods are recreated as they would be.
// ReplicaSets are shape-checked like the kinds the loader keeps (a template's pod spec is
// what the simulated pods will carry) and counted once when listed twice.
import { METADATA, REPLICASET_SHAPE } from '../../core/cluster/object-shapes.js';
import { shapeProblem } from '../../core/cluster/shape-check.js';
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

export interface SimulationObjects {
  objects: KubeObject[];
  errors: LoadError[];
  warnings: LoadError[];
}

export function simulationObjects(text: string, fileName: string): SimulationObjects {
  const { snapshot, errors, warnings } = loadSnapshot(text, fileName);
  if (!snapshot || errors.length) return { objects: [], errors, warnings };
  const all: KubeObject[] = [];
  flatten(parseSnapshotText(text).documents, all);
  const replicaSets = new Map<string, KubeObject>();
  for (const o of all) {
    if (o.kind !== 'ReplicaSet' || o.apiVersion !== 'apps/v1') continue;
    const meta = o.metadata as Partial<KubeObject['metadata']> | undefined;
    const ns = typeof meta?.namespace === 'string' ? meta.namespace + '/' : '';
    const id = `ReplicaSet/${ns}${String(meta?.name ?? '<unnamed>').slice(0, 253)}`;
    const problem = shapeProblem(o, { fields: { 'metadata!': METADATA, ...REPLICASET_SHAPE } }, '');
    if (problem) errors.push({ location: `${fileName}: ${id}`, message: problem });
    else {
      if (replicaSets.has(id)) {
        warnings.push({ location: `${fileName}: ${id}`, message: 'listed again; the later copy is used' });
      }
      replicaSets.set(id, o);
    }
  }
  if (errors.length) return { objects: [], errors, warnings };
  return {
    objects: [
      ...snapshot.nodePools,
      ...snapshot.nodeClaims,
      ...snapshot.nodes,
      ...snapshot.pods,
      ...snapshot.pdbs,
      ...snapshot.configMaps,
      ...replicaSets.values(),
    ],
    errors: [],
    warnings,
  };
}
