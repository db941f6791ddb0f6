// SPDX-License-Identifier: Apache-2.0
// Conformance for defaults: each object of test/cluster/memory/defaults-cases.ts is created on
// the in-memory server and on kube-apiserver (with kpol's shipped CRDs), and what comes back
// for the fields kpol reads must be the same on both, and as the case states. A default the
// in-memory server stops writing (src/core/cluster/memory/defaults.ts) fails here, as does one
// a new Kubernetes version changes.
import { afterAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/core/cluster/types.js';
import { memoryBackend } from '../../cluster/memory/backends.js';
import { DEFAULTS_CASES } from '../../cluster/memory/defaults-cases.js';
import { closeKubeClient, kubeBackend, kubeClient } from './kube-backend.js';

/** NodePools this file made (closeKubeClient removes namespaces, NodeClaims and Nodes, not pools). */
const pools: string[] = [];
afterAll(async () => {
  const client = await kubeClient();
  for (const name of pools) await client.delete({ kind: 'NodePool', name }).catch(() => undefined);
  await closeKubeClient();
});

describe('defaults: the in-memory server and kube-apiserver return the same', () => {
  it.each(DEFAULTS_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const [memory, kube] = [await memoryBackend.setup(), await kubeBackend.setup()];
    const fromMemory = await c.run(memory);
    const fromKube = await c.run(kube);
    for (const o of [fromKube].flat() as KubeObject[]) if (o.kind === 'NodePool') pools.push(o.metadata.name);
    expect({ memory: c.fields(fromMemory), kube: c.fields(fromKube) }).toEqual({
      memory: c.expected,
      kube: c.expected,
    });
  });
});
