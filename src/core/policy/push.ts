// SPDX-License-Identifier: Apache-2.0
// Writing policy files into a ConfigMap, for `kpol push` and the editor's save alike: checked
// first against everything the controller would load beside them, then written with a
// resourceVersion precondition, so a concurrent change is a conflict rather than lost.
import { hasErrors } from '../../../grammar/diagnostic.js';
import { isApiError, type ClusterClient } from '../cluster/client.js';
import { LABEL_POLICY_CONFIGMAP, type ConfigMap } from '../cluster/types.js';
import {
  loadPolicies,
  policySourcesFromConfigMaps,
  type LoadedFile,
  type LoadedPolicies,
  type PolicySource,
} from './load.js';
import { ownValue } from '../cluster/own-keys.js';

export interface PushFile extends PolicySource {
  /** The ConfigMap key (the file's base name, ending in `.kpol`). */
  key: string;
}

export interface PushTarget {
  namespace: string;
  name: string;
}

export interface PushOptions {
  /**
   * Keep the ConfigMap's `*.kpol` keys not written (the editor saves one key); by default they are replaced (`kpol
   * push`).
   */
  keepOtherKeys?: boolean;
  /**
   * What the writer's change was based on. Absent (`kpol push`): the version read here is the
   * precondition. Present: a ConfigMap that moved on since `resourceVersion` (absent: one whose
   * written keys exist at all) is a conflict, unless `texts` is given and every written key
   * still holds its text there (a version bump by an annotation is no conflict).
   */
  base?: { resourceVersion?: string; texts?: Readonly<Record<string, string>> };
  /**
   * What the files must be valid beside. Default: the namespace's policy ConfigMaps as stored
   * (what a remote `kpol push` can see). The controller's own loader passes what it enforces.
   */
  against?: readonly PolicySource[];
  nowMs?: number;
}

export type PushResult =
  | { kind: 'refused'; loaded: LoadedPolicies }
  | { kind: 'conflict'; message: string; current: ConfigMap | undefined }
  | { kind: 'written'; configMap: ConfigMap; created: boolean; loaded: LoadedPolicies };

const errorLines = (f: LoadedFile) =>
  f.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code}:${d.range.start.offset}:${d.message}`);

/**
 * Checks `files` beside `others`. Refused when a written file has an error, or when the write
 * introduces an error into another file (a duplicate policy name or NodePool); errors another
 * file has anyway are not the writer's to fix and do not block it.
 */
export function checkPush(
  files: readonly PolicySource[],
  others: readonly PolicySource[],
  nowMs?: number,
): LoadedPolicies {
  const together = loadPolicies([...files, ...others], nowMs);
  if (together.ok) return together;
  const alone = new Map(loadPolicies(others, nowMs).files.map((f) => [f.fileName, new Set(errorLines(f))]));
  const blamed = together.files.map((f, i) => {
    if (i < files.length) return f;
    const before = alone.get(f.fileName) ?? new Set();
    return {
      ...f,
      diagnostics: f.diagnostics.filter(
        (d) => d.severity !== 'error' || !before.has(`${d.code}:${d.range.start.offset}:${d.message}`),
      ),
    };
  });
  return { ok: !blamed.some((f) => hasErrors(f.diagnostics)), policies: together.policies, files: blamed };
}

/**
 * The stored policy sources the files are checked beside: every other labelled ConfigMap's, and the target's own
 * unwritten keys when they are kept.
 */
function storedOthers(
  configMaps: readonly ConfigMap[],
  files: readonly PushFile[],
  target: PushTarget,
  keepOtherKeys: boolean,
): PolicySource[] {
  const written = new Set(files.map((f) => f.key));
  const others = configMaps.flatMap((cm) => {
    if (cm.metadata.name !== target.name) return [cm];
    if (!keepOtherKeys) return [];
    return [{ ...cm, data: Object.fromEntries(Object.entries(cm.data ?? {}).filter(([k]) => !written.has(k))) }];
  });
  return policySourcesFromConfigMaps(others);
}

/** Why the ConfigMap as read is not the one the change was based on, or undefined. */
function moved(
  existing: ConfigMap | undefined,
  files: readonly PushFile[],
  base: NonNullable<PushOptions['base']>,
): string | undefined {
  if (base.resourceVersion === undefined) {
    const taken = files.find((f) => ownValue(existing?.data, f.key) !== undefined);
    return taken && `key ${taken.key} exists already`;
  }
  if (!existing) return 'it no longer exists';
  if (existing.metadata.resourceVersion === base.resourceVersion) return undefined;
  const texts = base.texts;
  if (texts && files.every((f) => ownValue(existing.data, f.key) === ownValue(texts, f.key))) return undefined;
  return `it is now at version ${existing.metadata.resourceVersion}`;
}

/** Validates, then creates or updates the ConfigMap (keys other than `*.kpol` are always kept). */
export async function pushPolicies(
  client: ClusterClient,
  files: readonly PushFile[],
  target: PushTarget,
  o: PushOptions = {},
): Promise<PushResult> {
  const all = await client.list<ConfigMap>('ConfigMap', target.namespace);
  const labelled = all.filter((cm) => cm.metadata.labels?.[LABEL_POLICY_CONFIGMAP] !== undefined);
  const existing = all.find((cm) => cm.metadata.name === target.name);
  const where = `configmap/${target.namespace}/${target.name}`;
  const loaded = checkPush(
    files,
    o.against ?? storedOthers(labelled, files, target, o.keepOtherKeys ?? false),
    o.nowMs,
  );
  if (!loaded.ok) return { kind: 'refused', loaded };
  const why = o.base && moved(existing, files, o.base);
  if (why)
    return {
      kind: 'conflict',
      message: `${where} changed since the version this change is based on (${why})`,
      current: existing,
    };
  const kept = Object.fromEntries(
    Object.entries(existing?.data ?? {}).filter(([k]) => o.keepOtherKeys || !k.endsWith('.kpol')),
  );
  const data = { ...kept, ...Object.fromEntries(files.map((f) => [f.key, f.text])) };
  const labels = {
    ...existing?.metadata.labels,
    [LABEL_POLICY_CONFIGMAP]: existing?.metadata.labels?.[LABEL_POLICY_CONFIGMAP] ?? 'true',
  };
  try {
    if (!existing) {
      const created = await client.create<ConfigMap>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: target.name, namespace: target.namespace, labels },
        data,
      });
      return { kind: 'written', configMap: created, created: true, loaded };
    }
    // The resourceVersion read above is the precondition: a change since then is a 409.
    const updated = await client.update<ConfigMap>({ ...existing, metadata: { ...existing.metadata, labels }, data });
    return { kind: 'written', configMap: updated, created: false, loaded };
  } catch (err) {
    if (isApiError(err, 409)) {
      const current = await client.get<ConfigMap>({
        kind: 'ConfigMap',
        namespace: target.namespace,
        name: target.name,
      });
      return {
        kind: 'conflict',
        message: `${where} was changed by someone else while writing (${err.message}); nothing was written`,
        current,
      };
    }
    throw err;
  }
}
