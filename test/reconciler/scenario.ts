// SPDX-License-Identifier: Apache-2.0
// Scenario harness: the real runtime (in-memory API server, simulated cloud and node agent,
// every controller) on a FakeClock stepped forward — never sleeps.
import type { PolicySpec } from '../../rules/model.js';
import { FakeClock } from '../../src/clock.js';
import type { KubeObject, Node, NodeClaim, Pod } from '../../src/cluster/types.js';
import { loadPolicies } from '../../src/policy/load.js';
import { Runtime, type RuntimeOptions, type TickResult } from '../../src/runtime/runtime.js';

export const T0 = Date.parse('2026-11-23T12:00:00Z'); // a Monday

export function policies(text: string): PolicySpec[] {
  const loaded = loadPolicies([{ fileName: 'scenario.kpol', text }]);
  const errors = loaded.files.flatMap((f) => f.diagnostics.filter((d) => d.severity === 'error'));
  if (errors.length) throw new Error(errors.map((e) => e.message).join('; '));
  return loaded.policies;
}

export function replicaSet(name: string, replicas: number, o: { cpu?: string; memory?: string; labels?: Record<string, string>; annotations?: Record<string, string>; namespace?: string; nodeSelector?: Record<string, string> } = {}): KubeObject {
  const labels = o.labels ?? { app: name };
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name, namespace: o.namespace ?? 'default' },
    spec: {
      replicas, selector: { matchLabels: labels },
      template: {
        metadata: { labels, ...(o.annotations && { annotations: o.annotations }) },
        spec: { containers: [{ name: 'app', resources: { requests: { cpu: o.cpu ?? '500m', memory: o.memory ?? '512Mi' } } }], terminationGracePeriodSeconds: 30, ...(o.nodeSelector && { nodeSelector: o.nodeSelector }) },
      },
    },
  };
}

/** A NodePool whose nodes are on-demand and limited to the given instance types (so tests control sizes and prices). */
export function pool(name: string, instanceTypes: string[], o: { capacityType?: string[] } = {}): KubeObject {
  return {
    apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name },
    spec: {
      template: { spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        requirements: [
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: o.capacityType ?? ['on-demand'] },
          { key: 'node.kubernetes.io/instance-type', operator: 'In', values: instanceTypes },
        ],
      } },
    },
  };
}

export class Scenario {
  readonly clock: FakeClock;
  readonly rt: Runtime;
  readonly history: TickResult[] = [];

  constructor(objects: KubeObject[], pol: PolicySpec[] = [], o: Partial<RuntimeOptions> = {}) {
    this.clock = new FakeClock(o.clock?.now() ?? T0);
    this.rt = new Runtime({ clock: this.clock, objects, policies: pol, ...o, ...(o.clock ? {} : {}) });
  }

  async tick(stepMs = 10_000): Promise<TickResult> {
    const r = await this.rt.tick();
    this.history.push(r);
    this.clock.advance(stepMs);
    return r;
  }

  /** Ticks until `done()` or the time runs out; returns whether it happened. */
  async until(done: () => Promise<boolean> | boolean, maxMs = 30 * 60_000, stepMs = 10_000, each?: () => Promise<void> | void): Promise<boolean> {
    const end = this.clock.now() + maxMs;
    while (this.clock.now() <= end) {
      await this.tick(stepMs);
      if (each) await each();
      if (await done()) return true;
    }
    return false;
  }

  nodes = () => this.rt.cluster.list<Node>('Node');
  nodeClaims = () => this.rt.cluster.list<NodeClaim>('NodeClaim');
  pods = () => this.rt.cluster.list<Pod>('Pod');
  async runningPods(): Promise<Pod[]> {
    return (await this.pods()).filter((p) => p.spec.nodeName && p.status?.phase === 'Running' && !p.metadata.deletionTimestamp);
  }
}
