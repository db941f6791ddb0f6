// SPDX-License-Identifier: Apache-2.0
// vitest globalSetup of the `karpenter` project: builds what is missing, then starts a control
// plane of its own (not the k8s project's: Karpenter's CRDs differ from kpol's deploy/crds, and
// Karpenter acts on every NodePool it sees), Karpenter's KWOK provider and KWOK, and stops them
// after the project's files. Tests reach them with `sharedKarpenter()` (./inject.ts).
import type { TestProject } from 'vitest/node';
import { ensureBuilt } from '../control-plane/ensure-built.js';
import { sayFirstBuildNotice } from '../first-build-notice.js';
import { startControlPlane } from '../control-plane/start-control-plane.js';
import { ensureKarpenterBuilt } from './ensure-built.js';
import { installKarpenterCrds, startKarpenter } from './start-karpenter.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  sayFirstBuildNotice(true);
  await ensureBuilt();
  await ensureKarpenterBuilt();
  const log = process.env.KPOL_K8S_VERBOSE ? (line: string) => process.stderr.write(`${line}\n`) : undefined;
  // Karpenter's CRDs before kube-controller-manager, so that its garbage collector follows the
  // NodePool → NodeClaim owner references from the start (deleting a pool removes its claims).
  const cp = await startControlPlane({ log, beforeControllers: installKarpenterCrds });
  const karpenter = await startKarpenter({ kubeconfigPath: cp.kubeconfigPath, log }).catch(async (err: unknown) => {
    await cp.stop();
    throw err;
  });
  project.provide('karpenter', {
    kubeconfigPath: cp.kubeconfigPath,
    server: cp.server,
    version: cp.version,
    karpenterVersion: karpenter.karpenterVersion,
    kwokVersion: karpenter.kwokVersion,
    karpenterMetricsUrl: karpenter.metricsUrl,
    logs: { ...cp.logs, ...karpenter.logs },
  });
  return async () => {
    await karpenter.stop();
    await cp.stop();
  };
}
