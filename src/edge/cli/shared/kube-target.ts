// SPDX-License-Identifier: Apache-2.0
// Which cluster `kpol run --kubeconfig FILE [--context NAME] | --in-cluster` talks to: the loaded
// kubeconfig (a bad one is a CliError, never a stack trace) and how to name it in messages.
import { KubeConfigError, loadKubeConfig } from '../../kube/kube-config.js';
import { CliError } from './io.js';

export interface KubeTarget {
  kubeconfig?: string;
  context?: string;
  inCluster?: boolean;
}

export function kubeConfigOf(o: KubeTarget) {
  try {
    return loadKubeConfig({ kubeconfig: o.kubeconfig, context: o.context, inCluster: o.inCluster });
  } catch (e) {
    if (e instanceof KubeConfigError) throw new CliError(e.message);
    throw e;
  }
}

export const whereOf = (o: KubeTarget): string =>
  o.inCluster ? 'in-cluster service account' : `${o.kubeconfig}${o.context ? ` (context ${o.context})` : ''}`;
