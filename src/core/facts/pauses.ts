// SPDX-License-Identifier: Apache-2.0
// Pauses (`kpol pause`): ConfigMaps labelled `kpol.dev/pause`, each one pause of some reasons
// on some NodePools until an instant. They live in the cluster, so a controller restart keeps
// them, and they end by themselves: the pool rules (rules/compile.ts, `pause:<reason>`)
// compare each end with `now`, so nobody has to delete an expired pause. This file only reads
// them and turns them into pool facts; whether a pool is paused is the rule graph's answer.
//
// A pause kpol cannot read fails closed: the pools it names (every pool when its pools cannot
// be read) are paused for the reasons it names (every reason when those cannot be read), with
// no end, and the problem is reported `ConfigMap/ns/name: key: problem` in the pools' errors.
import { parseTimestamp } from '../../../rules/checks/timestamp.js';
import { pauseFact } from '../../../rules/compile.js';
import { REASONS, type Reason } from '../../../rules/model.js';
import { closest } from '../../../grammar/suggest.js';
import { ownValue } from '../cluster/own-keys.js';
import type { ConfigMap } from '../cluster/types.js';

/** The label that marks a ConfigMap as a pause (its value is not read). */
export const LABEL_PAUSE = 'kpol.dev/pause';

/** The ConfigMap keys of a pause. */
export const PAUSE_KEYS = {
  nodePools: 'nodepools',
  reasons: 'reasons',
  until: 'until',
  by: 'by',
  note: 'note',
} as const;

/** The end of a pause that cannot be read: later than any instant kpol evaluates. */
export const PAUSED_FOREVER = 8.64e15;

export interface Pause {
  /** `ConfigMap/<namespace>/<name>`. */
  source: string;
  /** The NodePools it pauses; null = every NodePool. */
  nodePools: string[] | null;
  /** The reasons it pauses; null = every reason. */
  reasons: Reason[] | null;
  /** When it ends (exclusive), epoch ms; PAUSED_FOREVER when unreadable. */
  untilMs: number;
  by?: string;
  note?: string;
  /** Why it could not be read (`ConfigMap/ns/name: key: problem`); it then fails closed. */
  error?: string;
}

/** Lowercase RFC 1123 labels joined by dots: what a NodePool's name may be. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const list = (text: string | undefined): string[] =>
  (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export const isPause = (cm: ConfigMap): boolean => ownValue(cm.metadata.labels, LABEL_PAUSE) !== undefined;

/** Parses the reason names of a pause; an error text for the first that is not a reason. */
export function parseReasons(names: readonly string[]): { reasons: Reason[] } | { error: string } {
  for (const n of names) {
    if (!(REASONS as readonly string[]).includes(n)) {
      const near = closest(n, REASONS);
      return { error: `unknown reason "${n}"${near ? ` (did you mean ${near}?)` : ''}; one of ${REASONS.join(', ')}` };
    }
  }
  return { reasons: [...new Set(names)] as Reason[] };
}

/** Checks NodePool names as Kubernetes would accept them; an error text for the first that is not one. */
export function checkNodePoolNames(names: readonly string[]): string | undefined {
  const bad = names.find((n) => n.length > 253 || !DNS_SUBDOMAIN.test(n));
  return bad === undefined ? undefined : `"${bad}" is not a NodePool name (lowercase letters, digits, '-' and '.')`;
}

/** Parses an RFC 3339 instant with `Z` or an offset; undefined when it is not one. */
export const parseInstant = (text: string): number | undefined =>
  /[Zz]$|[+-]\d{2}:\d{2}$/.test(text) ? parseTimestamp(text, 'UTC') : undefined;

/** One pause from its ConfigMap; never throws (a problem is the pause's `error`, and it fails closed). */
export function readPause(cm: ConfigMap): Pause {
  const source = `ConfigMap/${cm.metadata.namespace ?? 'default'}/${cm.metadata.name}`;
  const data = cm.data ?? {};
  const get = (key: string) => ownValue(data, key);
  const problems: string[] = [];
  const problem = (key: string, text: string) => problems.push(`${source}: ${key}: ${text}`);

  const poolNames = list(get(PAUSE_KEYS.nodePools));
  const poolError = checkNodePoolNames(poolNames);
  if (poolError) problem(PAUSE_KEYS.nodePools, poolError);
  const parsedReasons = parseReasons(list(get(PAUSE_KEYS.reasons)));
  if ('error' in parsedReasons) problem(PAUSE_KEYS.reasons, parsedReasons.error);
  const untilText = get(PAUSE_KEYS.until);
  let untilMs = untilText === undefined ? undefined : parseInstant(untilText.trim());
  if (untilText === undefined) problem(PAUSE_KEYS.until, 'missing (an RFC 3339 instant such as 2026-11-25T21:00:00Z)');
  else if (untilMs === undefined)
    problem(PAUSE_KEYS.until, `"${untilText.slice(0, 80)}" is not an RFC 3339 instant (2026-11-25T21:00:00Z)`);
  if (problems.length) untilMs = PAUSED_FOREVER;

  const by = get(PAUSE_KEYS.by);
  const note = get(PAUSE_KEYS.note);
  return {
    source,
    nodePools: poolError || poolNames.length === 0 ? null : poolNames,
    reasons: 'error' in parsedReasons || parsedReasons.reasons.length === 0 ? null : parsedReasons.reasons,
    untilMs: untilMs!,
    ...(by && { by }),
    ...(note && { note }),
    ...(problems.length && { error: problems.join('; ') }),
  };
}

/** Every pause among the ConfigMaps, by namespace and name (whatever order a snapshot file lists them in). */
export const pausesOf = (configMaps: readonly ConfigMap[]): Pause[] =>
  configMaps
    .filter(isPause)
    .map(readPause)
    .sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));

export const pausesPool = (p: Pause, pool: string): boolean => p.nodePools === null || p.nodePools.includes(pool);
export const pausesReason = (p: Pause, reason: Reason): boolean => p.reasons === null || p.reasons.includes(reason);

/** The pool facts `pause:<reason>` for one NodePool: the latest end of the pauses naming it and the reason. */
export function pauseFacts(pauses: readonly Pause[], pool: string): Record<`pause:${Reason}`, number> {
  const facts = Object.fromEntries(REASONS.map((r) => [pauseFact(r), 0])) as Record<`pause:${Reason}`, number>;
  for (const p of pauses) {
    if (!pausesPool(p, pool)) continue;
    for (const r of REASONS) if (pausesReason(p, r) && p.untilMs > facts[pauseFact(r)]) facts[pauseFact(r)] = p.untilMs;
  }
  return facts;
}

const instantText = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

/** The why-not of a pause, as eval, explain and the status page say it. */
export function pauseMessage(p: Pause): string {
  if (p.error) return `paused (fail closed, ${p.reasons?.join(', ') ?? 'every reason'}): ${p.error}`;
  const what = p.reasons?.join(', ') ?? 'every reason';
  const by = p.by ? ` (by ${p.by})` : '';
  const note = p.note ? `: ${p.note}` : '';
  return `${what} paused by kpol pause until ${instantText(p.untilMs)}${by}${note} [${p.source}]`;
}
