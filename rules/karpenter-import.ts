// SPDX-License-Identifier: Apache-2.0
// A NodePool's own `spec.disruption` (and the template's expireAfter / terminationGracePeriod)
// lowered to a PolicySpec exactly as Karpenter reads it at runtime (KARPENTER.md#budgets, KARPENTER.md#lifecycle). What
// the API server would have rejected (CRD patterns, the CEL rule, enums, maxItems) is reported
// as an ImportProblem; the policy still mirrors what the runtime code would do with the value.
import type { KarpenterBudget, NodePool } from './nodepool-types.js';
import { validateCron } from './cron.js';
import { KARPENTER_PATTERNS } from './duration.js';
import { goAtoi, goParseDuration, goQuote } from './karpenter-go.js';
import {
  basePolicy,
  KARPENTER_REASONS,
  type BudgetSpec,
  type ConsolidationPolicy,
  type DurationOrNever,
  type PolicySpec,
  type Quantity,
  type Reason,
} from './model.js';

/** A problem with a NodePool as written: `path` is `NodePool/<name>: spec.disruption.budgets[1].nodes`. */
export interface ImportProblem {
  path: string;
  message: string;
  severity: 'error' | 'warning';
}

const POLICIES: readonly ConsolidationPolicy[] = ['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced'];
const DEFAULT_EXPIRE_AFTER = 720 * 3600;
const MAX_BUDGETS = 50;

/** `intstr.GetScaledValueFromIntOrPercent` on Karpenter's `GetIntStrFromValue(nodes)`. */
export function parseBudgetNodes(nodes: string): { ok: true; quantity: Quantity } | { ok: false; error: string } {
  const int = goAtoi(nodes);
  if (int.ok) return { ok: true, quantity: { kind: 'count', value: int.value } };
  if (!nodes.endsWith('%')) return { ok: false, error: 'invalid type: string is not a percentage' };
  const pct = goAtoi(nodes.slice(0, -1));
  if (!pct.ok) return { ok: false, error: `invalid value ${goQuote(nodes)}: ${pct.error}` };
  return { ok: true, quantity: { kind: 'percent', value: pct.value } };
}

class Importer {
  readonly problems: ImportProblem[] = [];
  constructor(private readonly name: string) {}

  problem(path: string, message: string, severity: 'error' | 'warning' = 'error'): void {
    this.problems.push({ path: `NodePool/${this.name}: ${path}`, message, severity });
  }

  /** A string field the API server types as string; other scalars are read as their text. */
  text(path: string, value: unknown): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    this.problem(path, `must be a string, found ${typeof value} \`${String(value)}\``);
    return typeof value === 'object' ? undefined : String(value);
  }

  /** A NillableDuration (`consolidateAfter`, `expireAfter`): `Never` → null. */
  durationOrNever(path: string, raw: unknown, fallback: DurationOrNever): DurationOrNever {
    const text = this.text(path, raw);
    if (text === undefined) return fallback;
    if (!KARPENTER_PATTERNS.durNever.test(text))
      this.problem(path, `\`${text}\` does not match the CRD pattern ${KARPENTER_PATTERNS.durNever.source}`);
    if (text === 'Never') return null;
    const parsed = goParseDuration(text);
    if (!parsed.ok) {
      this.problem(path, parsed.error);
      return fallback;
    }
    return parsed.value;
  }

  budget(b: KarpenterBudget, i: number): BudgetSpec {
    const at = `spec.disruption.budgets[${i}]`;
    const spec: BudgetSpec = { id: `b${i}`, nodes: { kind: 'percent', value: 10 }, reasons: null, mode: 'budget' };
    const nodes = this.text(`${at}.nodes`, b.nodes) ?? '10%'; // item-level CRD default
    if (!KARPENTER_PATTERNS.nodes.test(nodes))
      this.problem(`${at}.nodes`, `\`${nodes}\` does not match the CRD pattern ${KARPENTER_PATTERNS.nodes.source}`);
    const parsed = parseBudgetNodes(nodes);
    if (parsed.ok) spec.nodes = parsed.quantity;
    else {
      spec.error = parsed.error;
      this.problem(
        `${at}.nodes`,
        `invalid budget (${parsed.error}): Karpenter allows 0 disruptions for every reason of this NodePool`,
      );
    }
    if (b.reasons !== undefined && b.reasons !== null) spec.reasons = this.reasons(`${at}.reasons`, b.reasons);
    const schedule = this.text(`${at}.schedule`, b.schedule);
    const duration = this.text(`${at}.duration`, b.duration);
    if ((schedule === undefined) !== (duration === undefined)) {
      this.problem(at, `'schedule' must be set with 'duration'`);
      spec.error ??= `'schedule' must be set with 'duration'`;
    }
    if (schedule !== undefined && duration !== undefined) {
      if (!KARPENTER_PATTERNS.schedule.test(schedule))
        this.problem(
          `${at}.schedule`,
          `\`${schedule}\` does not match the CRD pattern ${KARPENTER_PATTERNS.schedule.source}`,
        );
      if (!KARPENTER_PATTERNS.budgetDuration.test(duration))
        this.problem(
          `${at}.duration`,
          `\`${duration}\` does not match the CRD pattern ${KARPENTER_PATTERNS.budgetDuration.source}`,
        );
      const d = goParseDuration(duration);
      if (!d.ok) {
        this.problem(`${at}.duration`, d.error);
        spec.error ??= d.error;
      }
      const cron = validateCron(schedule);
      spec.window = {
        cron: cron.ok ? cron.normalized : schedule,
        durationSeconds: d.ok ? d.value : 0,
        timeZone: 'UTC',
      };
      if (!cron.ok) {
        spec.window.error = cron.error;
        spec.error ??= cron.error; // as the .kpol checker does: the budget itself is invalid
        this.problem(
          `${at}.schedule`,
          `\`${schedule}\` passes the CRD but fails at runtime (${cron.error}): Karpenter allows 0 ` +
            `disruptions for every reason of this NodePool`,
        );
      }
    }
    return spec;
  }

  reasons(path: string, raw: unknown): Reason[] {
    if (!Array.isArray(raw)) {
      this.problem(path, 'must be a list of reasons');
      return [];
    }
    if (raw.length > MAX_BUDGETS) this.problem(path, `has ${raw.length} items, the CRD allows at most ${MAX_BUDGETS}`);
    const out: Reason[] = [];
    raw.forEach((r, j) => {
      const known = (KARPENTER_REASONS as readonly unknown[]).includes(r);
      if (!known) {
        this.problem(
          `${path}[${j}]`,
          `unsupported value ${goQuote(String(r))}: supported values: "Underutilized", "Empty", "Drifted"`,
        );
        return; // the runtime never evaluates such a reason, so the budget simply skips it
      }
      if (out.includes(r as Reason)) {
        this.problem(`${path}[${j}]`, `duplicate value ${goQuote(String(r))}`);
        return;
      }
      out.push(r as Reason);
    });
    return out;
  }
}

/**
 * Lowers a NodePool's own disruption settings; `diagnostics` are what the API server or Karpenter would complain about.
 */
export function nodePoolToPolicy(np: NodePool): { policy: PolicySpec; diagnostics: ImportProblem[] } {
  const name = np.metadata.name;
  const im = new Importer(name);
  const disruption = np.spec?.disruption ?? {};
  const template = np.spec?.template?.spec ?? {};

  let consolidationPolicy: ConsolidationPolicy = 'WhenEmptyOrUnderutilized';
  const cp = im.text('spec.disruption.consolidationPolicy', disruption.consolidationPolicy);
  if (cp !== undefined) {
    if ((POLICIES as readonly string[]).includes(cp)) consolidationPolicy = cp as ConsolidationPolicy;
    else
      im.problem(
        'spec.disruption.consolidationPolicy',
        `unsupported value ${goQuote(cp)}: supported values: "WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"`,
      );
  }
  const consolidateAfterSeconds = im.durationOrNever(
    'spec.disruption.consolidateAfter',
    disruption.consolidateAfter,
    0,
  );

  let budgets: BudgetSpec[];
  const raw = disruption.budgets as unknown;
  if (raw === undefined || raw === null) {
    budgets = [{ id: 'b0', nodes: { kind: 'percent', value: 10 }, reasons: null, mode: 'budget' }];
  } else if (!Array.isArray(raw)) {
    im.problem('spec.disruption.budgets', 'must be a list');
    budgets = [
      { id: 'b0', nodes: { kind: 'count', value: 0 }, reasons: null, mode: 'budget', error: 'budgets is not a list' },
    ];
  } else {
    if (raw.length > MAX_BUDGETS)
      im.problem('spec.disruption.budgets', `has ${raw.length} items, the CRD allows at most ${MAX_BUDGETS}`);
    budgets = raw.map((b, i) => im.budget((b ?? {}) as KarpenterBudget, i));
  }

  const expireAfterSeconds = im.durationOrNever(
    'spec.template.spec.expireAfter',
    template.expireAfter,
    DEFAULT_EXPIRE_AFTER,
  );
  const policy: PolicySpec = {
    ...basePolicy(name, 'karpenter', { kind: 'names', names: [name] }),
    consolidationPolicy,
    consolidateAfterSeconds,
    expireAfterSeconds,
    budgets,
  };
  const tgp = im.text('spec.template.spec.terminationGracePeriod', template.terminationGracePeriod);
  if (tgp !== undefined) {
    const path = 'spec.template.spec.terminationGracePeriod';
    if (!KARPENTER_PATTERNS.tgp.test(tgp))
      im.problem(path, `\`${tgp}\` does not match the CRD pattern ${KARPENTER_PATTERNS.tgp.source}`);
    const parsed = goParseDuration(tgp);
    if (parsed.ok) policy.terminationGracePeriodSeconds = parsed.value;
    else im.problem(path, parsed.error);
  }
  if (np.spec?.replicas !== undefined) {
    im.problem('spec.replicas', 'static NodePool: consolidationPolicy and consolidateAfter are ignored', 'warning');
  }
  return { policy, diagnostics: im.problems };
}
