// SPDX-License-Identifier: Apache-2.0
// Shared CLI input handling: policy files and cluster snapshots, with diagnostics printed
// the same way by every command.
import { renderDiagnostics } from '../../grammar/print-diagnostics.js';
import { indexCluster, type ClusterIndex } from '../cluster/state.js';
import { loadSnapshot } from '../cluster/snapshot.js';
import { loadPolicies, policySourcesFromConfigMaps, type LoadedPolicies, type PolicySource } from '../policy/load.js';
import { CliError, EXIT_FINDINGS, readText, type Output } from './io.js';

export function readPolicySources(paths: readonly string[]): PolicySource[] {
  return paths.map((p) => ({ fileName: p, text: readText(p) }));
}

/** Prints every file's diagnostics (squiggles) to stderr; returns true when any is an error. */
export function reportDiagnostics(loaded: LoadedPolicies, io: Output): boolean {
  for (const f of loaded.files) {
    if (f.diagnostics.length) io.err(renderDiagnostics(f.fileName, f.text, f.diagnostics, { color: io.errColor }));
  }
  return !loaded.ok;
}

export function readCluster(path: string): ClusterIndex {
  const { snapshot, errors } = loadSnapshot(readText(path), path);
  if (!snapshot || errors.length) {
    throw new CliError(errors.map((e) => `${e.location}: ${e.message}`).join('\n') || `cannot load ${path}`);
  }
  return indexCluster(snapshot);
}

/** Policies from --policy files plus those stored in the snapshot's policy ConfigMaps. */
export function policiesFor(index: ClusterIndex, paths: readonly string[], io: Output, nowMs?: number): LoadedPolicies {
  const loaded = loadPolicies([...readPolicySources(paths), ...policySourcesFromConfigMaps(index.snapshot.configMaps)], nowMs);
  if (reportDiagnostics(loaded, io)) throw new CliError('the policies have errors; nothing was evaluated', EXIT_FINDINGS);
  return loaded;
}
