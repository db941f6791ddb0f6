// SPDX-License-Identifier: Apache-2.0
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { runBuildScript } from '../../support/build-progress.js';
import {
  BINARIES,
  BUILD_SCRIPT,
  KARPENTER_VERSION,
  KWOK_VERSION,
  REQUIRED_FILES,
  binaryPath,
  cacheDir,
} from './paths.js';

export function missing(): string[] {
  const bins = BINARIES.filter((name) => !accessible(binaryPath(name), constants.X_OK));
  const files = REQUIRED_FILES.filter((f) => !accessible(join(cacheDir(), f), constants.R_OK));
  return [...bins, ...files];
}

function accessible(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes sure Karpenter's KWOK provider, KWOK, the CRDs and the stage files for the pinned
 * versions are in the cache, running build.sh (Go and the module proxy; a cold build takes
 * about 20–40 minutes on 2 cores) when anything is missing, with a progress line every 30 s.
 * Throws an Error that says what failed and how to reproduce it by hand.
 */
export async function ensureKarpenterBuilt(
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  const absent = missing();
  if (absent.length === 0) return;
  log(
    `karpenter tests: ${absent.join(', ')} for Karpenter ${KARPENTER_VERSION} / ` +
      `KWOK ${KWOK_VERSION} not in ${cacheDir()}; ` +
      `building them now with ${BUILD_SCRIPT} (a cold build takes about 20–40 minutes)`,
  );
  const result = await runBuildScript(BUILD_SCRIPT, 'karpenter-build', log);
  if (result.error) throw new Error(`karpenter tests: cannot run ${BUILD_SCRIPT}: ${result.error.message}`);
  if (result.code !== 0) {
    throw new Error(
      `karpenter tests: ${BUILD_SCRIPT} failed with exit code ${result.code ?? result.signal}; ` +
        `run \`bash ${BUILD_SCRIPT}\` to see why`,
    );
  }
  const still = missing();
  if (still.length)
    throw new Error(`karpenter tests: ${BUILD_SCRIPT} succeeded but ${still.join(', ')} are still missing`);
}
