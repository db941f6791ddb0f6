// SPDX-License-Identifier: Apache-2.0
// Said once, before anything is built: which from-source builds the k8s (and karpenter) tests
// are about to run, roughly how long they take, where they are cached and how to skip them. A
// fresh clone's first `npm test` spends most of its time here; it should not look hung.
import { join } from 'node:path';
import { missingBinaries as controlPlaneMissing } from './control-plane/ensure-built.js';
import * as cp from './control-plane/paths.js';
import { missing as karpenterMissing } from './karpenter/ensure-built.js';
import * as karpenter from './karpenter/paths.js';
import { progressEveryMs } from '../support/build-progress.js';

const SAID = Symbol.for('kpol.test.firstBuildNoticeSaid');

/**
 * The notice, or undefined when nothing needs building. `withKarpenter`: whether the
 * karpenter tests are selected too (their build is then announced with the control plane's).
 */
export function firstBuildNotice(withKarpenter: boolean): string | undefined {
  const builds: string[] = [];
  if (controlPlaneMissing().length) {
    builds.push(
      `  - Kubernetes ${cp.K8S_VERSION} (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl):`,
      '    about 10–35 minutes on 2 cores',
    );
  }
  if (withKarpenter && karpenterMissing().length) {
    builds.push(
      `  - Karpenter ${karpenter.KARPENTER_VERSION} (its KWOK provider) and ` +
        `KWOK ${karpenter.KWOK_VERSION}, for the karpenter tests:`,
      '    about 20–40 minutes more on 2 cores',
    );
  }
  if (!builds.length) return undefined;
  const root = process.env.KPOL_K8S_CACHE || join(cp.cacheDir(), '..');
  return [
    '',
    'kpol tests: first run on this machine. The tests under test/k8s/ run against a real control',
    'plane, which is built now from the official Go modules (needs Go and the Go module proxy):',
    ...builds,
    `It is done once: the binaries are cached in ${root} (KPOL_K8S_CACHE moves it) and later`,
    `runs start in seconds. Progress below, a line every ${progressEveryMs() / 1000} s. To run the other tests`,
    'meanwhile or instead: npx vitest run --config test/vitest.config.ts --project unit --project editor',
    '',
  ].join('\n');
}

/** Prints the notice on stderr, once per process, before the first build. */
export function sayFirstBuildNotice(withKarpenter: boolean): void {
  const g = globalThis as Record<symbol, unknown>;
  if (g[SAID]) return;
  const notice = firstBuildNotice(withKarpenter);
  if (notice === undefined) return;
  g[SAID] = true;
  process.stderr.write(`${notice}\n`);
}
