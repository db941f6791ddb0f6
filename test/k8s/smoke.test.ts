// SPDX-License-Identifier: Apache-2.0
// The real control plane does what kpol relies on: kubectl applies objects, the ReplicaSet
// controller makes pods, the scheduler binds them to a Node created through the API, the
// disruption controller computes PDB status, the Eviction API refuses with 429, and the
// garbage collector removes a deleted Deployment's dependents. The steps share one namespace
// and run in order.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './control-plane/eventually.js';
import { sharedControlPlane } from './control-plane/inject.js';
import { kubectl, kubectlOk } from './control-plane/kubectl.js';

const cp = sharedControlPlane();
const id = randomBytes(3).toString('hex');
const ns = `kpol-smoke-${id}`;
const nodeName = `kpol-smoke-node-${id}`;
// Pods select this label, so nodes other test files create never take them.
const nodeLabel = { key: 'kpol.dev/smoke-node', value: id };

const manifests = `
apiVersion: v1
kind: Namespace
metadata: { name: ${ns} }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: ${ns} }
spec:
  replicas: 3
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      nodeSelector: { ${nodeLabel.key}: "${nodeLabel.value}" }
      containers:
        - name: web
          image: registry.k8s.io/pause:3.10
          resources: { requests: { cpu: 500m, memory: 256Mi } }
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: { name: web, namespace: ${ns} }
spec:
  minAvailable: 3
  selector: { matchLabels: { app: web } }
`;

interface Pod {
  metadata: { name: string; ownerReferences?: { kind: string; name: string }[]; deletionTimestamp?: string };
  spec: { nodeName?: string };
  status: { phase?: string; conditions?: { type: string; status: string; reason?: string }[] };
}

async function pods(): Promise<Pod[]> {
  const res = await cp.api.get(`/api/v1/namespaces/${ns}/pods`);
  expect(res.status).toBe(200);
  return res.body.items;
}

describe('a real control plane', () => {
  beforeAll(() => {
    expect(cp.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  afterAll(async () => {
    await kubectl(cp.kubeconfigPath, ['delete', 'namespace', ns, '--wait=false', '--ignore-not-found']);
    await kubectl(cp.kubeconfigPath, ['delete', 'node', nodeName, '--ignore-not-found']);
  });

  it('runs the pinned version for kubectl and every server', async () => {
    const out = JSON.parse(await kubectlOk(cp.kubeconfigPath, ['version', '-o', 'json']));
    expect(out.clientVersion.gitVersion).toBe(cp.version);
    expect(out.serverVersion.gitVersion).toBe(cp.version);
  });

  it('enforces RBAC: the admin may do anything, an unbound ServiceAccount nothing', async () => {
    const admin = await kubectl(cp.kubeconfigPath, ['auth', 'can-i', 'delete', 'nodes']);
    expect(admin.stdout.trim()).toBe('yes');
    const nobody = await kubectl(cp.kubeconfigPath, [
      'auth',
      'can-i',
      'list',
      'pods',
      '-n',
      'default',
      '--as=system:serviceaccount:default:kpol-nobody',
    ]);
    expect(nobody.stdout.trim()).toBe('no');
    expect(nobody.code).toBe(1);
  });

  it('kubectl applies a Namespace, a 3-replica Deployment and a PDB', async () => {
    const out = await kubectlOk(cp.kubeconfigPath, ['apply', '-f', '-'], manifests);
    expect(out).toContain(`namespace/${ns} created`);
    expect(out).toContain('deployment.apps/web created');
    expect(out).toContain('poddisruptionbudget.policy/web created');
  });

  it('the ReplicaSet controller creates 3 pods, which the scheduler finds no node for', async () => {
    const created = await eventually('3 pods reported Unschedulable', async () => {
      const list = await pods();
      const unschedulable = list.filter((p) =>
        p.status.conditions?.some(
          (c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable',
        ),
      );
      return unschedulable.length === 3 ? list : undefined;
    });
    expect(created).toHaveLength(3);
    for (const pod of created) {
      expect(pod.metadata.ownerReferences?.[0]?.kind).toBe('ReplicaSet');
      expect(pod.metadata.ownerReferences?.[0]?.name).toMatch(/^web-/);
      expect(pod.spec.nodeName).toBeUndefined();
    }
  });

  it('the scheduler binds the pods to a Ready Node created through the API', async () => {
    const quantities = { cpu: '4', memory: '8Gi', pods: '110' };
    const res = await cp.api.post('/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: nodeName, labels: { [nodeLabel.key]: nodeLabel.value, 'kubernetes.io/os': 'linux' } },
      spec: {},
      status: {
        capacity: quantities,
        allocatable: quantities,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'played by the test',
            lastHeartbeatTime: new Date().toISOString(),
            lastTransitionTime: new Date().toISOString(),
          },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.status.allocatable.cpu).toBe('4');
    // No not-ready taint: TaintNodesByCondition is off because nothing here would lift it.
    expect(res.body.spec.taints).toBeUndefined();

    const bound = await eventually('3 pods bound', async () => {
      const list = await pods();
      return list.every((p) => p.spec.nodeName === nodeName) && list.length === 3 ? list : undefined;
    });
    expect(bound.map((p) => p.spec.nodeName)).toEqual([nodeName, nodeName, nodeName]);
  });

  it('the disruption controller counts the Ready pods and allows 0 disruptions', async () => {
    // Play the kubelet: report each bound pod Running and Ready.
    const now = new Date().toISOString();
    for (const pod of await pods()) {
      const status = {
        status: {
          phase: 'Running',
          startTime: now,
          conditions: [
            { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
            { type: 'Initialized', status: 'True', lastTransitionTime: now },
            { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
            { type: 'Ready', status: 'True', lastTransitionTime: now },
          ],
        },
      };
      await kubectlOk(cp.kubeconfigPath, [
        'patch',
        'pod',
        pod.metadata.name,
        '-n',
        ns,
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify(status),
      ]);
    }
    const pdb = await eventually('PDB status with 3 healthy pods', async () => {
      const res = await cp.api.get(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/web`);
      return res.body.status?.currentHealthy === 3 ? res.body : undefined;
    });
    expect(pdb.status).toMatchObject({ currentHealthy: 3, desiredHealthy: 3, expectedPods: 3, disruptionsAllowed: 0 });
  });

  it('an Eviction of a guarded pod answers 429', async () => {
    const [pod] = await pods();
    const res = await cp.api.post(`/api/v1/namespaces/${ns}/pods/${pod!.metadata.name}/eviction`, {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: pod!.metadata.name, namespace: ns },
    });
    expect(res.status).toBe(429);
    expect(res.body.details?.causes?.[0]?.reason).toBe('DisruptionBudget');
    expect(
      (await cp.api.get(`/api/v1/namespaces/${ns}/pods/${pod!.metadata.name}`)).body.metadata.deletionTimestamp,
    ).toBeUndefined();
  });

  it('deleting the Deployment garbage-collects its ReplicaSet and pods', async () => {
    const rs = await cp.api.get(`/apis/apps/v1/namespaces/${ns}/replicasets`);
    expect(rs.body.items).toHaveLength(1);
    const rsName: string = rs.body.items[0].metadata.name;

    await kubectlOk(cp.kubeconfigPath, ['delete', 'deployment', 'web', '-n', ns, '--wait=false']);
    await eventually('ReplicaSet garbage-collected', async () =>
      (await cp.api.get(`/apis/apps/v1/namespaces/${ns}/replicasets/${rsName}`)).status === 404 ? true : undefined,
    );
    // Bound pods stay Terminating until their kubelet confirms; there is none, so finish the deletion as the node agent
    // would.
    const terminating = await eventually('pods Terminating', async () => {
      const list = await pods();
      return list.every((p) => p.metadata.deletionTimestamp) ? list : undefined;
    });
    expect(terminating).toHaveLength(3);
    await kubectlOk(cp.kubeconfigPath, ['delete', 'pods', '--all', '-n', ns, '--grace-period=0', '--force']);
    await eventually('pods gone', async () => ((await pods()).length === 0 ? true : undefined));
  });
});
