// SPDX-License-Identifier: Apache-2.0
// deploy/ on a real API server, in a control plane of its own (the shared one carries the
// adapter tests' permissive CRDs): kubectl applies the CRDs and each mode's manifests, standalone
// then govern (the second replaces the first); the API server's pattern and CEL validation
// refuses bad NodePools and accepts every Karpenter NodePool in rules/examples and the test
// snapshots, filling Karpenter's defaults; status.disruption written by kpol survives the schema;
// in each mode the ServiceAccount can make each request the controller makes, and nothing else.
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { KubeClusterClient } from '../../../src/edge/kube/kube-cluster.js';
import { loadKubeConfig } from '../../../src/edge/kube/kube-config.js';
import { NodePoolStatusWriter } from '../../../src/control/reconciler/nodepool-status.js';
import type { ApiRequest } from '../../deploy/api-inventory.js';
import { exerciseController } from '../../deploy/exercise.js';
import { exerciseGovernor } from '../../deploy/exercise-govern.js';
import { MODES, type Mode } from '../../deploy/manifests.js';
import { kubectl, kubectlOk } from '../control-plane/kubectl.js';
import { startControlPlane, type ControlPlane } from '../control-plane/start-control-plane.js';

const ROOT = new URL('../../../', import.meta.url).pathname;
let cp: ControlPlane;

beforeAll(async () => {
  cp = await startControlPlane();
  await kubectlOk(cp.kubeconfigPath, ['apply', '-f', join(ROOT, 'deploy/crds')]);
  await kubectlOk(cp.kubeconfigPath, [
    'wait',
    '--for=condition=Established',
    'crd/nodepools.karpenter.sh',
    'crd/nodeclaims.karpenter.sh',
    '--timeout=60s',
  ]);
}, 180_000);
afterAll(async () => {
  await cp?.stop();
});

const nodePool = (name: string, disruption: Record<string, unknown>, templateSpec: Record<string, unknown> = {}) =>
  stringify({
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      disruption,
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
          ...templateSpec,
        },
      },
    },
  });

/** Every NodePool in the shipped examples and test snapshots, as a user would apply it. */
function fixtureNodePools(): Record<string, any>[] {
  const files = [
    ...readdirSync(join(ROOT, 'rules/examples/clusters')).map((f) => join(ROOT, 'rules/examples/clusters', f)),
    join(ROOT, 'rules/examples/demo/cluster.yaml'),
    ...readdirSync(join(ROOT, 'test/fixtures/snapshots')).map((f) => join(ROOT, 'test/fixtures/snapshots', f)),
  ].filter((f) => f.endsWith('.yaml'));
  // Renamed `<file>-<name>`: several fixtures have a NodePool `default`, each must be checked.
  return files
    .flatMap((f) =>
      parseAllDocuments(readFileSync(f, 'utf8')).map((d) => ({ stem: basename(f, '.yaml'), doc: d.toJS() })),
    )
    .flatMap(({ stem, doc }) => (doc?.kind === 'List' ? doc.items : [doc]).map((o: any) => ({ stem, o })))
    .filter(({ o }) => o?.kind === 'NodePool')
    .map(({ stem, o }) => ({
      apiVersion: o.apiVersion,
      kind: o.kind,
      metadata: { name: `${stem}-${o.metadata.name}`.toLowerCase() },
      spec: o.spec,
    }));
}

describe('the CRDs on kube-apiserver', () => {
  it.each([
    ['budget nodes "abc"', { budgets: [{ nodes: 'abc' }] }, /spec\.disruption\.budgets\[0\]\.nodes.*should match/],
    ['budget nodes "101%"', { budgets: [{ nodes: '101%' }] }, /budgets\[0\]\.nodes/],
    [
      'schedule without duration',
      { budgets: [{ nodes: '1', schedule: '@daily' }] },
      /'schedule' must be set with 'duration'/,
    ],
    ['reason "expired"', { budgets: [{ nodes: '1', reasons: ['expired'] }] }, /Unsupported value: "expired"/],
    ['duration "30s"', { budgets: [{ nodes: '1', schedule: '@daily', duration: '30s' }] }, /budgets\[0\]\.duration/],
    [
      'schedule "@every 1h"',
      { budgets: [{ nodes: '1', schedule: '@every 1h', duration: '1h' }] },
      /budgets\[0\]\.schedule/,
    ],
    ['consolidateAfter "1hr"', { consolidateAfter: '1hr' }, /consolidateAfter/],
    ['consolidationPolicy "WhenIdle"', { consolidationPolicy: 'WhenIdle' }, /Unsupported value: "WhenIdle"/],
  ])('refuses %s', async (_, disruption, message) => {
    const r = await kubectl(cp.kubeconfigPath, ['apply', '--dry-run=server', '-f', '-'], nodePool('bad', disruption));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
  });

  it('refuses expireAfter "never" and terminationGracePeriod "Never"', async () => {
    for (const spec of [{ expireAfter: 'never' }, { terminationGracePeriod: 'Never' }]) {
      const r = await kubectl(cp.kubeconfigPath, ['apply', '--dry-run=server', '-f', '-'], nodePool('bad', {}, spec));
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/expireAfter|terminationGracePeriod/);
    }
  });

  it('accepts every NodePool of the Karpenter fixtures', async () => {
    const pools = fixtureNodePools();
    expect(pools.length).toBeGreaterThan(8);
    for (const p of pools) {
      const r = await kubectl(cp.kubeconfigPath, ['apply', '-f', '-'], stringify(p));
      expect(r.stderr, p.metadata.name).toBe('');
      expect(r.code).toBe(0);
    }
  });

  it("fills Karpenter's defaults", async () => {
    await kubectlOk(cp.kubeconfigPath, ['apply', '-f', '-'], nodePool('defaults', undefined as never));
    const np = JSON.parse(await kubectlOk(cp.kubeconfigPath, ['get', 'nodepool', 'defaults', '-o', 'json']));
    expect(np.spec.disruption).toEqual({
      consolidateAfter: '0s',
      consolidationPolicy: 'WhenEmptyOrUnderutilized',
      budgets: [{ nodes: '10%' }],
    });
    expect(np.spec.template.spec.expireAfter).toBe('720h');
  });

  it('keeps status.disruption as kpol writes it through the status subresource', async () => {
    await kubectlOk(cp.kubeconfigPath, ['apply', '-f', '-'], nodePool('status', { budgets: [{ nodes: '1' }] }));
    const client = new KubeClusterClient(loadKubeConfig({ kubeconfig: cp.kubeconfigPath }));
    try {
      const evaluation = {
        at: '2026-11-22T10:00:00Z',
        nodePools: {
          status: {
            policy: 'nodepool/status',
            nodes: 3,
            disrupting: 1,
            budgets: { Empty: 1, Drifted: null },
            allowed: { Empty: 0, Drifted: null },
            errors: [],
          },
        },
        nodes: {},
        decisions: [],
        warnings: [],
      };
      const writer = new NodePoolStatusWriter(client);
      expect(await writer.reconcile(evaluation)).toEqual(['status']);
      const np = JSON.parse(await kubectlOk(cp.kubeconfigPath, ['get', 'nodepool', 'status', '-o', 'json']));
      expect(np.status.disruption).toEqual({
        policy: 'nodepool/status',
        nodes: 3,
        disrupting: 1,
        errors: [],
        lastTransitionTime: '2026-11-22T10:00:00Z',
        reasons: [
          { reason: 'Empty', budget: 1, allowed: 0, disrupting: 1 },
          { reason: 'Drifted', disrupting: 1 },
        ],
      });
      expect(await writer.reconcile(evaluation)).toEqual([]); // read back, it compares equal: no second write
    } finally {
      client.close();
    }
  });
});

const applyMode = async (mode: Mode) => {
  for (const p of MODES[mode]) await kubectlOk(cp.kubeconfigPath, ['apply', '-f', join(ROOT, p)]);
  const dep = JSON.parse(
    await kubectlOk(cp.kubeconfigPath, ['-n', 'kpol-system', 'get', 'deployment', 'kpol', '-o', 'json']),
  );
  expect(dep.spec.replicas).toBe(2);
  expect(dep.spec.template.spec.containers[0].args.slice(0, 4)).toEqual(['run', '--in-cluster', '--mode', mode]);
};

const as = ['--as=system:serviceaccount:kpol-system:kpol'];

async function canMakeEach(requests: ApiRequest[]): Promise<void> {
  for (const q of requests) {
    const resource = q.group ? `${q.resource.split('/')[0]}.${q.group}` : q.resource.split('/')[0];
    const sub = q.resource.includes('/') ? [`--subresource=${q.resource.split('/')[1]}`] : [];
    const where = q.namespace ? ['-n', q.namespace] : ['--all-namespaces'];
    const named = q.name ? `${resource}/${q.name}` : resource;
    const r = await kubectl(cp.kubeconfigPath, ['auth', 'can-i', q.verb, named, ...sub, ...where, ...as]);
    expect(`${r.stdout.trim()} ${q.verb} ${q.resource} ${q.namespace ?? '*'}`).toBe(
      `yes ${q.verb} ${q.resource} ${q.namespace ?? '*'}`,
    );
  }
}

async function cannot(checks: string[][]): Promise<void> {
  for (const [verb, resource, ns] of checks) {
    const r = await kubectl(cp.kubeconfigPath, ['auth', 'can-i', verb, resource, ...(ns ? ['-n', ns] : []), ...as]);
    expect(`${r.stdout.trim()} ${verb} ${resource} ${ns ?? '*'}`).toBe(`no ${verb} ${resource} ${ns ?? '*'}`);
  }
}

const NEVER = [
  ['delete', 'configmaps', 'default'],
  ['get', 'secrets', 'kpol-system'],
  ['patch', 'configmaps', 'default'],
  ['update', 'leases.coordination.k8s.io', 'default'],
  ['get', 'customresourcedefinitions.apiextensions.k8s.io/ec2nodeclasses.karpenter.k8s.aws', 'default'],
];

describe('the manifests on kube-apiserver', () => {
  it('standalone mode: the ServiceAccount may make every request the controller makes, and not others', async () => {
    await applyMode('standalone');
    const { requests } = await exerciseController();
    await canMakeEach(requests);
    await cannot(NEVER);
  });

  it(
    'govern mode replaces it: kubectl applies deploy/; the ServiceAccount may make every ' +
      "request govern mode makes, and none of the simulated cloud's",
    async () => {
      await applyMode('govern');
      const { requests } = await exerciseGovernor();
      await canMakeEach(requests);
      await cannot([
        ...NEVER,
        ['create', 'nodes'],
        ['get', 'nodes'],
        ['create', 'nodeclaims.karpenter.sh'],
        ['create', 'pods/eviction', 'default'],
        ['update', 'nodeclaims.karpenter.sh'],
        ['delete', 'pods', 'default'],
      ]);
    },
  );
});
