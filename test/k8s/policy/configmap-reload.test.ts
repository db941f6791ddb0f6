// SPDX-License-Identifier: Apache-2.0
// Policies in ConfigMaps on a real API server: applied with kubectl as a user would, watched
// through the adapter's informer, a broken version refused (the last good one stays in force,
// a Warning Event and the status annotation name the error), and the fix taking effect.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../../src/core/clock.js';
import { KubeClusterClient } from '../../../src/edge/kube/kube-cluster.js';
import { loadKubeConfig } from '../../../src/edge/kube/kube-config.js';
import { EventLog } from '../../../src/core/observe/event-log.js';
import { mirrorEventsToCluster } from '../../../src/core/observe/cluster-events.js';
import { ConfigMapPolicies } from '../../../src/core/policy/configmap-policies.js';
import { eventually } from '../control-plane/eventually.js';
import { sharedControlPlane } from '../control-plane/inject.js';
import { kubectlOk } from '../control-plane/kubectl.js';

const cp = sharedControlPlane();
const ns = `kpol-policy-${randomBytes(3).toString('hex')}`;
const wallClock: Clock = { now: () => Date.now() };

const configMap = (budget: string) => `
apiVersion: v1
kind: ConfigMap
metadata:
  name: kpol-policies
  namespace: ${ns}
  labels: { kpol.dev/policy: "true" }
data:
  p.kpol: |
    policy pa for nodepool a {
      budget ${budget}
    }
`;

let client: KubeClusterClient;
let store: ConfigMapPolicies;
let stopEvents: () => void;

beforeAll(async () => {
  await kubectlOk(cp.kubeconfigPath, ['create', 'namespace', ns]);
  client = new KubeClusterClient(loadKubeConfig({ kubeconfig: cp.kubeconfigPath }));
  const events = new EventLog(wallClock);
  stopEvents = mirrorEventsToCluster(events, { client, clock: wallClock, instance: 'test' });
  store = new ConfigMapPolicies({ client, clock: wallClock, namespace: ns, recorder: events });
});

afterAll(async () => {
  store?.stop();
  stopEvents?.();
  client?.close();
  await kubectlOk(cp.kubeconfigPath, ['delete', 'namespace', ns, '--wait=false']);
});

const budgetOf = () => store.policies.find((p) => p.name === 'pa')?.budgets[0]?.nodes;
const annotation = async () =>
  (
    await kubectlOk(cp.kubeconfigPath, [
      '-n',
      ns,
      'get',
      'configmap',
      'kpol-policies',
      '-o',
      'jsonpath={.metadata.annotations.kpol\\.dev/status}',
    ])
  ).trim();

describe('policy ConfigMaps on a real API server', () => {
  it('loads, refuses a broken push while enforcing the last good version, and takes the fix', async () => {
    await kubectlOk(cp.kubeconfigPath, ['apply', '-f', '-'], configMap('3'));
    await store.start();
    await eventually('the policy to load', async () => (budgetOf()?.value === 3 ? true : undefined));
    await eventually('the valid annotation', async () => ((await annotation()) === 'valid' ? true : undefined));

    await kubectlOk(cp.kubeconfigPath, ['apply', '-f', '-'], configMap('3 for Drifed'));
    const status = await eventually('the error annotation', async () => {
      const a = await annotation();
      return a.startsWith(`configmap/${ns}/kpol-policies/p.kpol:2:16: error KPOL2001`) ? a : undefined;
    });
    expect(status).toContain('Drifed');
    expect(budgetOf()).toEqual({ kind: 'count', value: 3 }); // the last good version stays
    const event = await eventually('the Warning Event', async () => {
      const list = JSON.parse(await kubectlOk(cp.kubeconfigPath, ['-n', ns, 'get', 'events', '-o', 'json'])) as {
        items: { reason: string; type: string; message: string; involvedObject: { kind: string; name: string } }[];
      };
      return list.items.find((e) => e.reason === 'PolicyInvalid');
    });
    expect(event).toMatchObject({ type: 'Warning', involvedObject: { kind: 'ConfigMap', name: 'kpol-policies' } });
    expect(event.message).toContain(`configmap/${ns}/kpol-policies/p.kpol:2:16`);

    await kubectlOk(cp.kubeconfigPath, ['apply', '-f', '-'], configMap('5'));
    await eventually('the fixed policy to apply', async () => (budgetOf()?.value === 5 ? true : undefined));
    await eventually('the valid annotation again', async () => ((await annotation()) === 'valid' ? true : undefined));
  });
});
