// SPDX-License-Identifier: Apache-2.0
// `kpol push`: policy files into one ConfigMap, checked first against everything the controller
// would load beside them (the namespace's other policy ConfigMaps), then written with the
// resourceVersion that was read, so a concurrent change is a conflict rather than lost.
import { hasErrors } from '../../grammar/diagnostic.js';
import { isApiError, type ClusterClient } from '../cluster/client.js';
import { LABEL_POLICY_CONFIGMAP, type ConfigMap } from '../cluster/types.js';
import { loadPolicies, policySourcesFromConfigMaps, type LoadedFile, type LoadedPolicies, type PolicySource } from './load.js';

export interface PushFile extends PolicySource {
  /** The ConfigMap key (the file's base name, ending in `.kpol`). */
  key: string;
}

export interface PushTarget {
  namespace: string;
  name: string;
}

export type PushResult =
  | { kind: 'refused'; loaded: LoadedPolicies }
  | { kind: 'conflict'; message: string }
  | { kind: 'written'; configMap: ConfigMap; created: boolean; loaded: LoadedPolicies };

const errorLines = (f: LoadedFile) => f.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code}:${d.range.start.offset}:${d.message}`);

/**
 * Checks `files` as the new content of `target` together with the other policy ConfigMaps of
 * the namespace. Refused when a pushed file has an error, or when the push introduces an error
 * into another ConfigMap (a duplicate policy name or NodePool); errors another ConfigMap has
 * anyway are not the push's to fix and do not block it.
 */
export function checkPush(files: readonly PushFile[], target: PushTarget, configMaps: readonly ConfigMap[], nowMs?: number): LoadedPolicies {
  const others = policySourcesFromConfigMaps(configMaps.filter((cm) => cm.metadata.name !== target.name && (cm.metadata.namespace ?? 'default') === target.namespace));
  const together = loadPolicies([...files, ...others], nowMs);
  if (together.ok) return together;
  const alone = new Map(loadPolicies(others, nowMs).files.map((f) => [f.fileName, new Set(errorLines(f))]));
  const blamed = together.files.map((f, i) => {
    if (i < files.length) return f;
    const before = alone.get(f.fileName) ?? new Set();
    return { ...f, diagnostics: f.diagnostics.filter((d) => d.severity !== 'error' || !before.has(`${d.code}:${d.range.start.offset}:${d.message}`)) };
  });
  return { ok: !blamed.some((f) => hasErrors(f.diagnostics)), policies: together.policies, files: blamed };
}

/** Validates, then creates or replaces the ConfigMap's `*.kpol` keys (other keys are kept). */
export async function pushPolicies(client: ClusterClient, files: readonly PushFile[], target: PushTarget, nowMs?: number): Promise<PushResult> {
  const all = await client.list<ConfigMap>('ConfigMap', target.namespace);
  const labelled = all.filter((cm) => cm.metadata.labels?.[LABEL_POLICY_CONFIGMAP] !== undefined);
  const loaded = checkPush(files, target, labelled, nowMs);
  if (!loaded.ok) return { kind: 'refused', loaded };
  const existing = all.find((cm) => cm.metadata.name === target.name);
  const kept = Object.fromEntries(Object.entries(existing?.data ?? {}).filter(([k]) => !k.endsWith('.kpol')));
  const data = { ...kept, ...Object.fromEntries(files.map((f) => [f.key, f.text])) };
  const labels = { ...existing?.metadata.labels, [LABEL_POLICY_CONFIGMAP]: 'true' };
  const where = `configmap/${target.namespace}/${target.name}`;
  try {
    if (!existing) {
      const created = await client.create<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: target.name, namespace: target.namespace, labels }, data });
      return { kind: 'written', configMap: created, created: true, loaded };
    }
    // The resourceVersion read above is the precondition: a change since then is a 409.
    const updated = await client.update<ConfigMap>({ ...existing, metadata: { ...existing.metadata, labels }, data });
    return { kind: 'written', configMap: updated, created: false, loaded };
  } catch (err) {
    if (isApiError(err, 409)) {
      return { kind: 'conflict', message: `${where} was changed by someone else while pushing (${err.message}); nothing was written, pull and push again` };
    }
    throw err;
  }
}
