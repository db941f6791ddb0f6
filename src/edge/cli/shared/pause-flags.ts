// SPDX-License-Identifier: Apache-2.0
// The flags `kpol pause` and `kpol resume` share: which reasons and NodePools (repeatable, or
// comma-separated), and where the pauses live. Bad values are usage errors naming the flag.
import { checkNodePoolNames, parseReasons } from '../../../core/facts/pauses.js';
import type { PauseScope } from '../../../core/policy/pause-store.js';
import { closest } from '../../../../grammar/suggest.js';
import type { ClusterClient } from '../../../core/cluster/client.js';
import type { NodePool } from '../../../core/cluster/types.js';
import { DEFAULT_NAMESPACE } from './cluster-factory.js';
import { CliError, EXIT_FINDINGS } from './io.js';

export const PAUSE_SCOPE_OPTIONS = {
  reason: { type: 'string', multiple: true },
  nodepool: { type: 'string', multiple: true },
  namespace: { type: 'string', default: DEFAULT_NAMESPACE },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
} as const;

const split = (values: readonly string[] | undefined): string[] =>
  (values ?? []).flatMap((v) => v.split(',')).map((v) => v.trim());

/** The scope the flags name; a usage error (exit 2) for an unknown reason or an impossible NodePool name. */
export function scopeOf(values: { reason?: string[]; nodepool?: string[] }): PauseScope {
  const reasonNames = split(values.reason);
  if (reasonNames.some((r) => r === ''))
    throw new CliError('--reason: an empty reason; name one of Empty, Drifted, Underutilized, Expired');
  const reasons = parseReasons(reasonNames);
  if ('error' in reasons) throw new CliError(`--reason: ${reasons.error}`);
  const nodePools = split(values.nodepool);
  const bad = checkNodePoolNames(nodePools);
  if (bad) throw new CliError(`--nodepool: ${bad}`);
  return { nodePools, reasons: reasons.reasons };
}

/**
 * Every NodePool the scope names must exist, so a typo does not pause (or fail to resume)
 * nothing at all: exit 1 with "did you mean" when one does not.
 */
export async function checkNodePoolsExist(client: ClusterClient, scope: PauseScope): Promise<void> {
  if (scope.nodePools.length === 0) return;
  const names = (await client.list<NodePool>('NodePool')).map((np) => np.metadata.name);
  for (const p of scope.nodePools) {
    if (names.includes(p)) continue;
    const near = closest(p, names);
    throw new CliError(
      `--nodepool: there is no NodePool "${p}" in the cluster${near ? `; did you mean ${near}?` : ''}`,
      EXIT_FINDINGS,
    );
  }
}
