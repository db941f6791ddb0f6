// SPDX-License-Identifier: Apache-2.0
// What the govern-mode tests share: objects for the real Karpenter (NodePools on its KWOK node
// class, Deployments pinned to a pool, policy ConfigMaps), kpol started in govern mode as a
// process, and readings taken from Karpenter's side only — its NodeClaims, Nodes, events and
// /metrics — so that a test judges what Karpenter did, not what kpol says it asked for.
import { expect } from 'vitest';
import { eventually } from '../control-plane/eventually.js';
import { kubectl, kubectlOk } from '../control-plane/kubectl.js';
import { startKpol, type KpolProcess } from '../e2e/kpol-process.js';
import { sharedKarpenter } from './inject.js';
import { deployment, nodePool, toYaml, type DeploymentOptions } from './manifests.js';
import { allowedDisruptions } from './metrics.js';

export const KPOL_NAMESPACE = 'kpol-system';
const MINUTE = 60_000;

export interface Obj {
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
    creationTimestamp?: string;
    uid?: string;
  };
  spec?: Record<string, unknown> & { taints?: { key: string; effect: string }[] };
  status?: {
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
    nodeName?: string;
    phase?: string;
  };
}

export class Cluster {
  constructor(
    readonly kubeconfigPath: string,
    readonly karpenterMetricsUrl: string,
  ) {}

  kubectl(args: string[], stdin?: string): Promise<string> {
    return kubectlOk(this.kubeconfigPath, args, stdin);
  }

  apply(yaml: string): Promise<string> {
    return this.kubectl(['apply', '--server-side', '--field-manager=test-user', '-f', '-'], yaml);
  }

  async list(kind: string, args: string[] = []): Promise<Obj[]> {
    return (JSON.parse(await this.kubectl(['get', kind, '-o', 'json', ...args])) as { items: Obj[] }).items;
  }

  async get(kind: string, name: string, namespace?: string): Promise<Obj | undefined> {
    const r = await kubectl(this.kubeconfigPath, [
      'get',
      kind,
      name,
      '-o',
      'json',
      ...(namespace ? ['-n', namespace] : []),
    ]);
    return r.code === 0 ? (JSON.parse(r.stdout) as Obj) : undefined;
  }

  nodeClaims(pool: string): Promise<Obj[]> {
    return this.list('nodeclaims', ['-l', `karpenter.sh/nodepool=${pool}`]);
  }

  nodes(pool: string): Promise<Obj[]> {
    return this.list('nodes', ['-l', `karpenter.sh/nodepool=${pool}`]);
  }

  /** Waits until the pool has `n` initialized nodes, Ready, and returns their names. */
  async initializedNodes(pool: string, n: number, timeoutMs = 120_000): Promise<string[]> {
    return eventually(
      `${n} initialized nodes in NodePool ${pool}`,
      async () => {
        const ready = (await this.nodes(pool)).filter(
          (node) =>
            node.metadata.labels?.['karpenter.sh/initialized'] === 'true' &&
            node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') &&
            !node.metadata.deletionTimestamp,
        );
        return ready.length === n ? ready.map((x) => x.metadata.name).sort() : undefined;
      },
      timeoutMs,
    );
  }

  /** Waits until kpol has taken `pool` over (its governed-by annotation). */
  async governed(pool: string): Promise<void> {
    await eventually(
      'kpol governing the pool',
      async () => (await this.get('nodepool', pool))?.metadata.annotations?.['kpol.dev/governed-by'],
    );
  }

  /** Changes the pool's template so Karpenter marks its nodes Drifted, and waits until `n` NodeClaims are. */
  async driftAll(pool: string, n: number): Promise<void> {
    await this.kubectl(['patch', 'nodepool', pool, '--type', 'merge', '-p', driftPatch()]);
    await eventually('every node drifted', async () =>
      (await this.nodeClaims(pool)).filter((nc) =>
        nc.status?.conditions?.some((x) => x.type === 'Drifted' && x.status === 'True'),
      ).length >= n
        ? true
        : undefined,
    );
  }

  /** Samples every second until `until` that every one of `original` is there and none has started to go. */
  async noneDisruptedUntil(pool: string, original: string[], until: number, why: string): Promise<void> {
    while (Date.now() < until - 1_000) {
      const nodes = (await this.nodes(pool)).filter((n) => original.includes(n.metadata.name));
      const started = nodes.filter(disruptionStarted).map((n) => n.metadata.name);
      const ends = new Date(until).toISOString();
      expect(started, `disrupted during the ${why} (ends ${ends})`).toEqual([]);
      expect(nodes, `a node gone during the ${why} (ends ${ends})`).toHaveLength(original.length);
      await sleep(1000);
    }
  }

  /** When the first of `original` started to be disrupted (or went), waiting up to two minutes. */
  firstDisrupted(pool: string, original: string[], what: string): Promise<number> {
    return eventually(
      what,
      async () => {
        const nodes = await this.nodes(pool);
        const gone = original.filter((name) => {
          const n = nodes.find((x) => x.metadata.name === name);
          return !n || disruptionStarted(n);
        });
        return gone.length > 0 ? Date.now() : undefined;
      },
      120_000,
    );
  }

  /** Karpenter's own allowed disruptions for a pool and reason (its metric; absent until it evaluated that reason). */
  async karpenterAllowed(pool: string, reason: string): Promise<number | undefined> {
    return (await allowedDisruptions(this.karpenterMetricsUrl)).get(pool)?.get(reason);
  }

  /** Karpenter's events about objects whose name starts with one of `names`, oldest first. */
  async karpenterEvents(
    reasons: string[],
  ): Promise<{ at: number; reason: string; kind: string; name: string; message: string }[]> {
    const items = (
      JSON.parse(await this.kubectl(['get', 'events', '-A', '-o', 'json'])) as { items: Array<Record<string, any>> }
    ).items;
    return items
      .filter((e) => reasons.includes(e.reason) && e.reportingComponent !== 'kpol' && e.source?.component !== 'kpol')
      .map((e) => ({
        at: Date.parse(e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp),
        reason: e.reason,
        kind: e.involvedObject.kind,
        name: e.involvedObject.name,
        message: e.message ?? e.note ?? '',
      }))
      .sort((a, b) => a.at - b.at);
  }

  async ensureNamespace(ns: string): Promise<void> {
    await this.apply(`apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n`);
  }

  async policyConfigMap(name: string, policy: string): Promise<string> {
    await this.ensureNamespace(KPOL_NAMESPACE);
    return this.apply(`apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: ${KPOL_NAMESPACE}
  labels: {kpol.dev/policy: "true"}
data:
  policy.kpol: |
${policy
  .split('\n')
  .map((l) => `    ${l}`)
  .join('\n')}
`);
  }

  /** `kpol run --mode govern` on this cluster, as a process. */
  govern(extra: string[] = []): Promise<KpolProcess> {
    return startKpol(this.kubeconfigPath, KPOL_NAMESPACE, ['--mode', 'govern', '--fail-closed-after', '1m', ...extra], {
      standalone: false,
    });
  }

  /**
   * Deletes what a test made: its NodePools (Karpenter drains and removes their nodes), namespace and policy
   * ConfigMaps.
   */
  async cleanup(pools: string[], namespace: string, configMaps: string[]): Promise<void> {
    await kubectl(this.kubeconfigPath, ['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']);
    for (const cm of configMaps)
      await kubectl(this.kubeconfigPath, ['delete', 'configmap', cm, '-n', KPOL_NAMESPACE, '--ignore-not-found']);
    for (const p of pools)
      await kubectl(this.kubeconfigPath, ['delete', 'nodepool', p, '--ignore-not-found', '--timeout=120s']);
  }
}

/** A NodePool whose template carries `revision`: changing it drifts every node of the pool. */
export function poolYaml(name: string, disruption: Record<string, unknown>, revision = '1'): string {
  return toYaml([
    nodePool(name, { consolidationPolicy: 'WhenEmpty', consolidateAfter: '0s', ...disruption }, { revision }),
  ]);
}

/** Drifts every node of the pool: a new template revision. */
export function driftPatch(revision = '2'): string {
  return JSON.stringify({ spec: { template: { metadata: { labels: { revision } } } } });
}

export function deploymentYaml(o: DeploymentOptions): string {
  return toYaml([deployment(o)]);
}

/** The first whole minute at least `leadMs` from now (a cron window opening then). */
export function minuteAhead(leadMs: number): Date {
  return new Date(Math.ceil((Date.now() + leadMs) / MINUTE) * MINUTE);
}

/** The wall-clock fields of `at` in `timeZone`, as a cron `M H D Mo *` that fires at that instant. */
export function cronAt(at: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone,
      hourCycle: 'h23',
      minute: 'numeric',
      hour: 'numeric',
      day: 'numeric',
      month: 'numeric',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return `${Number(parts.minute)} ${Number(parts.hour)} ${Number(parts.day)} ${Number(parts.month)} *`;
}

/** Whether Karpenter has started disrupting a node: its disrupted taint, or its deletion. */
export function disruptionStarted(node: Obj): boolean {
  return (
    node.metadata.deletionTimestamp !== undefined ||
    (node.spec?.taints ?? []).some((t) => t.key === 'karpenter.sh/disrupted')
  );
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The cluster of the `karpenter` vitest project (its globalSetup starts the control plane,
 * Karpenter and KWOK); or, for a developer's loop, one already running, named by
 * KPOL_KARPENTER_KUBECONFIG and KPOL_KARPENTER_METRICS.
 */
export function karpenterCluster(): Cluster {
  if (process.env.KPOL_KARPENTER_KUBECONFIG && process.env.KPOL_KARPENTER_METRICS) {
    return new Cluster(process.env.KPOL_KARPENTER_KUBECONFIG, process.env.KPOL_KARPENTER_METRICS);
  }
  const k = sharedKarpenter();
  return new Cluster(k.kubeconfigPath, k.karpenterMetricsUrl);
}
