// SPDX-License-Identifier: Apache-2.0
// `kpol run --kubeconfig FILE --context NAME` as a user runs it, against the real control plane:
// a NodePool and a ReplicaSet applied, kpol launches capacity (NodeClaims, the simulated cloud
// registers their Nodes), kube-scheduler binds the pods there, the node agent runs them; the
// status page reports the pool; SIGTERM stops it cleanly.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { NodeClaim, Pod } from '../../../src/core/cluster/types.js';
import { eventually } from '../control-plane/eventually.js';
import { sharedControlPlane } from '../control-plane/inject.js';
import { closeKubeClient, createNamespace, kubeClient, PAUSE_IMAGE } from './kube-backend.js';

const ROOT = new URL('../../..', import.meta.url).pathname;
const id = randomBytes(3).toString('hex');
const ns = `kpol-run-${id}`;
const poolName = `run-${id}`;

describe('kpol run --kubeconfig', () => {
  const cp = sharedControlPlane();
  let child: ReturnType<typeof spawn> | undefined;
  let stdout = '';
  let stderr = '';

  afterAll(async () => {
    if (child?.exitCode === null) process.kill(child.pid!, 'SIGKILL');
    const client = await kubeClient();
    await client.delete({ kind: 'NodePool', name: poolName }).catch(() => {});
    for (const nc of await client.list<NodeClaim>('NodeClaim')) {
      if (!nc.metadata.name.startsWith(poolName)) continue;
      await client
        .patch({ kind: 'NodeClaim', name: nc.metadata.name }, { metadata: { finalizers: null } })
        .catch(() => {});
      await client.delete({ kind: 'NodeClaim', name: nc.metadata.name }).catch(() => {});
    }
    await closeKubeClient();
  });

  it('launches capacity for pending pods that kube-scheduler then binds, and stops on SIGTERM', async () => {
    const client = await kubeClient();
    await createNamespace(client, ns);
    await client.create({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodePool',
      metadata: { name: poolName },
      spec: {
        template: {
          metadata: { labels: { 'kpol.dev/run': id } },
          spec: {
            nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
            requirements: [
              { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
              { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] },
            ],
          },
        },
      },
    });
    await client.create({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web', namespace: ns },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            nodeSelector: { 'kpol.dev/run': id },
            containers: [{ name: 'web', image: PAUSE_IMAGE, resources: { requests: { cpu: '1', memory: '1Gi' } } }],
          },
        },
      },
    });

    child = spawn(
      process.execPath,
      [
        `${ROOT}src/edge/cli/bin.mjs`,
        'run',
        '--kubeconfig',
        cp.kubeconfigPath,
        '--context',
        'kpol-test',
        '--port',
        '0',
        '--for',
        '300',
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout!.on('data', (d) => {
      stdout += d;
    });
    child.stderr!.on('data', (d) => {
      stderr += d;
    });

    const base = await eventually(
      'the status page address',
      async () =>
        /status page (http:\/\/127\.0\.0\.1:\d+)\//.exec(stderr)?.[1] ??
        (child!.exitCode !== null
          ? Promise.reject(new Error(`kpol run exited ${child!.exitCode}: ${stderr}`))
          : undefined),
    );
    expect(stderr).toContain(`kpol: cluster ${cp.server}`);

    const running = await eventually(
      'both pods Running on kpol-launched nodes',
      async () => {
        const pods = await client.list<Pod>('Pod', ns);
        return pods.length === 2 && pods.every((p) => p.spec.nodeName && p.status?.phase === 'Running')
          ? pods
          : undefined;
      },
      120_000,
    );
    const claims = (await client.list<NodeClaim>('NodeClaim')).filter(
      (nc) => nc.metadata.labels?.['karpenter.sh/nodepool'] === poolName,
    );
    expect(claims.length).toBeGreaterThan(0);
    const nodeNames = new Set(claims.map((nc) => nc.status?.nodeName));
    for (const p of running) expect(nodeNames.has(p.spec.nodeName)).toBe(true);
    // Bound by kube-scheduler, not by kpol: the scheduler records the Scheduled event's reporter in the condition.
    for (const p of running) expect(p.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status).toBe('True');

    const status = await eventually('the pool on the status page', async () => {
      const body = (await (await fetch(`${base}/api/status`)).json()) as {
        nodePools: Record<string, { nodes: number }>;
      };
      return body.nodePools[poolName]?.nodes ? body : undefined;
    });
    expect(status.nodePools[poolName].nodes).toBe(claims.length);

    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const line of stdout
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{')))
      expect(() => JSON.parse(line)).not.toThrow();
    expect(stdout).toContain('"msg":"stopped"');
  }, 240_000);
});
