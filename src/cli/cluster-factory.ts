// SPDX-License-Identifier: Apache-2.0
// How CLI commands that talk to a real cluster get their ClusterClient. One function, so the
// commands can be tested against the in-memory API server and the Kubernetes adapter (issue 4,
// src/kube/) plugs in here once merged.
import { isApiError, type ClusterClient } from '../cluster/client.js';
import { CliError, EXIT_FINDINGS } from './io.js';

export interface ClusterAccess {
  kubeconfig?: string;
  context?: string;
}

export type ClusterFactory = (access: ClusterAccess) => Promise<ClusterClient>;

/** The default namespace kpol runs in and keeps its policy ConfigMaps in (deploy/ creates it). */
export const DEFAULT_NAMESPACE = 'kpol-system';

export const connectCluster: ClusterFactory = async () => {
  throw new CliError('connecting to a Kubernetes cluster needs the Kubernetes adapter (src/kube/), which is not part of this build yet');
};

/** An API server's refusal (forbidden, not found, unreachable) is the user's to act on, not a crash: exit 1 with its message. */
export async function asCliError<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (isApiError(e)) throw new CliError(`the API server refused: ${e.message}`, EXIT_FINDINGS);
    throw e;
  }
}
