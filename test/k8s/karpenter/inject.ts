// SPDX-License-Identifier: Apache-2.0
import { inject } from 'vitest';
import { ApiClient } from '../control-plane/api-client.js';

/** What the karpenter project's globalSetup hands to test files: plain data, the processes stay behind. */
export interface SharedKarpenter {
  /** Admin kubeconfig (JSON, certificates embedded) of the project's own control plane. */
  kubeconfigPath: string;
  server: string;
  /** Kubernetes version of the control plane. */
  version: string;
  karpenterVersion: string;
  kwokVersion: string;
  /** `http://127.0.0.1:<port>/metrics` of Karpenter's KWOK provider. */
  karpenterMetricsUrl: string;
  /** Log file per process (etcd, kube-apiserver, …, karpenter, kwok), to print when a test is puzzling. */
  logs: Record<string, string>;
}

declare module 'vitest' {
  export interface ProvidedContext {
    karpenter: SharedKarpenter;
  }
}

/** The cluster the karpenter project's globalSetup started; only callable from a test file of that project. */
export function sharedKarpenter(): SharedKarpenter & { api: ApiClient } {
  const k = inject('karpenter');
  if (!k) throw new Error('no Karpenter: run this file in the `karpenter` vitest project (test/vitest.config.ts)');
  return { ...k, api: ApiClient.fromKubeconfig(k.kubeconfigPath) };
}
