// SPDX-License-Identifier: Apache-2.0
// The editor bundle for the browser tests and the benchmark: built (or rebuilt when stale) by
// the same code `kpol run` and `kpol serve` use at start (src/edge/server/editor-build.ts), but here
// a failed build is an error.
import { ensureEditorBuilt as ensure } from '../../src/edge/server/editor-build.js';

export async function ensureEditorBuilt(): Promise<boolean> {
  const r = await ensure((line) => process.stderr.write(`editor tests: ${line}\n`));
  if (r.error !== undefined || r.state === 'unbuildable')
    throw new Error(`editor tests: the editor bundle could not be built${r.error ? `:\n${r.error}` : ''}`);
  return r.built;
}
