// SPDX-License-Identifier: Apache-2.0
// vitest globalSetup of the `k8s` project: builds the binaries if missing, starts ONE control
// plane for all k8s test files and stops it after them. Tests reach it with
// `inject('k8s')` (see ./inject.ts); the processes never leave the vitest main process.
import type { TestProject } from 'vitest/node';
import { sayFirstBuildNotice } from '../first-build-notice.js';
import { ensureBuilt } from './ensure-built.js';
import { startControlPlane } from './start-control-plane.js';
import { installShippedCrds } from '../shipped-crds.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // On a fresh machine: say what is about to be built (this and, when selected, the karpenter
  // project's build), how long it takes, and that progress follows.
  sayFirstBuildNotice(project.vitest.projects.some((p) => p.name === 'karpenter'));
  await ensureBuilt();
  const log = process.env.KPOL_K8S_VERBOSE ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
  // The CRDs before kube-controller-manager, so that its garbage collector follows NodeClaim
  // owner references from the first test on.
  const cp = await startControlPlane({ log, beforeControllers: installShippedCrds });
  project.provide('k8s', { kubeconfigPath: cp.kubeconfigPath, server: cp.server, version: cp.version, logs: cp.logs });
  return () => cp.stop();
}
