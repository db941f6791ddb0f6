// SPDX-License-Identifier: Apache-2.0
// Scenario harness: the real runtime (simulated cloud and node agent, every controller) on a
// FakeClock stepped forward — never sleeps. The API server is the in-memory one unless a test
// file selects another backend first (test/k8s/scenario/ runs these suites, unchanged, against
// a real kube-apiserver with kube-controller-manager doing the workload controllers' part).
import type { PolicySpec } from '../../rules/model.js';
import { FakeClock, type Clock } from '../../src/core/clock.js';
import type { KubeObject, Node, NodeClaim, Pod } from '../../src/core/cluster/types.js';
import { loadPolicies } from '../../src/core/policy/load.js';
import { Runtime, type RuntimeOptions, type TickResult } from '../../src/control/runtime/runtime.js';

export const T0 = Date.parse('2026-11-23T12:00:00Z'); // a Monday

export function policies(text: string): PolicySpec[] {
  const loaded = loadPolicies([{ fileName: 'scenario.kpol', text }]);
  const errors = loaded.files.flatMap((f) => f.diagnostics.filter((d) => d.severity === 'error'));
  if (errors.length) throw new Error(errors.map((e) => e.message).join('; '));
  return loaded.policies;
}

export function replicaSet(
  name: string,
  replicas: number,
  o: {
    cpu?: string;
    memory?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    namespace?: string;
    nodeSelector?: Record<string, string>;
  } = {},
): KubeObject {
  const labels = o.labels ?? { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: o.namespace ?? 'default' },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, ...(o.annotations && { annotations: o.annotations }) },
        spec: {
          containers: [{ name: 'app', resources: { requests: { cpu: o.cpu ?? '500m', memory: o.memory ?? '512Mi' } } }],
          terminationGracePeriodSeconds: 30,
          ...(o.nodeSelector && { nodeSelector: o.nodeSelector }),
        },
      },
    },
  };
}

/** A NodePool whose nodes are on-demand and limited to the given instance types (so tests control sizes and prices). */
export function pool(name: string, instanceTypes: string[], o: { capacityType?: string[] } = {}): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name },
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
          requirements: [
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: o.capacityType ?? ['on-demand'] },
            { key: 'node.kubernetes.io/instance-type', operator: 'In', values: instanceTypes },
          ],
        },
      },
    },
  };
}

/** Where a scenario's cluster lives. */
export interface ScenarioBackend {
  name: string;
  /**
   * Runtime options for a new scenario seeded with `objects`, a promise that resolves once the
   * cluster holds them, and what to wait for before and after each tick: the cluster's own
   * asynchronous controllers, and the watches, catching up with every write so far — the
   * test's between ticks, and the tick's.
   */
  prepare(
    objects: KubeObject[],
    clock: Clock,
  ): { options: Partial<RuntimeOptions>; ready: Promise<void>; settle(): Promise<void> };
}

export const memoryScenarioBackend: ScenarioBackend = {
  name: 'memory',
  prepare: () => ({ options: {}, ready: Promise.resolve(), settle: async () => {} }),
};

let backend: ScenarioBackend = memoryScenarioBackend;

/** Selects the backend of every Scenario created afterwards in this test file. */
export function useScenarioBackend(b: ScenarioBackend): void {
  backend = b;
}

let observer: ((s: Scenario) => void) | undefined;

/** Calls `fn` with every Scenario created afterwards in this test file (to compare their decisions across backends). */
export function observeScenarios(fn: ((s: Scenario) => void) | undefined): void {
  observer = fn;
}

export class Scenario {
  readonly clock: FakeClock;
  readonly rt: Runtime;
  readonly history: TickResult[] = [];
  private readonly ready: Promise<void>;
  private readonly settle: () => Promise<void>;

  constructor(objects: KubeObject[], pol: PolicySpec[] = [], o: Partial<RuntimeOptions> = {}) {
    this.clock = new FakeClock(o.clock?.now() ?? T0);
    const prepared = backend.prepare(objects, this.clock);
    this.ready = prepared.ready;
    this.settle = prepared.settle;
    this.rt = new Runtime({ clock: this.clock, objects, policies: pol, ...o, ...prepared.options });
    observer?.(this);
  }

  async tick(stepMs = 10_000): Promise<TickResult> {
    await this.ready;
    await this.settle();
    const r = await this.rt.tick();
    await this.settle();
    this.history.push(r);
    this.clock.advance(stepMs);
    return r;
  }

  /** Ticks until `done()` or the time runs out; returns whether it happened. */
  async until(
    done: () => Promise<boolean> | boolean,
    maxMs = 30 * 60_000,
    stepMs = 10_000,
    each?: () => Promise<void> | void,
  ): Promise<boolean> {
    const end = this.clock.now() + maxMs;
    while (this.clock.now() <= end) {
      await this.tick(stepMs);
      if (each) await each();
      if (await done()) return true;
    }
    return false;
  }

  nodes = async () => {
    await this.ready;
    return this.rt.cluster.list<Node>('Node');
  };
  nodeClaims = async () => {
    await this.ready;
    return this.rt.cluster.list<NodeClaim>('NodeClaim');
  };
  pods = async () => {
    await this.ready;
    return this.rt.cluster.list<Pod>('Pod');
  };
  async runningPods(): Promise<Pod[]> {
    return (await this.pods()).filter(
      (p) => p.spec.nodeName && p.status?.phase === 'Running' && !p.metadata.deletionTimestamp,
    );
  }
}
