// SPDX-License-Identifier: Apache-2.0
// What completion offers at a position, decided from the words before it on the statement's
// line: reasons after `for`/`blocks`/`allow`/`freeze`, consolidation policies after `when`,
// zones inside the string after `in`/`timezone`, NodePool names after `nodepool(s)`, label keys
// after `where`/`and`, that key's values after `=`/`in (`, else keywords. Pure and portable:
// the browser editor maps the result to Monaco items, `kpol lsp` to LSP completion items.
import { CONSOLIDATION_POLICIES } from '../grammar/keyword-docs.js';
import { KEYWORDS, REASONS, STATEMENT_KEYWORDS } from '../grammar/tokens.js';
import { timeZones } from './timezones.js';

/**
 * The names completion offers beyond the language's own words, from a cluster
 * (src/core/cluster/cluster-words.ts): the browser editor's connected one, or the snapshot given
 * to `kpol lsp --cluster`; empty without one.
 */
export interface ClusterWords {
  nodePools: string[];
  labels: Map<string, string[]>; // key → values
  namespaces: string[];
}

export type OfferKind =
  'keyword' | 'reason' | 'consolidation' | 'zone' | 'nodepool' | 'labelKey' | 'labelValue' | 'namespace';

export interface Offer {
  label: string;
  kind: OfferKind;
  detail?: string;
}

const WORD = /[A-Za-z0-9_](?:[A-Za-z0-9_.-]|\/(?!\/))*|==|!=|[=(),{}!]/g;

const offers = (kind: OfferKind, labels: readonly string[], detail?: string): Offer[] =>
  labels.map((label) => ({ label, kind, ...(detail && { detail }) }));

/** `before` is the line's text up to the cursor, without the word being typed. */
export function offersAt(before: string, words: ClusterWords): Offer[] {
  return (
    contextOffers(before, words) ?? [...offers('keyword', KEYWORDS), ...offers('reason', REASONS, 'disruption reason')]
  );
}

/**
 * What the context before the cursor calls for; undefined where any keyword or reason might
 * follow. A trigger character (a space, a quote, `(`, `,`) opens completion only for these:
 * every space in a statement would otherwise open the list of every keyword, which typing a
 * letter of the word (or Ctrl+Space) brings up anyway.
 */
// eslint-disable-next-line complexity -- one switch over the grammar's completion contexts; each case is two lines
export function contextOffers(before: string, words: ClusterWords): Offer[] | undefined {
  const quotes = (before.match(/"/g) ?? []).length;
  const tokens: string[] = (quotes % 2 === 1 ? before.slice(0, before.lastIndexOf('"')) : before).match(WORD) ?? [];
  const prev = tokens.at(-1);
  const first = tokens[0];
  if (quotes % 2 === 1) return prev === 'in' || prev === 'timezone' ? offers('zone', timeZones()) : [];
  const reasons = () => offers('reason', REASONS, 'disruption reason');
  // Walk back over a comma-separated list to the word that introduced it.
  let i = tokens.length - 1;
  while (i > 0 && (tokens[i] === ',' || (tokens[i - 1] === ',' && tokens[i] !== ','))) i--;
  const head = prev === ',' ? tokens[i] : prev;
  if (first === 'policy' && prev === 'for') return offers('keyword', ['nodepool', 'nodepools']);
  if (head === 'nodepool' || head === 'nodepools')
    return [...offers('nodepool', words.nodePools, 'NodePool'), ...(prev === head ? offers('keyword', ['where']) : [])];
  if (prev === 'when')
    return CONSOLIDATION_POLICIES.map((c) => ({ label: c.text, kind: 'consolidation', detail: c.detail }));
  if (head === 'namespace') return offers('namespace', words.namespaces, 'namespace');
  if (prev === 'where' || prev === 'and' || (prev === ',' && tokens.includes('where') && !tokens.includes('('))) {
    return offers('labelKey', [...words.labels.keys()], 'label key');
  }
  const open = tokens.lastIndexOf('(');
  const opIndex = ['=', '==', '!='].includes(prev ?? '')
    ? tokens.length - 1
    : open > 0 && !tokens.slice(open).includes(')')
      ? open - 1
      : -1;
  if (opIndex > 0) {
    const key = tokens[opIndex - 1];
    return offers('labelValue', words.labels.get(key) ?? [], key);
  }
  if (['for', 'blocks', 'allow', 'freeze'].includes(head ?? '') && first !== 'policy' && first !== 'schedule') {
    const n = /^\d/.test(prev ?? '');
    return [...(n ? [] : reasons()), ...(first === 'budget' ? offers('keyword', ['during']) : [])];
  }
  if (first === 'allow' && /^\d/.test(prev ?? '')) return [...reasons(), ...offers('keyword', ['only'])];
  if (tokens.length === 0) return offers('keyword', [...STATEMENT_KEYWORDS, 'policy', 'schedule']);
  return undefined;
}
