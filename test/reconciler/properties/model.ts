// SPDX-License-Identifier: Apache-2.0
// The generated test cases as plain data: NodePools, ReplicaSets, .kpol policies and
// perturbations. Policies are rendered to .kpol text for the controller, and kept as data so
// the checkers can decide independently (without kpol's evaluator) whether a pod or a node
// was held at an instant.
import type { Reason } from '../../../rules/model.js';

export const ZONES = ['us-west-2a', 'us-west-2b', 'us-west-2c'] as const;

/** A daily (or weekly, with `dow`) UTC window `"M H * * *" for D`; activity computed independently below. */
export interface Win {
  minute: number;
  hour: number;
  dow?: number; // 0-6, Sunday = 0
  durationMin: number;
}

export interface PoolSpec {
  name: string;
  types: string[];
  capacityTypes?: string[]; // default on-demand
}

export interface RsSpec {
  name: string;
  replicas: number;
  cpu: string;
  /** karpenter.sh/do-not-disrupt on the pod template: "true" or a Go duration. */
  doNotDisrupt?: string;
  /** karpenter.sh/disruption-schedule(-duration) on the pod template. */
  schedule?: Win;
}

export interface BudgetSpec {
  kind: 'budget' | 'allow';
  nodes: string; // "2" or "50%"
  reasons?: Reason[];
  window?: Win; // required for allow
  /** `per reason`: an independent bucket per reason (budgets only). */
  perReason?: boolean;
  /** A rate budget (`budget N per D`): minutes of its sliding window; never with a window here. */
  perMin?: number;
}

export interface PodWindowSpec {
  app: string;
  mode: 'only' | 'never';
  window: Win;
}

export interface MaintenanceSpec {
  name: string;
  reasons: Reason[];
  zones: string[];
  window?: Win; // none = always
}

/**
 * A cluster budget (top level, over `pools` or every governed pool) or a selector budget (inside a
 * policy, over its nodes in `zones`): always active, a whole count (issue 15).
 */
export interface ScopedGen {
  nodes: number;
  reasons?: Reason[];
  pools?: string[];
  zones?: string[];
}

export interface PolicyGen {
  name: string;
  pools: string[];
  consolidate: 'never' | 'empty' | 'underutilized';
  after: '0s' | '1m' | '5m';
  graceMin?: number;
  expire?: { afterMin: number; gracefully: boolean };
  budgets: BudgetSpec[];
  podWindows: PodWindowSpec[];
  maintenance: MaintenanceSpec[];
  zoneBudgets?: ScopedGen[];
}

export type Perturbation =
  | { atTick: number; kind: 'scale'; rs: number; replicas: number }
  | { atTick: number; kind: 'drift-label'; pool: number }
  | { atTick: number; kind: 'drift-types'; pool: number; types: string[] }
  | { atTick: number; kind: 'delete-pod'; rs: number; index: number }
  | { atTick: number; kind: 'shrink-all' } // every ReplicaSet to half its replicas (rounded down)
  | { atTick: number; kind: 'fail-launches'; count: number }
  | { atTick: number; kind: 'interrupt'; index: number };

export interface CaseSpec {
  pools: PoolSpec[];
  replicaSets: RsSpec[];
  policies: PolicyGen[];
  perturbations: Perturbation[];
  stepMs: number;
  ticks: number; // perturbations happen in [0, ticks - quietTicks)
  quietTicks: number;
  clusterBudget?: ScopedGen;
}

const pad = (n: number) => String(n);
export const cronOf = (w: Win) => `${pad(w.minute)} ${pad(w.hour)} * * ${w.dow === undefined ? '*' : w.dow}`;
export const durOf = (min: number) => (min % 60 === 0 ? `${min / 60}h` : `${min}m`);
const winText = (w: Win) => `"${cronOf(w)}" for ${durOf(w.durationMin)}`;

const scopedText = (b: ScopedGen) => `budget ${b.nodes}${b.reasons?.length ? ` for ${b.reasons.join(', ')}` : ''}`;

export function renderPolicies(ps: readonly PolicyGen[], cluster?: ScopedGen): string {
  const top =
    cluster && ps.length > 0
      ? `cluster ${scopedText(cluster)}${cluster.pools?.length ? ` on nodepools ${cluster.pools.join(', ')}` : ''}\n\n`
      : '';
  return (
    top +
    ps
      .map((p) => {
        const lines: string[] = [];
        lines.push(
          p.consolidate === 'never'
            ? '  consolidate never'
            : `  consolidate when ${p.consolidate === 'empty' ? 'empty' : 'empty or underutilized'} after ${p.after}`,
        );
        if (p.expire)
          lines.push(`  expire after ${durOf(p.expire.afterMin)}${p.expire.gracefully ? ' gracefully' : ''}`);
        if (p.graceMin !== undefined) lines.push(`  termination grace ${durOf(p.graceMin)}`);
        for (const b of p.budgets) {
          const reasons = b.reasons?.length ? b.reasons.join(', ') : '';
          if (b.kind === 'budget')
            lines.push(
              `  budget ${b.nodes}${b.perMin ? ` per ${durOf(b.perMin)}` : ''}${reasons ? ` for ${reasons}` : ''}` +
                `${b.perReason ? ' per reason' : ''}` +
                `${b.window ? ` during ${winText(b.window)}` : ''}`,
            );
          else lines.push(`  allow ${b.nodes}${reasons ? ` ${reasons}` : ''} only during ${winText(b.window!)}`);
        }
        for (const w of p.podWindows)
          lines.push(`  pods where app = "${w.app}" disruptable ${w.mode} during ${winText(w.window)}`);
        for (const m of p.maintenance) {
          lines.push(
            `  window ${m.name} blocks ${m.reasons.join(', ')} on nodes where topology.kubernetes.io/zone ` +
              `in (${m.zones.join(', ')})${m.window ? ` during ${winText(m.window)}` : ''}`,
          );
        }
        for (const z of p.zoneBudgets ?? [])
          lines.push(
            `  ${scopedText(z)} on nodes where topology.kubernetes.io/zone in (${(z.zones ?? []).join(', ')})`,
          );
        return `policy ${p.name} for nodepool ${p.pools.join(', ')} {\n${lines.join('\n')}\n}\n`;
      })
      .join('\n')
  );
}

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

/** Whether `[hit, hit + duration)` covers `t` for some hit of the window (durations < 1 day). */
export function windowActive(w: Win, t: number): boolean {
  const today = Math.floor(t / DAY);
  for (let d = today; d >= today - 2; d--) {
    const hit = d * DAY + w.hour * 60 * MINUTE + w.minute * MINUTE;
    if (w.dow !== undefined && new Date(hit).getUTCDay() !== w.dow) continue;
    if (hit <= t && t < hit + w.durationMin * MINUTE) return true;
  }
  return false;
}

/** Go durations as generated here: "30m", "2h", "90s". */
export function goDurationMs(s: string): number | undefined {
  const m = /^(\d+)(s|m|h)$/.exec(s);
  if (!m) return undefined;
  return Number(m[1]) * ({ s: 1000, m: MINUTE, h: 60 * MINUTE } as const)[m[2] as 's' | 'm' | 'h'];
}
