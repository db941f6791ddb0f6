// SPDX-License-Identifier: Apache-2.0
// Two `kpol run --kubeconfig --leader-election on` processes on the real control plane, as two
// replicas of the Deployment would run: policies come from a ConfigMap pushed with `kpol push`;
// one replica leads and writes the NodePool's status.disruption from that policy; a broken
// version applied with kubectl is refused (Warning Event naming the error) while the last good
// one stays in force; the fix takes effect; killing the leader hands over to the other replica;
// SIGTERM releases the Lease.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { NodePool } from '../../../src/core/cluster/types.js';
import type { Lease } from '../../../src/control/leader/lease-record.js';
import type { NodePoolDisruptionStatus } from '../../../src/control/reconciler/nodepool-status.js';
import { runCli } from '../../cli/run-cli.js';
import { closeKubeClient, createNamespace, kubeClient } from '../adapter/kube-backend.js';
import { eventually } from '../control-plane/eventually.js';
import { sharedControlPlane } from '../control-plane/inject.js';
import { kubectlOk } from '../control-plane/kubectl.js';

const ROOT = new URL('../../..', import.meta.url).pathname;
const cp = sharedControlPlane();
const id = randomBytes(3).toString('hex');
const ns = `kpol-replicas-${id}`;
const pool = `replicas-${id}`;
const children = new Map<string, ChildProcess>();
const tmp = mkdtempSync(join(tmpdir(), 'kpol-replicas-'));

const policy = (budget: string) => `policy pa for nodepool ${pool} {\n  budget ${budget}\n}\n`;
const configMap = (text: string) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'kpol-policies', namespace: ns, labels: { 'kpol.dev/policy': 'true' } },
    data: { 'p.kpol': text },
  });

function replica(name: string): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      `${ROOT}src/edge/cli/bin.mjs`,
      'run',
      '--kubeconfig',
      cp.kubeconfigPath,
      '--context',
      'kpol-test',
      '--leader-election',
      'on',
      '--namespace',
      ns,
      '--lease-duration',
      '4s',
      '--renew-deadline',
      '3s',
      '--retry-period',
      '500ms',
      '--port',
      '0',
      '--for',
      '300',
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, POD_NAME: name } },
  );
  children.set(name, child);
  return child;
}

afterAll(async () => {
  for (const c of children.values()) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  const client = await kubeClient();
  await client.delete({ kind: 'NodePool', name: pool }).catch(() => {});
  await closeKubeClient();
  await kubectlOk(cp.kubeconfigPath, ['delete', 'namespace', ns, '--wait=false']);
});

const lease = async () =>
  (JSON.parse(await kubectlOk(cp.kubeconfigPath, ['-n', ns, 'get', 'lease', 'kpol-controller', '-o', 'json'])) as Lease)
    .spec ?? {};
const drifted = async () => {
  const np = JSON.parse(await kubectlOk(cp.kubeconfigPath, ['get', 'nodepool', pool, '-o', 'json'])) as NodePool;
  const d = (np.status as { disruption?: NodePoolDisruptionStatus } | undefined)?.disruption;
  return d ? { policy: d.policy, budget: d.reasons.find((r) => r.reason === 'Drifted')?.budget } : undefined;
};

describe('two kpol replicas on a real cluster', () => {
  it(
    'one leads with the pushed policy; a broken version is refused, the fix applies; the ' +
      'leader is replaced when killed',
    async () => {
      const client = await kubeClient(); // installs the karpenter.sh CRDs if this file runs first
      await createNamespace(client, ns);
      const file = join(tmp, 'p.kpol');
      writeFileSync(file, policy('1 for Drifted'));
      const pushed = await runCli(
        'push',
        '--kubeconfig',
        cp.kubeconfigPath,
        '--context',
        'kpol-test',
        '--namespace',
        ns,
        file,
      );
      expect(pushed.stderr).not.toMatch(/ error /); // warnings (unlimited reasons) are fine
      expect(pushed.code).toBe(0);
      await client.create({
        apiVersion: 'karpenter.sh/v1',
        kind: 'NodePool',
        metadata: { name: pool },
        spec: {
          template: {
            spec: {
              nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
              requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }],
            },
          },
        },
      });

      replica('replica-a');
      replica('replica-b');
      const leader = await eventually(
        'a leader',
        async () => (await lease()).holderIdentity?.replace(/_[0-9a-f]+$/, '') || undefined,
      );
      const follower = leader === 'replica-a' ? 'replica-b' : 'replica-a';
      await eventually(
        'status.disruption from the pushed policy',
        async () => {
          const d = await drifted();
          return d?.policy === 'pa' && d.budget === 1 ? true : undefined;
        },
        90_000,
      );

      // A broken version applied past `kpol push` (which would refuse it): refused, last good kept.
      await kubectlOk(cp.kubeconfigPath, ['apply', '-f', '-'], configMap(policy('3 for Drifed')));
      const warning = await eventually('the Warning Event', async () => {
        const list = JSON.parse(await kubectlOk(cp.kubeconfigPath, ['-n', ns, 'get', 'events', '-o', 'json'])) as {
          items: { reason: string; type: string; message: string }[];
        };
        return list.items.find((e) => e.reason === 'PolicyInvalid' && e.type === 'Warning');
      });
      expect(warning.message).toContain(`configmap/${ns}/kpol-policies/p.kpol:2:16: error KPOL2001`);
      expect(await drifted()).toEqual({ policy: 'pa', budget: 1 });

      await kubectlOk(cp.kubeconfigPath, ['apply', '-f', '-'], configMap(policy('2 for Drifted')));
      await eventually(
        'the fixed policy in status',
        async () => ((await drifted())?.budget === 2 ? true : undefined),
        90_000,
      );

      // Kill the leader outright: the follower takes the Lease once it expires.
      const killed = children.get(leader)!;
      const gone = new Promise((resolve) => killed.once('exit', resolve));
      killed.kill('SIGKILL');
      await gone;
      await eventually(
        'the follower to take over',
        async () => ((await lease()).holderIdentity?.startsWith(`${follower}_`) ? true : undefined),
        90_000,
      );
      expect((await lease()).leaseTransitions).toBe(1);

      // The new leader acts: a policy change reaches status through it.
      await kubectlOk(cp.kubeconfigPath, ['apply', '-f', '-'], configMap(policy('4 for Drifted')));
      await eventually(
        'the new leader to write status',
        async () => ((await drifted())?.budget === 4 ? true : undefined),
        90_000,
      );

      // Graceful stop: exit 0 and the Lease released for the next replica.
      const last = children.get(follower)!;
      const exited = new Promise<number | null>((resolve) => last.once('exit', (code) => resolve(code)));
      last.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect((await lease()).holderIdentity).toBe('');
    },
    400_000,
  );
});
