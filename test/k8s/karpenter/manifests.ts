// SPDX-License-Identifier: Apache-2.0
// Manifests the Karpenter tests apply, as JSON documents (kubectl reads them as YAML), so a
// test states only what differs: a NodePool's disruption block, a Deployment's size.

/**
 * A NodePool of the KWOK provider: on-demand only (no spot-to-spot churn), the `default`
 * KWOKNodeClass. `labels` go on the pool and, through its template, on its NodeClaims and Nodes.
 */
export function nodePool(
  name: string,
  disruption: Record<string, unknown>,
  labels: Record<string, string> = {},
): object {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name, labels },
    spec: {
      template: {
        metadata: { labels },
        spec: {
          nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' },
          requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
        },
      },
      disruption,
    },
  };
}

export interface DeploymentOptions {
  namespace: string;
  name: string;
  /** Its pods go to this NodePool only (Karpenter's well-known `karpenter.sh/nodepool` label). */
  pool: string;
  replicas: number;
  /**
   * Pods that share this value of label `kpol.dev/spread` never share a node (required
   * anti-affinity on the hostname), so Karpenter launches one node per pod.
   */
  spread?: string;
  podAnnotations?: Record<string, string>;
  /** More pod labels (a policy's pod window selects on them). */
  podLabels?: Record<string, string>;
  /** CPU request per pod; default 100m. */
  cpu?: string;
  /** A taint key (NoSchedule) the pods tolerate. */
  tolerate?: string;
}

/** A Deployment of pause containers with small requests, pinned to one NodePool. */
export function deployment(o: DeploymentOptions): object {
  const labels: Record<string, string> = {
    ...o.podLabels,
    app: o.name,
    ...(o.spread ? { 'kpol.dev/spread': o.spread } : {}),
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: o.name, namespace: o.namespace },
    spec: {
      replicas: o.replicas,
      selector: { matchLabels: { app: o.name } },
      template: {
        metadata: { labels, annotations: o.podAnnotations ?? {} },
        spec: {
          nodeSelector: { 'karpenter.sh/nodepool': o.pool },
          terminationGracePeriodSeconds: 0,
          ...(o.tolerate ? { tolerations: [{ key: o.tolerate, operator: 'Exists', effect: 'NoSchedule' }] } : {}),
          ...(o.spread
            ? {
                affinity: {
                  podAntiAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: [
                      {
                        topologyKey: 'kubernetes.io/hostname',
                        labelSelector: { matchLabels: { 'kpol.dev/spread': o.spread } },
                      },
                    ],
                  },
                },
              }
            : {}),
          containers: [
            {
              name: 'pause',
              image: 'registry.k8s.io/pause:3.10',
              resources: { requests: { cpu: o.cpu ?? '100m', memory: '64Mi' } },
            },
          ],
        },
      },
    },
  };
}

export function namespace(name: string): object {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

/** Documents for `kubectl apply -f -`. */
export function toYaml(docs: readonly object[]): string {
  return docs.map((d) => JSON.stringify(d)).join('\n---\n');
}
