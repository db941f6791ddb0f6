// SPDX-License-Identifier: Apache-2.0
// Cluster snapshots as CLI input (eval, explain, simulate, serve): loaded with located errors
// (exit 1, at most MAX_SNAPSHOT_MESSAGES of them printed) and warnings, and the policies that
// apply to them.
import type { LoadError } from '../../../core/cluster/snapshot.js';
import { indexCluster, type ClusterIndex } from '../../../core/cluster/state.js';
import { loadSnapshot } from '../../../core/cluster/snapshot.js';
import { loadPolicies, policySourcesFromConfigMaps, type LoadedPolicies } from '../../../core/policy/load.js';
import { readPolicySources, reportDiagnostics } from './inputs.js';
import { CliError, EXIT_FINDINGS, readText, type Output } from './io.js';

/** A file of 100,000 broken pods says so in a screenful, not 100,000 lines. */
export const MAX_SNAPSHOT_MESSAGES = 20;

function lines(problems: readonly LoadError[], what: string): string[] {
  const shown = problems.slice(0, MAX_SNAPSHOT_MESSAGES).map((e) => `${e.location}: ${e.message}`);
  const more = problems.length - MAX_SNAPSHOT_MESSAGES;
  if (more > 0) shown.push(`… and ${more} more ${what}`);
  return shown;
}

/** Bad input: the snapshot's located errors, exit 1. */
export function snapshotError(errors: readonly LoadError[], path: string): CliError {
  return new CliError(lines(errors, 'errors').join('\n') || `cannot load ${path}`, EXIT_FINDINGS);
}

export function reportSnapshotWarnings(warnings: readonly LoadError[], io: Output): void {
  for (const line of lines(warnings, 'warnings')) io.err(`warning: ${line}`);
}

/** Loads and indexes a snapshot file; warnings go to `io` (callers without one drop them). */
export function readCluster(path: string, io?: Output): ClusterIndex {
  const { snapshot, errors, warnings } = loadSnapshot(readText(path), path);
  if (!snapshot || errors.length) throw snapshotError(errors, path);
  if (io) reportSnapshotWarnings(warnings, io);
  return indexCluster(snapshot);
}

/** Policies from --policy files plus those stored in the snapshot's policy ConfigMaps. */
export function policiesFor(index: ClusterIndex, paths: readonly string[], io: Output, nowMs?: number): LoadedPolicies {
  const loaded = loadPolicies(
    [...readPolicySources(paths), ...policySourcesFromConfigMaps(index.snapshot.configMaps)],
    nowMs,
  );
  if (reportDiagnostics(loaded, io))
    throw new CliError('the policies have errors; nothing was evaluated', EXIT_FINDINGS);
  return loaded;
}
