// SPDX-License-Identifier: Apache-2.0
// What the status server shows, and the one interface through which it asks for it. The
// controller (or `kpol simulate --serve`) implements StatusSource; the server never reaches
// into cluster state itself. Times are RFC 3339 strings from the controller's clock.
import type { EvalOutput, NodeResult } from '../../core/eval/output.js';
import type { InvolvedObject, RecordedEvent } from '../../core/observe/recorder.js';

export interface NodePoolStatus {
  policy: string; // policy file or source the NodePool's rules come from
  nodes: number;
  disrupting: number; // nodes being disrupted or NotReady, counted against budgets
  /** Only with `per reason` buckets: the disrupting nodes by reason (`unknown` counts against every bucket). */
  disruptingByReason?: Record<string, number>;
  /** Allowed disruptions per reason now (null = unlimited). */
  allowed: Record<string, number | null>;
  /** Pauses (`kpol pause`) in force on it, each as its why-not message; absent when none. */
  paused?: string[];
  /** Its active rate budgets, each as used and left (`budget 2 per 1h …`); absent when none. */
  rates?: string[];
  /** Why it fails closed (budgets or pauses that cannot be read); absent when none. */
  errors?: string[];
}

/** A cluster or selector budget (`cluster budget`, `budget … on nodes where`) and its room now. */
export interface ScopeStatus {
  statement: string;
  at: string; // file:line
  nodePools: string[];
  nodes: number;
  disrupting: number;
  allowed: Record<string, number | null>;
}

export interface NodeStatus {
  name: string;
  nodePool: string;
  candidate: boolean;
  reasons: string[]; // disruption reasons the node qualifies for
  blocked: { code: string; message: string }[]; // why it is not a candidate (or not for a reason)
}

export interface DecisionStatus {
  at: string;
  method: string;
  reason: string;
  nodes: string[];
  decision: string; // delete, replace, or a why-not such as `blocked`
}

export interface StatusEvent {
  at: string;
  type: RecordedEvent['type'];
  reason: string;
  message: string;
  object: InvolvedObject;
}

export interface StatusView {
  at: string;
  /** Simulated seconds per wall-clock second; 1 for a live controller. */
  clockSpeed: number;
  nodePools: Record<string, NodePoolStatus>;
  /** Cluster and selector budgets; absent when the policies have none. */
  scopes?: ScopeStatus[];
  nodes: NodeStatus[];
  decisions: DecisionStatus[]; // most recent last
  events: StatusEvent[]; // most recent last
}

export interface StatusSource {
  /** True once the first reconcile has completed; drives `/readyz`. */
  ready(): boolean;
  status(): Promise<StatusView>;
}

/** A recorded event as the status view carries it (time as RFC 3339). */
export function toStatusEvent(e: RecordedEvent): StatusEvent {
  return {
    at: new Date(e.at).toISOString(),
    type: e.type,
    reason: e.reason,
    message: e.message,
    object: { ...e.object },
  };
}

/** The NodePools and nodes of an evaluation as the status page shows them; `extraBlocks` adds notes per node. */
export function evaluationView(
  ev: EvalOutput | undefined,
  extraBlocks: (n: NodeResult) => NodeStatus['blocked'] = () => [],
): Pick<StatusView, 'nodePools' | 'nodes' | 'scopes'> {
  const scopes = Object.values(ev?.scopes ?? {}).map((sc) => ({
    statement: sc.statement,
    at: sc.at,
    nodePools: sc.nodePools,
    nodes: sc.nodes,
    disrupting: sc.disrupting,
    allowed: sc.allowed as Record<string, number | null>,
  }));
  return {
    ...(scopes.length && { scopes }),
    nodePools: Object.fromEntries(
      Object.entries(ev?.nodePools ?? {}).map(([k, p]) => [
        k,
        {
          policy: p.policy,
          nodes: p.nodes,
          disrupting: p.disrupting,
          ...(p.disruptingByReason && { disruptingByReason: p.disruptingByReason as Record<string, number> }),
          allowed: p.allowed as Record<string, number | null>,
          ...(p.paused?.length && { paused: p.paused.map((x) => x.message) }),
          ...(p.rates?.length && { rates: p.rates.map((r) => r.message) }),
          ...(p.errors.length && { errors: p.errors }),
        },
      ]),
    ),
    nodes: Object.entries(ev?.nodes ?? {}).map(([name, n]) => ({
      name,
      nodePool: n.nodePool,
      candidate: n.candidate,
      reasons: n.reasons,
      blocked: [...n.blocked, ...extraBlocks(n)],
    })),
  };
}
