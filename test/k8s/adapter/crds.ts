// SPDX-License-Identifier: Apache-2.0
// Minimal karpenter.sh/v1 NodePool and NodeClaim CRDs for the adapter and scenario tests: the
// right group, names, scope and status subresource, with schemas that keep every field. The
// full CRDs with Karpenter's validation (deploy/crds/) are built on the k8s-policy branch; once
// merged, the tests should install those instead.
import type { KubeClusterClient } from '../../../src/kube/kube-cluster.js';
import { isApiError } from '../../../src/cluster/client.js';
import { eventually } from '../control-plane/eventually.js';

const crd = (kind: string, plural: string, shortNames: string[]) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.karpenter.sh` },
  spec: {
    group: 'karpenter.sh',
    names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List`, shortNames, categories: ['karpenter'] },
    scope: 'Cluster',
    versions: [{
      name: 'v1', served: true, storage: true, subresources: { status: {} },
      schema: { openAPIV3Schema: {
        type: 'object',
        properties: {
          spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      } },
    }],
  },
});

export const KARPENTER_CRDS = [crd('NodePool', 'nodepools', ['np']), crd('NodeClaim', 'nodeclaims', ['nc'])];

/** Creates the CRDs unless present, and waits until the API serves both kinds. */
export async function installKarpenterCrds(client: KubeClusterClient): Promise<void> {
  for (const c of KARPENTER_CRDS) {
    try {
      await client.rest.request({ verb: 'POST', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', body: c });
    } catch (e) {
      if (!isApiError(e, 409)) throw e;
    }
  }
  await eventually('the karpenter.sh/v1 kinds to be served', async () => {
    await client.list('NodePool');
    await client.list('NodeClaim');
    return true;
  });
}
