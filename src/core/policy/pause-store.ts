// SPDX-License-Identifier: Apache-2.0
// Writing and removing pauses (`kpol pause`, `kpol resume`): one ConfigMap per scope (which
// NodePools, which reasons), named from the scope, so pausing the same scope again moves its
// end and resuming a scope finds its pause without a lookup table. Every write carries the
// resourceVersion it was based on, so a concurrent `kpol pause`/`resume` is a conflict, not lost.
import type { Reason } from '../../../rules/model.js';
import { REASONS } from '../../../rules/model.js';
import { isApiError, type ClusterClient } from '../cluster/client.js';
import type { ConfigMap } from '../cluster/types.js';
import { isPause, LABEL_PAUSE, PAUSE_KEYS, readPause, type Pause } from '../facts/pauses.js';

export interface PauseScope {
  /** Empty: every NodePool. */
  nodePools: readonly string[];
  /** Empty: every reason. */
  reasons: readonly Reason[];
}

export interface PauseRequest extends PauseScope {
  untilMs: number;
  by?: string;
  note?: string;
}

/** FNV-1a, 32 bits: a short stable name for a scope (portable; no node:crypto in core). */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** The scope in a canonical order (sorted pools; reasons in kpol's order). */
export function canonicalScope(scope: PauseScope): PauseScope {
  return {
    nodePools: [...new Set(scope.nodePools)].sort(),
    reasons: REASONS.filter((r) => scope.reasons.includes(r)),
  };
}

/** The ConfigMap that holds the pause of a scope: `kpol-pause-<hash of the canonical scope>`. */
export function pauseConfigMapName(scope: PauseScope): string {
  const c = canonicalScope(scope);
  return `kpol-pause-${fnv1a(`nodepools=${c.nodePools.join(',')};reasons=${c.reasons.join(',')}`)}`;
}

/** How a scope reads in messages: `Drifted on NodePools web, batch`, `every reason on every NodePool`. */
export function scopeText(scope: { nodePools: readonly string[] | null; reasons: readonly string[] | null }): string {
  const reasons = scope.reasons?.length ? scope.reasons.join(', ') : 'every reason';
  const pools = scope.nodePools?.length
    ? `NodePool${scope.nodePools.length > 1 ? 's' : ''} ${scope.nodePools.join(', ')}`
    : 'every NodePool';
  return `${reasons} on ${pools}`;
}

export type PauseWrite =
  { kind: 'written'; configMap: ConfigMap; created: boolean } | { kind: 'conflict'; message: string };

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** Creates the scope's pause, or moves the end of the one there (its resourceVersion is the precondition). */
export async function writePause(client: ClusterClient, namespace: string, req: PauseRequest): Promise<PauseWrite> {
  const scope = canonicalScope(req);
  const name = pauseConfigMapName(scope);
  const data: Record<string, string> = {
    [PAUSE_KEYS.until]: iso(req.untilMs),
    ...(scope.nodePools.length && { [PAUSE_KEYS.nodePools]: scope.nodePools.join(',') }),
    ...(scope.reasons.length && { [PAUSE_KEYS.reasons]: scope.reasons.join(',') }),
    ...(req.by && { [PAUSE_KEYS.by]: req.by }),
    ...(req.note && { [PAUSE_KEYS.note]: req.note }),
  };
  const existing = await client.get<ConfigMap>({ kind: 'ConfigMap', namespace, name });
  try {
    if (!existing) {
      const configMap = await client.create<ConfigMap>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace, labels: { [LABEL_PAUSE]: 'true' } },
        data,
      });
      return { kind: 'written', configMap, created: true };
    }
    const labels = { ...existing.metadata.labels, [LABEL_PAUSE]: 'true' };
    const configMap = await client.update<ConfigMap>({ ...existing, metadata: { ...existing.metadata, labels }, data });
    return { kind: 'written', configMap, created: false };
  } catch (e) {
    if (isApiError(e, 409))
      return {
        kind: 'conflict',
        message: `configmap/${namespace}/${name} changed while it was written (${e.message})`,
      };
    throw e;
  }
}

/** The pauses in a namespace, with their ConfigMaps. */
export async function listPauses(client: ClusterClient, namespace: string): Promise<{ cm: ConfigMap; pause: Pause }[]> {
  const cms = await client.list<ConfigMap>('ConfigMap', namespace);
  return cms.filter(isPause).map((cm) => ({ cm, pause: readPause(cm) }));
}

export type PauseRemoval =
  | { kind: 'removed'; removed: Pause[] }
  | { kind: 'not-found'; remaining: Pause[] }
  | { kind: 'conflict'; message: string; removed: Pause[] };

/**
 * Deletes the pause of exactly `scope` (or, with `all`, every pause in the namespace), each with
 * the resourceVersion read as its precondition: a pause moved on since is left in place.
 */
export async function removePauses(
  client: ClusterClient,
  namespace: string,
  which: { all: true } | { all: false; scope: PauseScope },
): Promise<PauseRemoval> {
  const found = await listPauses(client, namespace);
  const name = which.all ? undefined : pauseConfigMapName(which.scope);
  const chosen = found.filter((f) => name === undefined || f.cm.metadata.name === name);
  if (!which.all && chosen.length === 0) return { kind: 'not-found', remaining: found.map((f) => f.pause) };
  const removed: Pause[] = [];
  for (const { cm, pause } of chosen) {
    try {
      await client.delete(
        { kind: 'ConfigMap', namespace, name: cm.metadata.name },
        { preconditions: { resourceVersion: cm.metadata.resourceVersion } },
      );
      removed.push(pause);
    } catch (e) {
      if (isApiError(e, 404)) continue; // resumed by someone else meanwhile: what was asked for holds
      if (isApiError(e, 409))
        return { kind: 'conflict', message: `${pause.source} changed while it was being removed`, removed };
      throw e;
    }
  }
  return { kind: 'removed', removed };
}
