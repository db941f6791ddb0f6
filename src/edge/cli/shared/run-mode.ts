// SPDX-License-Identifier: Apache-2.0
// `kpol run --kubeconfig/--in-cluster --mode govern|standalone|auto`: next to a real Karpenter
// kpol only governs (writes NodePool budgets and node annotations); on a cluster without one it
// runs standalone (its own simulated cloud is the cloud provider). `auto` (the default) tells
// them apart by the karpenter.sh NodePool CRD: present and not kpol's own shipped copy (the
// manifests in deploy/crds carry KPOL_CRD_LABEL) means Karpenter installed it.
import { isApiError } from '../../../core/cluster/client.js';
import { durationFlagMs } from './duration-flag.js';
import { CliError } from './io.js';

export const RUN_MODE_FLAGS = {
  mode: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'fail-closed-after': { type: 'string' },
} as const;

export const RUN_MODES = ['govern', 'standalone', 'auto'] as const;
export type RunMode = (typeof RUN_MODES)[number];

export const DEFAULT_FAIL_CLOSED_AFTER_MS = 2 * 60_000;

export const RUN_MODE_USAGE = `--mode govern|standalone|auto (default auto): govern runs next to the
cluster's Karpenter and only writes NodePool budgets and node annotations; standalone is kpol's
own provisioner and disruption with the simulated cloud as cloud provider, and refuses to start
on NodeClaims another cloud provider launched; auto governs when Karpenter's NodePool CRD is
installed (not kpol's copy from deploy/crds), else runs standalone. Govern mode only: --dry-run
(decide and log, write nothing), --fail-closed-after 2m (whole minutes, at least 1m).`;

export interface RunModeFlags {
  mode: RunMode;
  dryRun: boolean;
  failClosedAfterMs: number;
  /** The govern-only flags given on the command line, as written (an error with standalone). */
  governOnly: string[];
}

type Values = { mode?: string; 'dry-run'?: boolean; 'fail-closed-after'?: string };

export function runModeFlags(v: Values): RunModeFlags {
  const mode = v.mode ?? 'auto';
  if (!(RUN_MODES as readonly string[]).includes(mode))
    throw new CliError(`--mode takes govern, standalone or auto, not \`${mode}\``);
  let failClosedAfterMs = DEFAULT_FAIL_CLOSED_AFTER_MS;
  if (v['fail-closed-after'] !== undefined) {
    const text = v['fail-closed-after'];
    failClosedAfterMs = durationFlagMs(text, 'fail-closed-after', '2m or 5m');
    if (failClosedAfterMs < 60_000 || failClosedAfterMs % 60_000 !== 0) {
      throw new CliError(`--fail-closed-after takes whole minutes, at least 1m (such as 2m or 5m), not \`${text}\``);
    }
  }
  const governOnly = [
    ...(v['dry-run'] ? ['--dry-run'] : []),
    ...(v['fail-closed-after'] !== undefined ? ['--fail-closed-after'] : []),
  ];
  const flags: RunModeFlags = { mode: mode as RunMode, dryRun: v['dry-run'] ?? false, failClosedAfterMs, governOnly };
  if (flags.mode === 'standalone') requireNoGovernFlags(flags, 'with --mode standalone they mean nothing');
  return flags;
}

/** Govern-only flags mean nothing standalone: refused rather than ignored (a --dry-run that writes would be worse). */
export function requireNoGovernFlags(flags: RunModeFlags, why: string): void {
  if (flags.governOnly.length === 0) return;
  const which = flags.governOnly.join(' and ');
  throw new CliError(`${which} ${flags.governOnly.length > 1 ? 'apply' : 'applies'} to govern mode only; ${why}`);
}

/** On kpol's own CRDs (deploy/crds/*.yaml): what tells them from Karpenter's. */
export const KPOL_CRD_LABEL = { key: 'app.kubernetes.io/managed-by', value: 'kpol' } as const;
export const NODEPOOL_CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nodepools.karpenter.sh';

export interface ModeDecision {
  mode: 'govern' | 'standalone';
  /** Why, for the start-up line. */
  why: string;
}

/** The part of a CustomResourceDefinition the decision reads. */
export interface CrdLike {
  metadata?: { labels?: Record<string, string>; [field: string]: unknown };
}

/** The decision from the NodePool CRD as read (undefined: not installed). */
export function decideMode(crd: CrdLike | undefined): ModeDecision {
  if (crd === undefined) return { mode: 'standalone', why: 'no karpenter.sh NodePool CRD is installed' };
  if (crd.metadata?.labels?.[KPOL_CRD_LABEL.key] === KPOL_CRD_LABEL.value) {
    return {
      mode: 'standalone',
      why: `the karpenter.sh NodePool CRD is kpol's own (label ${KPOL_CRD_LABEL.key}=${KPOL_CRD_LABEL.value})`,
    };
  }
  return {
    mode: 'govern',
    why: "the karpenter.sh NodePool CRD is installed and is not kpol's own: the cluster runs Karpenter",
  };
}

/**
 * Reads the NodePool CRD with `get` (a GET of NODEPOOL_CRD_PATH that throws the ApiError of a
 * non-2xx answer) and decides. A 403 is a clear error asking for --mode: guessing could run
 * standalone next to a real Karpenter.
 */
export async function detectMode(get: (path: string) => Promise<unknown>, where: string): Promise<ModeDecision> {
  try {
    return decideMode((await get(NODEPOOL_CRD_PATH)) as CrdLike);
  } catch (e) {
    if (isApiError(e, 404)) return decideMode(undefined);
    if (isApiError(e, 403)) {
      throw new CliError(
        `${where}: --mode auto reads customresourcedefinitions/nodepools.karpenter.sh to tell ` +
          `whether the cluster runs Karpenter, and that read is forbidden (403): give --mode govern ` +
          `or --mode standalone, or grant get on it (deploy/20-rbac.yaml)`,
      );
    }
    if (isApiError(e))
      throw new CliError(`${where}: reading the karpenter.sh NodePool CRD for --mode auto: ${e.message}`);
    throw e;
  }
}
