// SPDX-License-Identifier: Apache-2.0
// Leader election on a real coordination.k8s.io/v1 Lease, with short timings: two candidates,
// one leads; a leader that stops renewing (killed) is replaced; a graceful stop hands over at
// once. Both candidates are sampled throughout: never two leaders at the same moment.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/core/clock.js';
import { KubeClusterClient } from '../../../src/edge/kube/kube-cluster.js';
import { loadKubeConfig } from '../../../src/edge/kube/kube-config.js';
import { LeaderElector } from '../../../src/control/leader/lease-elector.js';
import type { Lease } from '../../../src/control/leader/lease-record.js';
import { eventually } from '../control-plane/eventually.js';
import { sharedControlPlane } from '../control-plane/inject.js';
import { kubectlOk } from '../control-plane/kubectl.js';

const cp = sharedControlPlane();
const ns = `kpol-lease-${randomBytes(3).toString('hex')}`;
const wallClock: Clock = { now: () => Date.now() };
const clients: KubeClusterClient[] = [];

/** A candidate whose renewals can be cut off as if its process died (no release). */
function candidate(identity: string) {
  const client = new KubeClusterClient(loadKubeConfig({ kubeconfig: cp.kubeconfigPath }));
  clients.push(client);
  let killed = false;
  const elector = new LeaderElector({
    client,
    clock: wallClock,
    namespace: ns,
    name: 'kpol-controller',
    identity,
    leaseDurationMs: 3000,
    renewDeadlineMs: 2000,
    retryPeriodMs: 500,
    wait: (ms) =>
      new Promise((resolve) => {
        if (!killed) setTimeout(resolve, ms);
      }),
  });
  const running = elector.run();
  return {
    elector,
    running,
    kill: () => {
      killed = true;
    },
  };
}

beforeAll(async () => {
  await kubectlOk(cp.kubeconfigPath, ['create', 'namespace', ns]);
});
afterAll(async () => {
  for (const c of clients) c.close();
  await kubectlOk(cp.kubeconfigPath, ['delete', 'namespace', ns, '--wait=false']);
});

const lease = async () =>
  JSON.parse(await kubectlOk(cp.kubeconfigPath, ['-n', ns, 'get', 'lease', 'kpol-controller', '-o', 'json'])) as Lease;

describe('leader election on a real Lease', () => {
  it('one leads; a killed leader is replaced; a graceful stop hands over', async () => {
    const a = candidate('a');
    const b = candidate('b');
    let overlap = 0;
    const sampler = setInterval(() => {
      if (a.elector.isLeader() && b.elector.isLeader()) overlap++;
    }, 20);
    try {
      const first = await eventually('a leader', async () => [a, b].find((c) => c.elector.isLeader()));
      const second = first === a ? b : a;
      expect((await lease()).spec?.holderIdentity).toBe(first.elector.identity);

      first.kill();
      await eventually('the other candidate to take over', async () => (second.elector.isLeader() ? true : undefined));
      expect(first.elector.isLeader()).toBe(false);
      expect((await lease()).spec).toMatchObject({ holderIdentity: second.elector.identity, leaseTransitions: 1 });

      // A third candidate, then a graceful stop of the leader: the lease is released and taken.
      const c = candidate('c');
      second.elector.stop();
      await second.running;
      await eventually('the third candidate to take over', async () => (c.elector.isLeader() ? true : undefined));
      expect((await lease()).spec).toMatchObject({ holderIdentity: 'c', leaseTransitions: 2 });
      c.elector.stop();
      await c.running;
      expect((await lease()).spec?.holderIdentity).toBe('');
    } finally {
      clearInterval(sampler);
    }
    expect(overlap).toBe(0);
  });
});
