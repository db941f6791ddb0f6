// SPDX-License-Identifier: Apache-2.0
// Loads .kpol sources (files or ConfigMap keys) through parse and check together, so names
// and NodePools are unique across all of them. Callers use `policies` only when `ok`.
import { limitDiagnostics } from '../../../grammar/diagnostic-limit.js';
import { hasErrors, sortDiagnostics, type Diagnostic } from '../../../grammar/diagnostic.js';
import { parse } from '../../../grammar/parse.js';
import { checkAll } from '../../../rules/checks/check.js';
import type { PolicySpec } from '../../../rules/model.js';
import { LABEL_POLICY_CONFIGMAP, type ConfigMap } from '../cluster/types.js';

export interface PolicySource {
  fileName: string; // a path, or `configmap/<ns>/<name>/<key>` for policies stored in the cluster
  text: string;
}

export interface LoadedFile extends PolicySource {
  /** At most MAX_DIAGNOSTICS, in source order; an error among them whenever the file has one. */
  diagnostics: Diagnostic[];
  /** Diagnostics past the per-file limit, counted but not kept; absent means none. */
  omitted?: number;
}

export interface LoadedPolicies {
  ok: boolean;
  policies: PolicySpec[];
  files: LoadedFile[];
}

export function loadPolicies(sources: readonly PolicySource[], nowMs?: number): LoadedPolicies {
  const parsed = sources.map((s) => ({ source: s, result: parse(s.text) }));
  const checked = checkAll(
    parsed.map((p) => ({ fileName: p.source.fileName, file: p.result.value })),
    { nowMs },
  );
  const files = parsed.map((p, i): LoadedFile => {
    // One list in source order: a syntax error and the checker's reports interleave by position.
    const limited = limitDiagnostics(sortDiagnostics([...p.result.diagnostics, ...checked.files[i].diagnostics]));
    const omitted = (p.result.omitted ?? 0) + limited.omitted;
    const file: LoadedFile = { ...p.source, diagnostics: limited.diagnostics };
    if (omitted > 0) file.omitted = omitted;
    return file;
  });
  return { ok: !files.some((f) => hasErrors(f.diagnostics)), policies: checked.value, files };
}

/** The `*.kpol` keys of ConfigMaps labelled `kpol.dev/policy`, in a stable order. */
export function policySourcesFromConfigMaps(configMaps: readonly ConfigMap[]): PolicySource[] {
  const out: PolicySource[] = [];
  for (const cm of configMaps) {
    if (cm.metadata.labels?.[LABEL_POLICY_CONFIGMAP] === undefined) continue;
    for (const key of Object.keys(cm.data ?? {}).sort()) {
      if (!key.endsWith('.kpol')) continue;
      out.push({ fileName: configMapFileName(cm, key), text: cm.data![key] });
    }
  }
  return out;
}

/** Where a ConfigMap key's diagnostics point: `configmap/<ns>/<name>/<key>`, then `:line:col`. */
export function configMapFileName(cm: { metadata: { namespace?: string; name: string } }, key: string): string {
  return `configmap/${cm.metadata.namespace ?? 'default'}/${cm.metadata.name}/${key}`;
}
