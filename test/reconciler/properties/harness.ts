// SPDX-License-Identifier: Apache-2.0
// Runs one generated case on the scenario harness (the real Runtime on a FakeClock) and
// records a trace: what every tick left behind, and the exact cluster state at the instant
// each disruption command was started (captured by wrapping the orchestration queue's
// `start`, so the checkers see the pods the controller saw, not those of a tick later).
import type { Reason } from '../../../rules/model.js';
import type { Instance } from '../../../src/world/cloud/provider.js';
import type { KubeObject, Node, NodeClaim, Pod } from '../../../src/core/cluster/types.js';
import type { PoolResult, NodeResult } from '../../../src/core/eval/output.js';
import type { CandidateRef, Command } from '../../../src/control/reconciler/methods/command.js';
import { Scenario, policies, pool, replicaSet } from '../scenario.js';
import { cronOf, durOf, renderPolicies, type CaseSpec } from './model.js';

export interface NcObs {
  name: string;
  pool: string;
  providerID?: string;
  nodeName?: string;
  deleting?: number; // deletionTimestamp, ms
  initializedAt?: number; // Initialized=True lastTransitionTime, ms
  instanceTerminating: boolean;
}

export interface NodeObs {
  name: string;
  providerID?: string;
  pool?: string;
  zone?: string;
  initialized: boolean;
  deleting: boolean;
}

export interface CommandObs {
  id: string;
  method: Command['method'];
  reason: Reason;
  candidates: CandidateRef[];
  launched: string[];
}

export interface TickObs {
  i: number;
  t: number; // the instant the tick ran at
  ncs: NcObs[];
  nodes: NodeObs[];
  inflight: CommandObs[];
  expired: string[];
  interrupted: string[];
  /** Cloud instances not yet terminated after the tick. */
  instances: Pick<Instance, 'providerID' | 'state'>[];
}

export interface StartObs {
  i: number; // tick index
  t: number;
  command: CommandObs;
  /** The tick's evaluation: every pool, and the candidate nodes' verdicts. */
  pools: Record<string, PoolResult>;
  verdicts: Record<string, NodeResult | undefined>;
  /** Cluster state when `queue.start` was called. */
  pods: Pod[]; // bound to a candidate
  nodes: Node[]; // the candidates
  nodeClaims: NodeClaim[]; // the candidates'
}

export interface Trace {
  spec: CaseSpec;
  ticks: TickObs[];
  starts: StartObs[];
  lastEval?: import('../../../src/core/eval/output.js').EvalOutput;
  final: { instances: Pick<Instance, 'providerID' | 'state'>[]; orphans: string[]; ncs: NcObs[] };
}

const ms = (s: string | undefined) => (s ? Date.parse(s) : undefined);

export function observeNodeClaim(nc: NodeClaim): NcObs {
  const init = nc.status?.conditions?.find((c) => c.type === 'Initialized' && c.status === 'True');
  return {
    name: nc.metadata.name,
    pool: nc.metadata.labels?.['karpenter.sh/nodepool'] ?? '',
    ...(nc.status?.providerID && { providerID: nc.status.providerID }),
    ...(nc.status?.nodeName && { nodeName: nc.status.nodeName }),
    ...(nc.metadata.deletionTimestamp && { deleting: ms(nc.metadata.deletionTimestamp) }),
    ...(init && { initializedAt: ms(init.lastTransitionTime) }),
    instanceTerminating:
      nc.status?.conditions?.some((c) => c.type === 'InstanceTerminating' && c.status === 'True') ?? false,
  };
}

const commandObs = (c: Command): CommandObs => ({
  id: c.id,
  method: c.method,
  reason: c.reason as Reason,
  candidates: c.candidates.map((x) => ({ ...x })),
  launched: [...c.launched],
});

export function buildObjects(spec: CaseSpec): KubeObject[] {
  return [
    ...spec.pools.map((p) => pool(p.name, p.types, p.capacityTypes ? { capacityType: p.capacityTypes } : {})),
    ...spec.replicaSets.map((rs) => {
      const annotations: Record<string, string> = {};
      if (rs.doNotDisrupt) annotations['karpenter.sh/do-not-disrupt'] = rs.doNotDisrupt;
      if (rs.schedule) {
        annotations['karpenter.sh/disruption-schedule'] = cronOf(rs.schedule);
        annotations['karpenter.sh/disruption-schedule-duration'] = durOf(rs.schedule.durationMin);
      }
      return replicaSet(rs.name, rs.replicas, {
        cpu: rs.cpu,
        memory: '256Mi',
        ...(Object.keys(annotations).length && { annotations }),
      });
    }),
  ];
}

export async function runCase(spec: CaseSpec): Promise<Trace> {
  const text = renderPolicies(spec.policies, spec.clusterBudget);
  const s = new Scenario(buildObjects(spec), spec.policies.length ? policies(text) : []);
  const rt = s.rt;
  const ticks: TickObs[] = [];
  const starts: StartObs[] = [];
  let pending: (Omit<StartObs, 'pools' | 'verdicts' | 'command'> & { cmd: Command }) | undefined;

  const start = rt.queue.start.bind(rt.queue);
  rt.queue.start = async (cmd, pools) => {
    const names = new Set(cmd.candidates.map((c) => c.node));
    const claims = new Set(cmd.candidates.map((c) => c.nodeClaim));
    pending = {
      i: ticks.length,
      t: s.clock.now(),
      cmd,
      pods: (await rt.cluster.list<Pod>('Pod')).filter((p) => p.spec.nodeName && names.has(p.spec.nodeName)),
      nodes: (await rt.cluster.list<Node>('Node')).filter((n) => names.has(n.metadata.name)),
      nodeClaims: (await rt.cluster.list<NodeClaim>('NodeClaim')).filter((n) => claims.has(n.metadata.name)),
    };
    return start(cmd, pools);
  };

  const perturb = [...spec.perturbations].sort((a, b) => a.atTick - b.atTick);
  let revision = 0;
  for (let i = 0; i < spec.ticks; i++) {
    for (const p of perturb.filter((x) => x.atTick === i)) {
      if (p.kind === 'scale') {
        await rt.cluster.patch(
          { kind: 'ReplicaSet', name: spec.replicaSets[p.rs].name, namespace: 'default' },
          { spec: { replicas: p.replicas } },
        );
      } else if (p.kind === 'drift-label') {
        await rt.cluster.patch(
          { kind: 'NodePool', name: spec.pools[p.pool].name },
          { spec: { template: { metadata: { labels: { rev: String(++revision) } } } } },
        );
      } else if (p.kind === 'drift-types') {
        const np = await rt.cluster.get<
          KubeObject & { spec: { template: { spec: { requirements: { key: string }[] } } } }
        >({ kind: 'NodePool', name: spec.pools[p.pool].name });
        const reqs = np!.spec.template.spec.requirements.map((r) =>
          r.key === 'node.kubernetes.io/instance-type' ? { ...r, values: p.types } : r,
        );
        await rt.cluster.patch(
          { kind: 'NodePool', name: spec.pools[p.pool].name },
          { spec: { template: { spec: { requirements: reqs } } } },
        );
      } else if (p.kind === 'shrink-all') {
        for (const r of spec.replicaSets) {
          const cur = await rt.cluster.get<KubeObject & { spec: { replicas: number } }>({
            kind: 'ReplicaSet',
            name: r.name,
            namespace: 'default',
          });
          await rt.cluster.patch(
            { kind: 'ReplicaSet', name: r.name, namespace: 'default' },
            { spec: { replicas: Math.floor((cur?.spec.replicas ?? 0) / 2) } },
          );
        }
      } else if (p.kind === 'fail-launches') {
        rt.cloud.failNextCreates(p.count);
      } else if (p.kind === 'interrupt') {
        const running = (await rt.cloud.list()).filter((x) => x.state === 'running');
        if (running.length) rt.cloud.interrupt(running[p.index % running.length].providerID, 'SpotInterruption');
      } else {
        const app = spec.replicaSets[p.rs].name;
        const pods = (await s.pods()).filter((x) => x.metadata.labels?.app === app && !x.metadata.deletionTimestamp);
        if (pods.length)
          await rt.cluster.delete({
            kind: 'Pod',
            name: pods[p.index % pods.length].metadata.name,
            namespace: 'default',
          });
      }
    }
    const t = s.clock.now();
    const r = await s.tick(spec.stepMs);
    if (r.disruption.started) {
      const cmd = r.disruption.started;
      if (!pending || pending.cmd.id !== cmd.id)
        throw new Error(`command ${cmd.id} started without passing through queue.start`);
      const ev = r.disruption.evaluation;
      starts.push({
        i: pending.i,
        t: pending.t,
        command: commandObs(cmd),
        pods: pending.pods,
        nodes: pending.nodes,
        nodeClaims: pending.nodeClaims,
        pools: ev.nodePools,
        verdicts: Object.fromEntries(cmd.candidates.map((c) => [c.node, ev.nodes[c.node]])),
      });
    }
    pending = undefined;
    ticks.push({
      i,
      t,
      ncs: (await s.nodeClaims()).map(observeNodeClaim),
      nodes: (await s.nodes()).map((n) => ({
        name: n.metadata.name,
        ...(n.spec.providerID && { providerID: n.spec.providerID }),
        pool: n.metadata.labels?.['karpenter.sh/nodepool'],
        zone: n.metadata.labels?.['topology.kubernetes.io/zone'],
        initialized: n.metadata.labels?.['karpenter.sh/initialized'] === 'true',
        deleting: !!n.metadata.deletionTimestamp,
      })),
      inflight: [...rt.state.commands.values()].map(commandObs),
      expired: r.expired,
      interrupted: r.interrupted,
      instances: (await rt.cloud.list()).map((x) => ({ providerID: x.providerID, state: x.state })),
    });
  }
  const ncs = await s.nodeClaims();
  return {
    spec,
    ticks,
    starts,
    lastEval: s.history.at(-1)?.disruption.evaluation,
    final: {
      instances: (await rt.cloud.list()).map((x) => ({ providerID: x.providerID, state: x.state })),
      orphans: rt.cloud.orphans(ncs).map((x) => x.providerID),
      ncs: ncs.map(observeNodeClaim),
    },
  };
}
