// SPDX-License-Identifier: Apache-2.0
// Cluster snapshots as CLI input (eval, explain): loaded with located errors, and the policies
// that apply to them.
import { indexCluster, type ClusterIndex } from '../../../core/cluster/state.js';
import { loadSnapshot } from '../../../core/cluster/snapshot.js';
import { loadPolicies, policySourcesFromConfigMaps, type LoadedPolicies } from '../../../core/policy/load.js';
import { readPolicySources, reportDiagnostics } from './inputs.js';
import { CliError, EXIT_FINDINGS, readText, type Output } from './io.js';

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
