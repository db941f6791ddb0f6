// SPDX-License-Identifier: Apache-2.0
// The API requests govern mode is designed to make (deploy/README.md, "What kpol reads and
// writes"), as the recording client would note them. TODO(govern): rbac.test.ts checks
// deploy/20-rbac.yaml against this list only until an exercise of the govern controller
// (src/govern/) records the requests it really makes; then this file goes.
import type { ApiRequest } from './api-inventory.js';
import { NAMESPACE } from './exercise.js';

const watched = (group: string, resource: string): ApiRequest[] => [{ group, resource, verb: 'list' }, { group, resource, verb: 'watch' }];

export const GOVERN_DESIGNED_REQUESTS: readonly ApiRequest[] = [
  // Informers, across all namespaces.
  ...watched('karpenter.sh', 'nodepools'),
  ...watched('karpenter.sh', 'nodeclaims'),
  ...watched('', 'nodes'),
  ...watched('', 'pods'),
  ...watched('policy', 'poddisruptionbudgets'),
  ...watched('', 'configmaps'),
  // Server-side apply (field manager kpol): NodePool disruption settings and annotations, and
  // NodePool status.disruption; the do-not-disrupt annotations on the Nodes kpol holds.
  { group: 'karpenter.sh', resource: 'nodepools', verb: 'patch' },
  { group: 'karpenter.sh', resource: 'nodepools/status', verb: 'patch' },
  { group: '', resource: 'nodes', verb: 'patch' },
  // Graceful expiration, within the Expired budget.
  { group: 'karpenter.sh', resource: 'nodeclaims', verb: 'delete' },
  // Events: cluster-scoped objects' in default, pods' in their namespaces, policy ConfigMaps' in kpol's.
  { group: '', resource: 'events', verb: 'create', namespace: 'default' },
  { group: '', resource: 'events', verb: 'create', namespace: 'team-a' },
  { group: '', resource: 'events', verb: 'create', namespace: NAMESPACE },
  // kpol's own namespace: policy ConfigMaps (read, kpol.dev/status), the leader Lease.
  { group: '', resource: 'configmaps', verb: 'get', namespace: NAMESPACE },
  { group: '', resource: 'configmaps', verb: 'patch', namespace: NAMESPACE },
  { group: 'coordination.k8s.io', resource: 'leases', verb: 'get', namespace: NAMESPACE },
  { group: 'coordination.k8s.io', resource: 'leases', verb: 'create', namespace: NAMESPACE },
  { group: 'coordination.k8s.io', resource: 'leases', verb: 'update', namespace: NAMESPACE },
];
