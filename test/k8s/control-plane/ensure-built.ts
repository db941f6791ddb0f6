// SPDX-License-Identifier: Apache-2.0
import { accessSync, constants } from 'node:fs';
import { runBuildScript } from '../../support/build-progress.js';
import { BINARIES, BUILD_SCRIPT, K8S_VERSION, binaryPath, cacheDir } from './paths.js';

export function missingBinaries(): string[] {
  return BINARIES.filter((name) => {
    try {
      accessSync(binaryPath(name), constants.X_OK);
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * Makes sure the control-plane binaries for the pinned version exist, running build.sh (which
 * needs Go and the module proxy; a cold build takes many minutes) when any is missing, with a
 * progress line every 30 s (../../support/build-progress.ts). Throws an Error whose message
 * says what failed and how to reproduce it by hand.
 */
export async function ensureBuilt(
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  const missing = missingBinaries();
  if (missing.length === 0) return;
  log(
    `k8s tests: ${missing.join(', ')} for Kubernetes ${K8S_VERSION} not in ${cacheDir()}/bin; building them now ` +
      `with ${BUILD_SCRIPT} (a cold build takes 10–35 minutes on 2 cores)`,
  );
  const result = await runBuildScript(BUILD_SCRIPT, 'k8s-build', log);
  if (result.error) throw new Error(`k8s tests: cannot run ${BUILD_SCRIPT}: ${result.error.message}`);
  if (result.code !== 0) {
    throw new Error(
      `k8s tests: ${BUILD_SCRIPT} failed with exit code ${result.code ?? result.signal}; ` +
        `run \`bash ${BUILD_SCRIPT}\` to see why`,
    );
  }
  const still = missingBinaries();
  if (still.length) throw new Error(`k8s tests: ${BUILD_SCRIPT} succeeded but ${still.join(', ')} are still missing`);
}
