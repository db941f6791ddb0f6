// SPDX-License-Identifier: Apache-2.0
import { inject } from 'vitest';
import { ApiClient } from './api-client.js';

/** What the k8s project's globalSetup hands to test files: plain data, the processes stay behind. */
export interface SharedControlPlane {
  /** Admin kubeconfig (JSON, certificates embedded). */
  kubeconfigPath: string;
  server: string;
  version: string;
  /** Log file per component, to print when a test is puzzling. */
  logs: Record<string, string>;
}

declare module 'vitest' {
  export interface ProvidedContext {
    k8s: SharedControlPlane;
  }
}

/** The control plane the k8s project's globalSetup started; only callable from a test file of that project. */
export function sharedControlPlane(): SharedControlPlane & { api: ApiClient } {
  const cp = inject('k8s');
  if (!cp) throw new Error('no control plane: run this file in the `k8s` vitest project (test/vitest.config.ts)');
  return { ...cp, api: ApiClient.fromKubeconfig(cp.kubeconfigPath) };
}
