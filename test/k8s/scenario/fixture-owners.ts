// SPDX-License-Identifier: Apache-2.0
// A scenario may create a pod whose ownerReference names a DaemonSet that was never created
// (test/support's makePod builds daemon pods that way). The in-memory server collects garbage
// only when an owner is deleted; the real garbage collector also deletes, at once, a dependent
// whose owner does not exist — correctly. So on the real server the named owner is made to
// exist first: an inert DaemonSet (no daemonset controller runs on the test control plane),
// which the pod's ownerReference then names by its real uid.
import { isApiError } from '../../../src/core/cluster/client.js';
import type { KubeObject, OwnerReference } from '../../../src/core/cluster/types.js';
import type { RestClient } from '../../../src/edge/kube/rest.js';
import { PAUSE_IMAGE } from '../adapter/kube-backend.js';

const daemonSets = (namespace: string) => `/apis/apps/v1/namespaces/${namespace}/daemonsets`;

async function existingDaemonSet(rest: RestClient, namespace: string, name: string): Promise<KubeObject> {
  try {
    return await rest.request<KubeObject>({ verb: 'GET', path: `${daemonSets(namespace)}/${name}` });
  } catch (e) {
    if (!isApiError(e, 404)) throw e;
  }
  const labels = { 'kpol.dev/fixture-owner': name };
  return rest.request<KubeObject>({
    verb: 'POST',
    path: daemonSets(namespace),
    body: {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name, namespace, labels },
      spec: {
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'main', image: PAUSE_IMAGE }] } },
      },
    },
  });
}

/** `obj` with every DaemonSet it names as owner existing, and named by its real uid. */
export async function withExistingOwners<T extends KubeObject>(rest: RestClient, obj: T): Promise<T> {
  const refs = obj.metadata.ownerReferences;
  if (!refs?.some((r) => r.kind === 'DaemonSet')) return obj;
  const namespace = obj.metadata.namespace ?? 'default';
  const ownerReferences: OwnerReference[] = [];
  for (const r of refs) {
    ownerReferences.push(
      r.kind === 'DaemonSet' ? { ...r, uid: (await existingDaemonSet(rest, namespace, r.name)).metadata.uid! } : r,
    );
  }
  return { ...obj, metadata: { ...obj.metadata, ownerReferences } };
}

/** Removes the DaemonSets `withExistingOwners` made in `namespace`. */
export async function deleteFixtureOwners(rest: RestClient, namespace: string): Promise<void> {
  await rest.request({
    verb: 'DELETE',
    path: daemonSets(namespace),
    query: { labelSelector: 'kpol.dev/fixture-owner' },
  });
}
