// SPDX-License-Identifier: Apache-2.0
// Shared CLI input handling: policy files, with diagnostics printed the same way by every
// command. (Cluster snapshots: cluster-input.ts, which needs the YAML parser.)
import { renderDiagnostics } from '../../../../grammar/print-diagnostics.js';
import type { LoadedPolicies, PolicySource } from '../../../core/policy/load.js';
import { readText, type Output } from './io.js';

export function readPolicySources(paths: readonly string[]): PolicySource[] {
  return paths.map((p) => ({ fileName: p, text: readText(p) }));
}

/** Prints every file's diagnostics (squiggles) to stderr; returns true when any is an error. */
export function reportDiagnostics(loaded: LoadedPolicies, io: Output): boolean {
  for (const f of loaded.files) {
    if (!f.diagnostics.length) continue;
    io.err(renderDiagnostics(f.fileName, f.text, f.diagnostics, { color: io.errColor, omitted: f.omitted }));
  }
  return !loaded.ok;
}
