// SPDX-License-Identifier: Apache-2.0
// `kpol pull`: the `*.kpol` keys of the namespace's policy ConfigMaps, one file per key, with
// each ConfigMap's status annotation so the user sees which versions the controller refused.
import type { ClusterClient } from '../cluster/client.js';
import { LABEL_POLICY_CONFIGMAP, type ConfigMap } from '../cluster/types.js';
import { ANNOTATION_POLICY_STATUS } from './configmap-status.js';

export interface PulledFile {
  key: string;
  text: string;
  configMap: string;
}

export interface PullResult {
  files: PulledFile[];
  /**
   * Per ConfigMap (`configmap/<ns>/<name>`), its `kpol.dev/status` (undefined when the controller has not seen it yet).
   */
  statuses: { configMap: string; status: string | undefined }[];
  /** Keys found in more than one ConfigMap: they cannot share one folder. */
  clashes: { key: string; configMaps: string[] }[];
}

/** ConfigMap keys are `[-._a-zA-Z0-9]+`; `.` and `..` would escape the folder. */
export const isSafeKey = (key: string): boolean => /^[-._a-zA-Z0-9]+$/.test(key) && key !== '.' && key !== '..';

export async function pullPolicies(client: ClusterClient, namespace: string, name?: string): Promise<PullResult> {
  const all = await client.list<ConfigMap>('ConfigMap', namespace);
  const chosen = all
    .filter((cm) =>
      name === undefined ? cm.metadata.labels?.[LABEL_POLICY_CONFIGMAP] !== undefined : cm.metadata.name === name,
    )
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  const files: PulledFile[] = [];
  const owners = new Map<string, string[]>();
  for (const cm of chosen) {
    const where = `configmap/${namespace}/${cm.metadata.name}`;
    for (const key of Object.keys(cm.data ?? {}).sort()) {
      if (!key.endsWith('.kpol') || !isSafeKey(key)) continue;
      files.push({ key, text: cm.data![key], configMap: where });
      owners.set(key, [...(owners.get(key) ?? []), where]);
    }
  }
  return {
    files,
    statuses: chosen.map((cm) => ({
      configMap: `configmap/${namespace}/${cm.metadata.name}`,
      status: cm.metadata.annotations?.[ANNOTATION_POLICY_STATUS],
    })),
    clashes: [...owners].filter(([, o]) => o.length > 1).map(([key, configMaps]) => ({ key, configMaps })),
  };
}
