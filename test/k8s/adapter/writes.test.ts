// SPDX-License-Identifier: Apache-2.0
// What the adapter maps beyond the conformance suites: status through /status, server-side
// apply with kpol's field manager, binding through pods/binding.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/core/cluster/client.js';
import type { KubeObject, NodeClaim, Pod } from '../../../src/core/cluster/types.js';
import type { KubeClusterClient } from '../../../src/edge/kube/kube-cluster.js';
import { closeKubeClient, createNamespace, imaged, kubeClient } from './kube-backend.js';

let client: KubeClusterClient;
let ns: string;
let id: string;
beforeAll(async () => {
  client = await kubeClient();
  id = randomBytes(3).toString('hex');
  ns = `kpol-w-${id}`;
  await createNamespace(client, ns);
});
afterAll(closeKubeClient);

const failure = async (p: Promise<unknown>): Promise<ApiError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected a failure');
};

/** The least spec the karpenter.sh/v1 NodeClaim schema accepts (both fields are required). */
const claimSpec = (): NodeClaim['spec'] => ({
  nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
  requirements: [],
});

describe('status subresource', () => {
  it('create, update and patch keep the status the caller sent (the server alone would drop it)', async () => {
    const name = `${id}-nc`;
    const nc: NodeClaim = {
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name },
      spec: claimSpec(),
      status: { providerID: 'sim://a' },
    };
    const created = await client.create(nc);
    expect(created.status).toEqual({ providerID: 'sim://a' });
    const updated = await client.update({
      ...created,
      spec: { ...created.spec, requirements: [{ key: 'a', operator: 'Exists' }] },
      status: { providerID: 'sim://b' },
    });
    expect([updated.spec.requirements, updated.status]).toEqual([
      [{ key: 'a', operator: 'Exists' }],
      { providerID: 'sim://b' },
    ]);
    const patched = await client.patch<NodeClaim>(
      { kind: 'NodeClaim', name },
      { metadata: { labels: { x: 'y' } }, status: { nodeName: 'n' } },
    );
    expect([patched.metadata.labels, patched.status]).toEqual([{ x: 'y' }, { providerID: 'sim://b', nodeName: 'n' }]);
    expect(await client.get({ kind: 'NodeClaim', name })).toEqual(patched);
  });

  it('a stale resourceVersion fails the whole patch with 409 before anything is written', async () => {
    const name = `${id}-nc2`;
    const created = await client.create<NodeClaim>({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name },
      spec: claimSpec(),
    });
    await client.patch({ kind: 'NodeClaim', name }, { metadata: { labels: { v: '1' } } });
    const err = await failure(
      client.patch(
        { kind: 'NodeClaim', name },
        { status: { nodeName: 'n' } },
        { resourceVersion: created.metadata.resourceVersion },
      ),
    );
    expect([err.code, err.reason]).toEqual([409, 'Conflict']);
    expect((await client.get<NodeClaim>({ kind: 'NodeClaim', name }))!.status).toBeUndefined();
  });
});

describe('server-side apply', () => {
  it('owns the fields kpol applies: reapplying without a label removes it, other managers keep theirs', async () => {
    const base = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned', namespace: ns } };
    await client.apply({ ...base, metadata: { ...base.metadata, labels: { 'kpol.dev/a': '1', 'kpol.dev/b': '1' } } });
    await client.patch({ kind: 'ConfigMap', namespace: ns, name: 'owned' }, { metadata: { labels: { team: 'x' } } });
    const after = await client.apply<KubeObject>({
      ...base,
      metadata: { ...base.metadata, labels: { 'kpol.dev/a': '2' } },
    });
    expect(after.metadata.labels).toEqual({ 'kpol.dev/a': '2', team: 'x' });
    expect(
      ((after.metadata as { managedFields?: { manager: string }[] }).managedFields ?? []).map((m) => m.manager),
    ).toContain('kpol');
  });

  it('a field another manager owns is a 409 conflict unless forced', async () => {
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'shared', namespace: ns },
      data: { k: 'theirs' },
    });
    const obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'shared', namespace: ns },
      data: { k: 'ours' },
    };
    expect((await failure(client.apply(obj))).code).toBe(409);
    expect((await client.apply<KubeObject>(obj, { force: true })).data).toEqual({ k: 'ours' });
  });
});

describe('binding', () => {
  it('a patch setting spec.nodeName binds the pod once; binding again is 409', async () => {
    const pod = imaged<Pod>({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: ns },
      spec: { schedulerName: 'nobody', containers: [{ name: 'c' }] } as Pod['spec'],
    });
    await client.create(pod);
    const bound = await client.patch<Pod>(
      { kind: 'Pod', namespace: ns, name: 'p' },
      { spec: { nodeName: 'node-a' }, metadata: { labels: { bound: 'yes' } } },
    );
    expect([bound.spec.nodeName, bound.metadata.labels]).toEqual(['node-a', { bound: 'yes' }]);
    expect(
      (await failure(client.patch({ kind: 'Pod', namespace: ns, name: 'p' }, { spec: { nodeName: 'node-b' } }))).code,
    ).toBe(409);
  });
});
