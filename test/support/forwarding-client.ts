// SPDX-License-Identifier: Apache-2.0
// A ClusterClient that passes every call to another, with some calls replaced: for tests that count
// a client's reads or change what its watches deliver.
import type { ClusterClient } from '../../src/core/cluster/client.js';

export function forwardingClient(to: ClusterClient, replaced: Partial<ClusterClient> = {}): ClusterClient {
  return {
    list: (kind, namespace) => to.list(kind, namespace),
    get: (key) => to.get(key),
    create: (obj) => to.create(obj),
    update: (obj) => to.update(obj),
    patch: (key, patch, pre) => to.patch(key, patch, pre),
    delete: (key, options) => to.delete(key, options),
    evict: (ns, name, pre) => to.evict(ns, name, pre),
    watch: (kind, handler) => to.watch(kind, handler),
    ...replaced,
  };
}
