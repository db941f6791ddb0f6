// SPDX-License-Identifier: Apache-2.0
// How CLI commands that talk to a real cluster get their ClusterClient: one function, so the
// commands are tested against the in-memory API server and run against the Kubernetes adapter.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isApiError, type ClusterClient } from '../../../core/cluster/client.js';
import { CliError, EXIT_FINDINGS } from './io.js';

export interface ClusterAccess {
  kubeconfig?: string;
  context?: string;
}

export type ClusterFactory = (access: ClusterAccess) => Promise<ClusterClient>;

/** The default namespace kpol runs in and keeps its policy ConfigMaps in (deploy/ creates it). */
export const DEFAULT_NAMESPACE = 'kpol-system';

/** As kubectl: --kubeconfig, else $KUBECONFIG (its first file), else ~/.kube/config. */
export function kubeconfigPath(access: ClusterAccess, env: Record<string, string | undefined>): string {
  return access.kubeconfig ?? env.KUBECONFIG?.split(':').find(Boolean) ?? join(homedir(), '.kube', 'config');
}

/** Loads the Kubernetes client (@kubernetes/client-node, slow to load) only when a command connects. */
export const connectCluster: ClusterFactory = async (access) => {
  const [{ KubeClusterClient }, { KubeConfigError, loadKubeConfig }] = await Promise.all([
    import('../../kube/kube-cluster.js'),
    import('../../kube/kube-config.js'),
  ]);
  try {
    return new KubeClusterClient(
      loadKubeConfig({ kubeconfig: kubeconfigPath(access, process.env), context: access.context }),
    );
  } catch (e) {
    if (e instanceof KubeConfigError) throw new CliError(e.message);
    throw e;
  }
};

/**
 * An API server's refusal (forbidden, not found, unreachable) is the user's to act on, not a crash: exit 1 with its
 * message.
 */
export async function asCliError<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (isApiError(e)) throw new CliError(`the API server refused: ${e.message}`, EXIT_FINDINGS);
    throw e;
  }
}
