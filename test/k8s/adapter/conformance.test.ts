// SPDX-License-Identifier: Apache-2.0
// The in-memory API server's conformance suites (test/cluster/memory/conformance-*.test.ts),
// unchanged, against the real control plane: the backend list is replaced by the kube backend
// before the suites are loaded, so each `describe.each(backends)` runs once, on kube-apiserver.
import { afterAll } from 'vitest';
import { backends } from '../../cluster/memory/backends.js';
import { closeKubeClient, kubeBackend } from './kube-backend.js';

backends.splice(0, backends.length, kubeBackend);
afterAll(closeKubeClient);

await import('../../cluster/memory/conformance-writes.test.js');
await import('../../cluster/memory/conformance-delete.test.js');
await import('../../cluster/memory/conformance-evict.test.js');
await import('../../cluster/memory/conformance-watch.test.js');
