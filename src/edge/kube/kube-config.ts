// SPDX-License-Identifier: Apache-2.0
// Where the controller finds its cluster: a kubeconfig file (optionally one of its contexts),
// or the pod's service account when it runs inside the cluster. Problems are user errors with
// the file and context named, never stack traces.
import { existsSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export interface KubeConfigSource {
  kubeconfig?: string;
  context?: string;
  /** Use the service account mounted into the pod. */
  inCluster?: boolean;
}

export class KubeConfigError extends Error {}

/** True when running in a pod (the kubelet sets these for every container). */
export const runningInCluster = (env: Record<string, string | undefined>): boolean =>
  Boolean(env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT);

export function loadKubeConfig(source: KubeConfigSource): KubeConfig {
  const kc = new KubeConfig();
  if (source.inCluster) {
    if (source.kubeconfig) throw new KubeConfigError('--in-cluster and --kubeconfig exclude each other');
    if (!runningInCluster(process.env))
      throw new KubeConfigError(
        '--in-cluster: not running in a pod (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)',
      );
    if (!existsSync(SERVICE_ACCOUNT_TOKEN))
      throw new KubeConfigError(
        `--in-cluster: no service account token at ${SERVICE_ACCOUNT_TOKEN} (automountServiceAccountToken off?)`,
      );
    try {
      kc.loadFromCluster();
    } catch (e) {
      throw new KubeConfigError(`in-cluster config: ${(e as Error).message}`);
    }
    return kc;
  }
  if (!source.kubeconfig) throw new KubeConfigError('no kubeconfig given');
  try {
    kc.loadFromFile(source.kubeconfig);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new KubeConfigError(
      `${source.kubeconfig}: ${err.code === 'ENOENT' ? 'no such file' : err.message.split('\n')[0]}`,
    );
  }
  if (source.context) {
    if (!kc.getContextObject(source.context)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new KubeConfigError(
        `${source.kubeconfig}: no ` +
          `context \`${source.context}\`${known.length ? ` (contexts: ${known.join(', ')})` : ''}`,
      );
    }
    kc.setCurrentContext(source.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster)
    throw new KubeConfigError(
      `${source.kubeconfig}: the current context \`${kc.getCurrentContext()}\` names no cluster`,
    );
  return kc;
}
