// SPDX-License-Identifier: Apache-2.0
// The in-memory API server's conformance suites (test/cluster/memory/conformance-*.test.ts),
// unchanged, against the real control plane: the backend list is replaced by the kube backends
// before the suites are loaded, so each `describe.each(backends)` runs on kube-apiserver twice:
// lists from the server, and lists from the informer caches as the controller reads them.
import { afterAll, beforeEach } from 'vitest';
import { backends } from '../../cluster/memory/backends.js';
import { closeKubeClient, kubeBackend, kubeCachedBackend } from './kube-backend.js';

backends.splice(0, backends.length, kubeBackend, kubeCachedBackend);
afterAll(closeKubeClient);

/**
 * Where the in-memory server is stricter or tidier than kube-apiserver. Each is skipped here
 * with the reason, and the real behaviour is asserted in real-differences.test.ts.
 */
const REAL_SERVER_DIFFERS: Record<string, string> = {
  'sets uid, resourceVersion, creationTimestamp and generation 1':
    'kube-apiserver sets metadata.generation only for kinds that count spec changes (not ConfigMaps)',
  'spends one disruption and records the pod, then 429 when none is left':
    "kube-controller-manager's disruption controller drops the evicted pod from " +
    'status.disruptedPods as soon as it sees it deleting, before the test reads the PDB',
  'deleting a ReplicaSet deletes its pods (unbound at once, bound gracefully)':
    "the test's pods name the ReplicaSet as controller without matching its selector; the real " +
    'ReplicaSet controller releases such pods (drops the ownerReference), so nothing cascades',
  'reports a graceful pod deletion as MODIFIED, then DELETED when it is removed':
    'a grace-0 delete of a pod already being deleted first writes deletionGracePeriodSeconds 0 ' +
    '(a second MODIFIED), then removes it',
};
beforeEach((ctx) => {
  const why = REAL_SERVER_DIFFERS[ctx.task.name];
  if (why) ctx.skip(why);
});

await import('../../cluster/memory/conformance-writes.test.js');
await import('../../cluster/memory/conformance-delete.test.js');
await import('../../cluster/memory/conformance-evict.test.js');
await import('../../cluster/memory/conformance-watch.test.js');
