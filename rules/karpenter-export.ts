// SPDX-License-Identifier: Apache-2.0
// A PolicySpec written back as karpenter.sh/v1 NodePool fields. Everything Karpenter can
// express is exported exactly; everything else becomes a finding (never silently dropped).
// When a window cannot be expressed, the export is made stricter, never looser: the budget
// is kept always active (a deny budget, an allow budget's `nodes: "0"`).
import type { KarpenterBudget, NodePool } from './nodepool-types.js';
import { formatDuration } from './duration.js';
import {
  KARPENTER_REASONS,
  type BudgetSpec,
  type PolicySpec,
  type Quantity,
  type Reason,
  type WindowSpec,
} from './model.js';
import { utcWindowsFor } from './karpenter-utc-windows.js';
import { denyWindowsFor } from './window-complement.js';

export interface ExportFinding {
  feature: string;
  message: string;
}

export interface KarpenterDisruption {
  consolidationPolicy: string;
  consolidateAfter: string;
  budgets: KarpenterBudget[];
}

export interface NodePoolDisruptionExport {
  disruption: KarpenterDisruption;
  template: { expireAfter?: string; terminationGracePeriod?: string };
  findings: ExportFinding[];
}

const MAX_BUDGETS = 50;

/** A budget quantity as Karpenter's `nodes` string. */
export const nodesText = (q: Quantity): string => (q.kind === 'percent' ? `${q.value}%` : String(q.value));

/** A window's text for findings: `"@daily" for 10m in "UTC"`. */
const windowText = (w: WindowSpec): string => `"${w.cron}" for ${formatDuration(w.durationSeconds)} in "${w.timeZone}"`;

class Exporter {
  readonly findings: ExportFinding[] = [];
  readonly budgets: KarpenterBudget[] = [];

  finding(feature: string, message: string): void {
    this.findings.push({ feature, message });
  }

  /** Karpenter's reasons for a list (Expired dropped with a finding); undefined = all; null = nothing left. */
  reasons(reasons: Reason[] | null, what: string): string[] | undefined | null {
    if (reasons === null) return undefined;
    const kept = reasons.filter((r) => (KARPENTER_REASONS as readonly string[]).includes(r));
    if (kept.length === reasons.length) return kept;
    this.finding(
      'Expired',
      `${what}: Karpenter does not budget expiration (it is forceful), so reason \`Expired\` is not exported`,
    );
    return kept.length === 0 ? null : kept;
  }

  /** A Karpenter budget duration: whole hours and minutes only (P-BUDGET-DURATION). */
  budgetDuration(seconds: number, what: string): string {
    let minutes = Math.ceil(seconds / 60);
    if (minutes * 60 !== seconds)
      this.finding(
        'window',
        `${what}: Karpenter budget durations have whole minutes only, ` +
          `rounded ${formatDuration(seconds)} up to ${minutes}m`,
      );
    const h = Math.floor(minutes / 60);
    minutes %= 60;
    return h === 0 ? `${minutes}m` : minutes === 0 ? `${h}h` : `${h}h${minutes}m`;
  }

  push(
    nodes: string,
    reasons: string[] | undefined,
    window?: { cron: string; durationSeconds: number },
    what = '',
  ): void {
    const b: KarpenterBudget = { nodes };
    if (reasons !== undefined) b.reasons = reasons;
    if (window) {
      b.schedule = window.cron;
      b.duration = this.budgetDuration(window.durationSeconds, what);
    }
    this.budgets.push(b);
  }

  /** `nodes` during `window` (UTC-shifted), or always when it cannot be expressed. */
  windowed(nodes: string, reasons: string[] | undefined, window: WindowSpec, what: string): void {
    if (window.error !== undefined) {
      // Karpenter fails the pool closed on it exactly as kpol does: export it as written.
      this.finding(
        'window',
        `${what}: schedule \`${window.cron}\` is invalid at runtime (${window.error}); Karpenter ` +
          `will allow 0 disruptions for every reason of the NodePool`,
      );
      this.push(nodes, reasons, { cron: window.cron, durationSeconds: window.durationSeconds }, what);
      return;
    }
    const utc = utcWindowsFor(window);
    if (!utc.ok) {
      this.finding(
        'timezone',
        `cannot express window ${windowText(window)} of ${what} in UTC: ${utc.reason}; exported as always active`,
      );
      this.push(nodes, reasons);
      return;
    }
    for (const w of utc.windows) this.push(nodes, reasons, w, what);
  }

  budget(b: BudgetSpec): void {
    const what = `budget ${b.id}`;
    const reasons = this.reasons(b.reasons, what);
    if (reasons === null) return;
    if (b.error !== undefined && b.window?.error === undefined) {
      this.finding(
        'budget',
        `${what} is invalid (${b.error}); exported as \`nodes: "0"\`, which blocks every reason as Karpenter would`,
      );
      this.push('0', undefined);
      return;
    }
    if (b.perSeconds !== undefined) {
      this.finding(
        'rate',
        `${what} is a rate budget (${nodesText(b.nodes)} per ${formatDuration(b.perSeconds)}), ` +
          'which Karpenter cannot ' +
          'hold: its budgets cap disruptions in flight, not disruptions started over time; exported as a cap of ' +
          `${nodesText(b.nodes)} in flight, the nearest Karpenter budget (govern mode enforces the rate by ` +
          'lowering the budget it writes as disruptions start)',
      );
    }
    const nodes = nodesText(b.nodes);
    if (b.perReason)
      this.finding(
        'reason bucket',
        `${what} is \`per reason\`, an independent bucket per reason: a static NodePool cannot hold it, since ` +
          'Karpenter subtracts one shared count of disrupting nodes from every reason; exported as a shared ' +
          'budget, which is stricter (govern mode keeps the bucket by rewriting the value)',
      );
    if (b.mode === 'budget') {
      if (b.window) this.windowed(nodes, reasons, b.window, what);
      else this.push(nodes, reasons);
      return;
    }
    // allow: `nodes` always, and `nodes: "0"` on the complement of the window.
    const window = b.window;
    if (!window) return this.push(nodes, reasons);
    const deny = window.error === undefined ? denyWindowsFor(window) : { ok: false as const, reason: window.error };
    if (!deny.ok) {
      this.finding(
        'allow',
        `cannot express allow window ${windowText(window)} of ${what}: ${deny.reason}; exported ` +
          `as \`nodes: "0"\` (always blocked)`,
      );
      this.push('0', reasons);
      return;
    }
    this.push(nodes, reasons);
    for (const w of deny.windows) this.push('0', reasons, w, what);
  }

  /** A duration field with `Never` (P-DUR-NEVER): whole seconds. */
  durationOrNever(seconds: number | null, what: string): string {
    if (seconds === null) return 'Never';
    return this.wholeSeconds(seconds, what);
  }

  wholeSeconds(seconds: number, what: string): string {
    const whole = Math.round(seconds);
    if (whole !== seconds)
      this.finding('duration', `${what}: Karpenter takes whole seconds, rounded ${seconds}s to ${whole}s`);
    return formatDuration(whole);
  }
}

/** The karpenter.sh/v1 `spec.disruption` and template fields for a policy, with what could not be expressed. */
export function policyToNodePoolDisruption(policy: PolicySpec): NodePoolDisruptionExport {
  const ex = new Exporter();
  for (const b of policy.budgets) ex.budget(b);
  for (const f of policy.freezes) {
    ex.finding(
      'freeze',
      `freeze ${f.name ?? f.id} (${new Date(f.range.fromMs).toISOString()} ` +
        `to ${new Date(f.range.toMs).toISOString()}) has no Karpenter equivalent: budget schedules ` +
        `recur and cannot name a date range`,
    );
  }
  for (const p of policy.podWindows) {
    if (!p.window) {
      ex.finding(
        'pod protection',
        `pod protection ${p.id} (never ${(p.reasons ?? []).join(', ')}) has no Karpenter equivalent: ` +
          "Karpenter's only pod control, `karpenter.sh/do-not-disrupt`, blocks every reason",
      );
      continue;
    }
    ex.finding(
      'pod window',
      `pod window ${p.id} has no Karpenter equivalent: Karpenter has no pod disruption schedule ` +
        `(only \`karpenter.sh/do-not-disrupt\`)`,
    );
  }
  for (const m of policy.maintenanceWindows) {
    const what = `maintenance window ${m.name}`;
    if (m.nodeSelector.length > 0) {
      ex.finding(
        'maintenance window',
        `${what} selects nodes by label, which Karpenter budgets cannot do (they apply to the whole NodePool)`,
      );
      continue;
    }
    const reasons = ex.reasons(m.reasons, what);
    if (reasons === null) continue;
    if (m.windows.length === 0) ex.push('0', reasons);
    for (const w of m.windows) ex.windowed('0', reasons, w, what);
  }
  for (const b of policy.scopedBudgets ?? []) {
    // Karpenter budgets one NodePool at a time; exporting a per-pool copy would let the pools
    // together disrupt more than the scope allows, so nothing is exported (looser, reported).
    ex.finding(
      b.scope.kind === 'cluster' ? 'cluster budget' : 'selector budget',
      `${b.statement} (${b.at}) has no Karpenter equivalent: Karpenter budgets apply to one whole NodePool ` +
        (b.scope.kind === 'cluster'
          ? 'and cannot be shared across NodePools'
          : 'and cannot select its nodes by label') +
        ' (govern mode splits it into per-pool budgets every tick)',
    );
  }
  if (ex.budgets.length > MAX_BUDGETS)
    ex.finding('budget', `the export has ${ex.budgets.length} budgets, Karpenter's CRD allows at most ${MAX_BUDGETS}`);
  if (policy.expiration === 'graceful') {
    ex.finding(
      'graceful expiration',
      'Karpenter expires nodes forcefully (no budgets, no replacement first); graceful expiration is not exported',
    );
  }
  const template: NodePoolDisruptionExport['template'] = {};
  if (policy.expireAfterSeconds !== undefined)
    template.expireAfter = ex.durationOrNever(policy.expireAfterSeconds, 'expireAfter');
  if (policy.terminationGracePeriodSeconds !== undefined)
    template.terminationGracePeriod = ex.wholeSeconds(policy.terminationGracePeriodSeconds, 'terminationGracePeriod');
  return {
    disruption: {
      consolidationPolicy: policy.consolidationPolicy,
      consolidateAfter: ex.durationOrNever(policy.consolidateAfterSeconds, 'consolidateAfter'),
      budgets: ex.budgets,
    },
    template,
    findings: ex.findings,
  };
}

/**
 * One full NodePool per target name (for a selector target: `base` only, if given), with
 * `base`'s metadata labels/annotations, template, limits and weight kept and its server-set
 * fields and status dropped. Findings come from `policyToNodePoolDisruption`.
 */
export function exportNodePool(policy: PolicySpec, base?: NodePool): NodePool[] {
  const { disruption, template } = policyToNodePoolDisruption(policy);
  const names = policy.target.kind === 'names' ? policy.target.names : base ? [base.metadata.name] : [];
  return names.map((name) => {
    const spec = structuredClone(base?.spec ?? {}) as NodePool['spec'];
    spec.disruption = structuredClone(disruption);
    const tmpl = (spec.template ??= {});
    const tspec = (tmpl.spec ??= {});
    if (template.expireAfter !== undefined) tspec.expireAfter = template.expireAfter;
    if (template.terminationGracePeriod !== undefined) tspec.terminationGracePeriod = template.terminationGracePeriod;
    const metadata: NodePool['metadata'] = { name };
    if (base?.metadata.labels) metadata.labels = { ...base.metadata.labels };
    if (base?.metadata.annotations) {
      const annotations = { ...base.metadata.annotations };
      for (const k of [
        'kubectl.kubernetes.io/last-applied-configuration',
        'karpenter.sh/nodepool-hash',
        'karpenter.sh/nodepool-hash-version',
      ])
        delete annotations[k];
      if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
    }
    return { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata, spec };
  });
}
