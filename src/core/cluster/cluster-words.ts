// SPDX-License-Identifier: Apache-2.0
// The names completion offers from a cluster (the browser editor's connected one, the snapshot
// given to `kpol lsp --cluster`): NodePool names, and label keys with their values from Nodes
// and Pods, and from what will carry labels: NodePool templates (labels and `In` requirements)
// and ReplicaSet pod templates. Each sorted.
import type { ClusterWords } from '../../../rules/completion.js';
import type { KubeObject, NodePool } from './types.js';

export type { ClusterWords };

export function clusterWords(objects: readonly KubeObject[]): ClusterWords {
  const labels = new Map<string, Set<string>>();
  const add = (l: Record<string, string> | undefined) => {
    for (const [k, v] of Object.entries(l ?? {})) {
      let s = labels.get(k);
      if (!s) labels.set(k, (s = new Set()));
      s.add(v);
    }
  };
  const nodePools: string[] = [];
  const namespaces = new Set<string>();
  for (const o of objects) {
    if (o.kind === 'NodePool') {
      nodePools.push(o.metadata.name);
      const t = (o as NodePool).spec.template;
      add(t?.metadata?.labels);
      const offered = (t?.spec?.requirements ?? []).filter((r) => r.operator === 'In');
      for (const r of offered) for (const v of r.values ?? []) add({ [r.key]: v });
    } else if (o.kind === 'ReplicaSet') {
      add(
        (o as { spec?: { template?: { metadata?: { labels?: Record<string, string> } } } }).spec?.template?.metadata
          ?.labels,
      );
    } else if (o.kind === 'Node' || o.kind === 'Pod') add(o.metadata.labels);
    if (o.kind === 'Pod' && o.metadata.namespace) namespaces.add(o.metadata.namespace);
  }
  return {
    nodePools: nodePools.sort(),
    labels: new Map([...labels].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, [...v].sort()])),
    namespaces: [...namespaces].sort(),
  };
}
