// SPDX-License-Identifier: Apache-2.0
// kpol's record of disruption starts on each NodePool (annotation kpol.dev/disruption-starts),
// which rate budgets count (src/core/cluster/disruption-starts.ts, rules/README §3.6.1). Written
// by the same two calls in every mode: `recordStarts` when kpol's own queue starts a command
// (standalone, simulate), and `recordObservedStarts` each tick for starts seen on live NodeClaims
// (govern mode, where Karpenter starts them; in standalone it finds nothing new). Only pools
// governed by a policy with a rate budget are written, so other NodePools are never touched.
import type { ClusterClient } from '../../core/cluster/client.js';
import {
  DISRUPTION_STARTS_ANNOTATION,
  formatStarts,
  mergeStarts,
  observedStartsByPool,
  parseStarts,
  type DisruptionStart,
} from '../../core/cluster/disruption-starts.js';
import type { ClusterIndex } from '../../core/cluster/state.js';
import type { NodePool } from '../../core/cluster/types.js';

/**
 * Adds `starts` to the pool's record (pruned to 7 days, at most 1000). A record kpol cannot read
 * is left as it is: the pool's rate budgets allow nothing until someone repairs or removes it,
 * where overwriting it would forget the starts it held (fail open).
 */
export async function recordStarts(
  client: ClusterClient,
  pool: string,
  starts: readonly DisruptionStart[],
  nowMs: number,
  given?: NodePool,
): Promise<void> {
  // Govern mode passes the NodePool it watches: its role may list and patch NodePools, not get them.
  const np = given ?? (await client.get<NodePool>({ kind: 'NodePool', name: pool }));
  if (!np) return;
  const current = np.metadata.annotations?.[DISRUPTION_STARTS_ANNOTATION];
  const recorded = parseStarts(current);
  if ('error' in recorded) return;
  const text = formatStarts(mergeStarts(recorded.starts, starts, nowMs));
  if (text === (current ?? '[]')) return;
  await client.patch(
    { kind: 'NodePool', name: pool },
    { metadata: { annotations: { [DISRUPTION_STARTS_ANNOTATION]: text } } },
  );
}

/**
 * Records every start the live NodeClaims of the `rated` pools show (their DisruptionReason
 * condition), and the `started` ones kpol made itself this tick, that the pool's record lacks, so
 * each is remembered once the NodeClaim is gone. One write per pool, over the NodePool in `index`.
 */
export async function recordObservedStarts(
  client: ClusterClient,
  index: ClusterIndex,
  rated: (pool: string) => boolean,
  nowMs: number,
  started: ReadonlyMap<string, readonly DisruptionStart[]> = new Map(),
): Promise<void> {
  // Most clusters have no rated pool: then no NodeClaim needs reading (a tick over 5,000 of them
  // spent 1.5 ms here on a quiet cluster).
  let anyRated = false;
  for (const pool of index.nodePoolsByName.keys()) if ((anyRated = rated(pool))) break;
  if (!anyRated && started.size === 0) return;
  const observed = anyRated ? observedStartsByPool(index, nowMs) : new Map<string, DisruptionStart[]>();
  for (const pool of new Set([...observed.keys(), ...started.keys()])) {
    if (!rated(pool)) continue;
    const np = index.nodePoolsByName.get(pool);
    const recorded = np && parseStarts(np.metadata.annotations?.[DISRUPTION_STARTS_ANNOTATION]);
    if (!recorded || 'error' in recorded) continue;
    const key = (s: DisruptionStart) => `${s.nodeClaim}\u0000${s.reason}\u0000${s.atMs}`;
    const known = new Set(recorded.starts.map(key));
    const fresh = [...(observed.get(pool) ?? []), ...(started.get(pool) ?? [])].filter((s) => !known.has(key(s)));
    if (fresh.length) await recordStarts(client, pool, fresh, nowMs, np);
  }
}
