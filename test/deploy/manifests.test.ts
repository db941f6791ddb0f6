// SPDX-License-Identifier: Apache-2.0
// deploy/: every manifest parses; each mode (govern: deploy/, next to Karpenter; standalone:
// deploy/standalone/ with deploy/crds/) installs the same objects by name, so applying one
// replaces the other; the CRDs carry Karpenter's validation (KARPENTER.md#budget-fields), whose patterns are
// checked here against the accept/reject lists of KARPENTER.md#budget-fields; the Deployment runs what the CLI
// accepts, hardened, with probes where the probe server listens; the example policy is the
// shipped example and checks clean.
import { relative } from 'node:path';
import { RUN_MODE_FLAGS } from '../../src/edge/cli/shared/run-mode.js';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLUSTER_RUN_FLAGS, clusterRunFlags } from '../../src/edge/cli/shared/cluster-run-flags.js';
import { parse } from '../../src/edge/cli/commands/command.js';
import { runCommand } from '../../src/edge/cli/commands/run.js';
import { DEFAULT_NAMESPACE } from '../../src/edge/cli/shared/cluster-factory.js';
import { LABEL_POLICY_CONFIGMAP } from '../../src/core/cluster/types.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { DEPLOY, MODES, applyCommand, find, manifestFiles, objects, readManifest, type Mode } from './manifests.js';

const modes = Object.keys(MODES) as Mode[];
const crdSchema = (name: string) =>
  find('standalone', 'CustomResourceDefinition', name)!.spec.versions[0].schema.openAPIV3Schema;
const budgets = () => crdSchema('nodepools.karpenter.sh').properties.spec.properties.disruption.properties.budgets;
const pattern = (p: string) => new RegExp(p); // these patterns use nothing where RE2 and JS differ

describe('deploy/ manifests', () => {
  it.each(manifestFiles().map((f) => relative(DEPLOY, f)))(
    '%s parses, with an SPDX header, every object named',
    (file) => {
      const m = readManifest(`${DEPLOY}${file}`);
      expect(m.errors).toEqual([]);
      expect(m.text.startsWith('# SPDX-License-Identifier: Apache-2.0\n')).toBe(true);
      expect(m.objects.length).toBeGreaterThan(0);
      for (const o of m.objects)
        expect(o).toMatchObject({
          apiVersion: expect.any(String),
          kind: expect.any(String),
          metadata: { name: expect.any(String) },
        });
    },
  );

  it.each(modes)('%s: namespaced objects live in the namespace the CLI defaults to', (mode) => {
    const namespaced = objects(mode).filter(
      (o) => !['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding'].includes(o.kind),
    );
    expect(namespaced.length).toBeGreaterThan(4);
    for (const o of namespaced) expect(o.metadata.namespace).toBe(DEFAULT_NAMESPACE);
    expect(find(mode, 'Namespace', DEFAULT_NAMESPACE)).toBeDefined();
  });

  it('govern mode installs no CRD (Karpenter ships them); standalone mode installs both', () => {
    expect(objects('govern').filter((o) => o.kind === 'CustomResourceDefinition')).toEqual([]);
    expect(
      objects('standalone')
        .filter((o) => o.kind === 'CustomResourceDefinition')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['nodeclaims.karpenter.sh', 'nodepools.karpenter.sh']);
  });

  it('both modes install the same objects by name, so applying one mode replaces the other', () => {
    const names = (mode: Mode) =>
      objects(mode)
        .filter((o) => o.kind !== 'CustomResourceDefinition')
        .map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`)
        .sort();
    expect(names('standalone')).toEqual(names('govern'));
    expect(new Set(names('govern')).size).toBe(names('govern').length);
  });

  it.each(modes)('deploy/README.md gives the %s install command', (mode) => {
    expect(readFileSync(`${DEPLOY}README.md`, 'utf8')).toContain(applyCommand(mode));
  });
});

describe('CRDs (KARPENTER.md#budget-fields)', () => {
  it('both are karpenter.sh/v1, cluster-scoped, with the status subresource', () => {
    for (const name of ['nodepools.karpenter.sh', 'nodeclaims.karpenter.sh']) {
      const crd = find('standalone', 'CustomResourceDefinition', name)!;
      expect(crd.spec).toMatchObject({ group: 'karpenter.sh', scope: 'Cluster' });
      expect(crd.spec.versions).toEqual([
        expect.objectContaining({ name: 'v1', served: true, storage: true, subresources: { status: {} } }),
      ]);
    }
  });

  it('budgets: the CEL rule, maxItems, list type, default, reasons enum', () => {
    const b = budgets();
    expect(b['x-kubernetes-validations']).toEqual([
      { rule: 'self.all(x, has(x.schedule) == has(x.duration))', message: "'schedule' must be set with 'duration'" },
    ]);
    expect(b).toMatchObject({ maxItems: 50, 'x-kubernetes-list-type': 'atomic', default: [{ nodes: '10%' }] });
    expect(b.items.required).toEqual(['nodes']);
    expect(b.items.properties.reasons).toMatchObject({
      maxItems: 50,
      'x-kubernetes-list-type': 'set',
      items: { enum: ['Underutilized', 'Empty', 'Drifted'] },
    });
    const d = crdSchema('nodepools.karpenter.sh').properties.spec.properties.disruption.properties;
    expect(d.consolidationPolicy).toMatchObject({
      enum: ['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced'],
      default: 'WhenEmptyOrUnderutilized',
    });
  });

  const nodes = () => pattern(budgets().items.properties.nodes.pattern);
  const schedule = () => pattern(budgets().items.properties.schedule.pattern);
  const duration = () => pattern(budgets().items.properties.duration.pattern);
  const never = () =>
    pattern(
      crdSchema('nodepools.karpenter.sh').properties.spec.properties.disruption.properties.consolidateAfter.pattern,
    );
  const templateSpec = () =>
    crdSchema('nodepools.karpenter.sh').properties.spec.properties.template.properties.spec.properties;

  it.each([
    [
      'nodes',
      nodes,
      ['0', '05', '1000', '0%', '9%', '99%', '100%'],
      ['101%', '1000%', '-10', '-10%', '10.5%', '', ' 10', 'abc'],
    ],
    [
      'schedule',
      schedule,
      ['@daily', '@dailyfoo', '* * * * * *', 'TZ=Europe/Berlin 0 0 * * *', 'a b c d e', '0 9 * * mon-fri'],
      ['*', '* * * * ', '@every 1h'],
    ],
    [
      'duration',
      duration,
      ['1h', '30m', '1h30m', '2h20m', '160h', '1h30m0s', '10m0s', '1h0s', '0m'],
      ['30s', '90s', '1h30m5s', '1d', '1.5h', '-20m'],
    ],
    ['consolidateAfter', never, ['0s', '30s', '1h30m5s', '720h', 'Never'], ['never', 'FooNever', '-1s', '1hr', '1.5h']],
  ])('%s pattern accepts and rejects what Karpenter does', (_, re, accepted, rejected) => {
    for (const s of accepted) expect(re().test(s), s).toBe(true);
    for (const s of rejected) expect(re().test(s), s).toBe(false);
  });

  it('expireAfter shares the Never pattern with its 720h default; terminationGracePeriod has no Never', () => {
    const t = templateSpec();
    expect(t.expireAfter).toMatchObject({ default: '720h', pattern: never().source });
    const tgp = pattern(t.terminationGracePeriod.pattern);
    expect(['30s', '1h30m', '24h'].every((s) => tgp.test(s))).toBe(true);
    expect(['Never', '1.5h', ''].some((s) => tgp.test(s))).toBe(false);
    expect(crdSchema('nodeclaims.karpenter.sh').properties.spec.properties.expireAfter.pattern).toBe(
      t.expireAfter.pattern,
    );
  });

  it('status.disruption has the shape src/control/reconciler/nodepool-status.ts writes', () => {
    const d = crdSchema('nodepools.karpenter.sh').properties.status.properties.disruption;
    expect(Object.keys(d.properties).sort()).toEqual([
      'disrupting',
      'errors',
      'lastTransitionTime',
      'nodes',
      'policy',
      'reasons',
    ]);
    expect(Object.keys(d.properties.reasons.items.properties).sort()).toEqual([
      'allowed',
      'budget',
      'disrupting',
      'reason',
    ]);
  });
});

describe.each(modes)('Deployment (%s)', (mode) => {
  const dep = () => find(mode, 'Deployment', 'kpol')!;
  const pod = () => dep().spec.template.spec;
  const container = () => pod().containers[0];

  it(
    'two replicas of `kpol run --in-cluster --mode <mode>` as the kpol ServiceAccount, with ' +
      'the namespace and name from the downward API',
    () => {
      expect(dep().spec.replicas).toBe(2);
      expect(pod().serviceAccountName).toBe(find(mode, 'ServiceAccount', 'kpol')!.metadata.name);
      expect(container().args.slice(0, 4)).toEqual(['run', '--in-cluster', '--mode', mode]);
      expect(
        container()
          .env.map((e: { name: string }) => e.name)
          .sort(),
      ).toEqual(['NODE_OPTIONS', 'POD_NAME', 'POD_NAMESPACE']);
    },
  );

  it("V8's heap limit is three quarters of the container's memory limit", () => {
    const options = container().env.find((e: { name: string }) => e.name === 'NODE_OPTIONS').value as string;
    const heapMiB = Number(/^--max-old-space-size=(\d+)$/.exec(options)?.[1]);
    const limit = /^(\d+)(Mi|Gi)$/.exec(container().resources.limits.memory as string)!;
    const limitMiB = Number(limit[1]) * (limit[2] === 'Gi' ? 1024 : 1);
    expect(heapMiB).toBe(limitMiB * 0.75);
  });

  it('its arguments are ones `kpol run` accepts, and the probes reach the probe server', () => {
    const args: string[] = container().args.slice(1);
    const { values } = parse(
      args,
      {
        ...RUN_MODE_FLAGS,
        port: { type: 'string' },
        'in-cluster': { type: 'boolean' },
        ...CLUSTER_RUN_FLAGS,
      },
      runCommand.usage,
    );
    const flags = clusterRunFlags(values, { POD_NAMESPACE: DEFAULT_NAMESPACE, POD_NAME: 'kpol-0' });
    const probePort = container().ports.find(
      (p: { name: string }) => p.name === container().livenessProbe.httpGet.port,
    ).containerPort;
    expect(flags.probePort).toBe(probePort);
    expect(container().livenessProbe.httpGet.path).toBe('/healthz');
    expect(container().readinessProbe.httpGet.path).toBe('/readyz');
    expect(container().readinessProbe.httpGet.port).toBe(container().livenessProbe.httpGet.port);
    expect(flags.leaderElection).toBeDefined();
  });

  it(
    'runs hardened: non-root, read-only root filesystem, no capabilities, RuntimeDefault ' +
      'seccomp, an emptyDir at /tmp, resources',
    () => {
      expect(pod().securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: expect.any(Number),
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(pod().securityContext.runAsUser).toBeGreaterThan(0);
      expect(container().securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      const tmp = container().volumeMounts.find((m: { mountPath: string }) => m.mountPath === '/tmp');
      expect(pod().volumes.find((v: { name: string }) => v.name === tmp.name)).toEqual({
        name: tmp.name,
        emptyDir: {},
      });
      expect(container().resources).toMatchObject({
        requests: { cpu: expect.any(String), memory: expect.any(String) },
        limits: { memory: expect.any(String) },
      });
    },
  );

  it(
    "runs the image's ENTRYPOINT (no command), and the image is the one deploy/README.md " +
      'builds with deploy/Dockerfile',
    () => {
      expect(container().command).toBeUndefined();
      expect(container().image).toBe('ghcr.io/kpol-dev/kpol:0.1.0');
      expect(readFileSync(`${DEPLOY}README.md`, 'utf8')).toContain(
        `docker build -f deploy/Dockerfile -t ${container().image} .`,
      );
    },
  );
});

it('the standalone Deployment is the govern one but for --mode', () => {
  const standalone = structuredClone(find('standalone', 'Deployment', 'kpol')!);
  const args: string[] = standalone.spec.template.spec.containers[0].args;
  args[args.indexOf('--mode') + 1] = 'govern';
  expect(standalone).toEqual(find('govern', 'Deployment', 'kpol'));
});

describe('example policy ConfigMap', () => {
  it('is labelled, holds rules/examples/business-hours.kpol verbatim, and checks without errors', () => {
    const cm = find('govern', 'ConfigMap', 'kpol-policies')!;
    expect(cm.metadata.labels[LABEL_POLICY_CONFIGMAP]).toBe('true');
    const example = readFileSync(new URL('../../rules/examples/business-hours.kpol', import.meta.url), 'utf8');
    expect(cm.data).toEqual({ 'business-hours.kpol': example });
    expect(loadPolicies([{ fileName: 'business-hours.kpol', text: cm.data['business-hours.kpol'] }]).ok).toBe(true);
  });
});
