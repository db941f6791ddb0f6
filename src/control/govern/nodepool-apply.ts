// SPDX-License-Identifier: Apache-2.0
// The NodePool fields govern mode owns, as server-side apply configurations under the `kpol`
// field manager: spec.disruption (budgets, consolidation policy and delay) and the template's
// expireAfter and terminationGracePeriod, plus three annotations that say what kpol did. The
// user's own values are saved in an annotation the first time kpol governs a pool and applied
// back when no policy governs it any more.
import { policyToNodePoolDisruption } from '../../../rules/karpenter-export.js';
import type { PolicySpec } from '../../../rules/model.js';
import { deepEqual } from '../../core/cluster/memory/deep.js';
import type { KarpenterBudget, NodePool } from '../../core/cluster/types.js';

/** The policy governing the pool (present while kpol governs it). */
export const ANNOTATION_GOVERNED_BY = 'kpol.dev/governed-by';
/** The user's own values of the fields kpol writes, as JSON (UserSettings). */
export const ANNOTATION_USER_SETTINGS = 'kpol.dev/user-disruption';
/** What kpol decided at its last write, as JSON (PoolDecision). */
export const ANNOTATION_DECISION = 'kpol.dev/decision';

/** The fields govern mode writes, as they were before kpol governed the pool. */
export interface UserSettings {
  disruption?: NonNullable<NodePool['spec']['disruption']>;
  expireAfter?: string;
  terminationGracePeriod?: string;
}

/** Shown on the NodePool: what kpol wrote and until when Karpenter keeps it without kpol. */
export interface PoolDecision {
  policy: string;
  /** Allowed disruptions per reason now, after what is already disrupting (null = unlimited). */
  allowed: Record<string, number | null>;
  /** From this instant on Karpenter blocks every reason unless kpol has renewed the budgets. */
  failClosedAt: string;
}

/** The NodePool fields kpol writes: what the policy says, with `budgets` for now. */
export interface GovernedFields {
  budgets: KarpenterBudget[];
  consolidationPolicy: string;
  consolidateAfter: string;
  expireAfter?: string;
  terminationGracePeriod?: string;
}

export function governedFields(policy: PolicySpec, budgets: KarpenterBudget[]): GovernedFields {
  const { disruption, template } = policyToNodePoolDisruption(policy);
  return {
    budgets,
    consolidationPolicy: disruption.consolidationPolicy,
    consolidateAfter: disruption.consolidateAfter,
    // Graceful expiration is kpol's own (it deletes expired NodeClaims within the Expired budget):
    // Karpenter's expiration is forceful, so it must not expire these nodes itself.
    ...(policy.expiration === 'graceful'
      ? { expireAfter: 'Never' }
      : template.expireAfter !== undefined && { expireAfter: template.expireAfter }),
    ...(template.terminationGracePeriod !== undefined && { terminationGracePeriod: template.terminationGracePeriod }),
  };
}

export function userSettingsOf(np: NodePool): UserSettings {
  const t = np.spec.template?.spec;
  return {
    ...(np.spec.disruption && { disruption: structuredClone(np.spec.disruption) }),
    ...(t?.expireAfter !== undefined && { expireAfter: t.expireAfter }),
    ...(t?.terminationGracePeriod !== undefined && { terminationGracePeriod: t.terminationGracePeriod }),
  };
}

/** The settings kpol saved on the pool; `error` when the annotation is not what kpol writes. */
export function savedUserSettings(np: NodePool): { settings?: UserSettings; error?: string } {
  const text = np.metadata.annotations?.[ANNOTATION_USER_SETTINGS];
  if (text === undefined) return {};
  try {
    const v = JSON.parse(text) as unknown;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error('not a JSON object');
    return { settings: v as UserSettings };
  } catch (e) {
    return { error: `NodePool/${np.metadata.name}: annotation ${ANNOTATION_USER_SETTINGS}: ${(e as Error).message}` };
  }
}

/** What `kpol.dev/governed-by` says of a pool no policy governs while a pause (`kpol pause`) holds it. */
export const GOVERNED_BY_PAUSE = 'kpol-pause';

/**
 * The fields of a pool no policy governs while pauses hold `reasons`: the user's own settings
 * with a `nodes: "0"` budget for those reasons added. A pool without budgets had Karpenter's
 * 10% default, which an added budget would replace, so it is written out.
 */
export function pausedFields(own: UserSettings, reasons: readonly string[]): GovernedFields {
  const budgets = own.disruption?.budgets ?? [{ nodes: '10%' }];
  return {
    budgets: [...budgets, { nodes: '0', reasons: [...reasons] }],
    consolidationPolicy: own.disruption?.consolidationPolicy ?? 'WhenEmptyOrUnderutilized',
    consolidateAfter: own.disruption?.consolidateAfter ?? '0s',
    ...(own.expireAfter !== undefined && { expireAfter: own.expireAfter }),
    ...(own.terminationGracePeriod !== undefined && { terminationGracePeriod: own.terminationGracePeriod }),
  };
}

/** Whether the live pool already holds every field kpol would write. */
export function holdsFields(np: NodePool, f: GovernedFields, policy: string): boolean {
  const d = np.spec.disruption;
  const t = np.spec.template?.spec;
  return (
    np.metadata.annotations?.[ANNOTATION_GOVERNED_BY] === policy &&
    np.metadata.annotations?.[ANNOTATION_USER_SETTINGS] !== undefined &&
    deepEqual(d?.budgets, f.budgets) &&
    d?.consolidationPolicy === f.consolidationPolicy &&
    d?.consolidateAfter === f.consolidateAfter &&
    (f.expireAfter === undefined || t?.expireAfter === f.expireAfter) &&
    (f.terminationGracePeriod === undefined || t?.terminationGracePeriod === f.terminationGracePeriod)
  );
}

const applyConfig = (name: string, annotations: Record<string, string>, spec: NodePool['spec']): NodePool => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodePool',
  metadata: { name, annotations },
  spec,
});

/** The apply configuration that governs `np`; its user settings are saved on the first write. */
export function governApply(np: NodePool, policy: string, f: GovernedFields, decision: PoolDecision): NodePool {
  const saved = np.metadata.annotations?.[ANNOTATION_USER_SETTINGS] ?? JSON.stringify(userSettingsOf(np));
  const tspec = {
    ...(f.expireAfter !== undefined && { expireAfter: f.expireAfter }),
    ...(f.terminationGracePeriod !== undefined && { terminationGracePeriod: f.terminationGracePeriod }),
  };
  return applyConfig(
    np.metadata.name,
    {
      [ANNOTATION_GOVERNED_BY]: policy,
      [ANNOTATION_USER_SETTINGS]: saved,
      [ANNOTATION_DECISION]: JSON.stringify(decision),
    },
    {
      disruption: {
        budgets: f.budgets,
        consolidationPolicy: f.consolidationPolicy,
        consolidateAfter: f.consolidateAfter,
      },
      ...(Object.keys(tspec).length && { template: { spec: tspec } }),
    },
  );
}

/**
 * The apply configuration that hands `np` back: the user's values of the fields kpol wrote and
 * none of kpol's annotations (server-side apply drops the fields kpol alone owned and omits now).
 */
export function restoreApply(np: NodePool, saved: UserSettings): NodePool {
  const tspec = {
    ...(saved.expireAfter !== undefined && { expireAfter: saved.expireAfter }),
    ...(saved.terminationGracePeriod !== undefined && { terminationGracePeriod: saved.terminationGracePeriod }),
  };
  return applyConfig(
    np.metadata.name,
    {},
    {
      ...(saved.disruption && { disruption: saved.disruption }),
      ...(Object.keys(tspec).length && { template: { spec: tspec } }),
    },
  );
}
