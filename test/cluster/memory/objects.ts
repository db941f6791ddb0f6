// SPDX-License-Identifier: Apache-2.0
// Objects for the conformance suites, built with the shared builders and placed in the
// harness's namespace, without the server-owned fields a create must not carry.
import type { ConfigMap, KubeObject, Pod, PodDisruptionBudget } from '../../../src/core/cluster/types.js';
import type { ReplicaSet } from '../../../src/core/cluster/memory/api-fields.js';
import {
  makeNodeClaimAndNode,
  makePdb,
  makePod,
  type PdbOptions,
  type PodOptions,
} from '../../support/cluster-builder.js';
import type { Harness } from './backends.js';

const fresh = <T extends KubeObject>(obj: T): T => {
  const { uid: _uid, creationTimestamp: _created, ...metadata } = obj.metadata;
  return { ...obj, metadata } as T;
};

/** An ownerless pod; bound and Ready when `nodeName` is given. */
export const pod = (h: Harness, name: string, nodeName?: string, o: PodOptions = {}): Pod =>
  fresh(makePod(name, nodeName, { owner: 'none', namespace: h.ns, ...o }));

export const pdb = (
  h: Harness,
  name: string,
  labels: Record<string, string>,
  o: PdbOptions = {},
): PodDisruptionBudget => fresh(makePdb(name, { matchLabels: labels }, { namespace: h.ns, ...o }));

export const configMap = (h: Harness, name: string, data: Record<string, string> = {}): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: h.ns },
  data,
});

export const replicaSet = (h: Harness, name: string, replicas: number, labels: Record<string, string>): ReplicaSet => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name, namespace: h.ns, labels },
  spec: {
    replicas,
    selector: { matchLabels: labels },
    template: {
      metadata: { labels },
      spec: {
        terminationGracePeriodSeconds: 30,
        containers: [{ name: 'main', resources: { requests: { cpu: '100m' } } }],
      },
    },
  },
});

/** A NodeClaim and its Node (owned by the claim), both with the termination finalizer. */
export function machine(h: Harness, i: number): { nodeClaim: KubeObject; node: KubeObject } {
  const { nodeClaim, node } = makeNodeClaimAndNode(`${h.prefix}pool`, i);
  const n = fresh(node);
  n.metadata.ownerReferences = [{ apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', name: nodeClaim.metadata.name }];
  return {
    nodeClaim: fresh({ ...nodeClaim, metadata: { ...nodeClaim.metadata, ownerReferences: undefined } }),
    node: n,
  };
}

export const podKey = (h: Harness, name: string) => ({ kind: 'Pod' as const, namespace: h.ns, name });
