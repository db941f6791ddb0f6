// SPDX-License-Identifier: Apache-2.0
// Reason lists → model reasons. Exact case only, as Karpenter's CRD enum; an empty list is
// `null`, which applies to every reason (Karpenter's nil).
import type { Name } from '../../grammar/ast.js';
import { diagnostic } from '../../grammar/diagnostic.js';
import { REASONS, type Reason } from '../model.js';
import { report, type PolicyUnit } from './context.js';
import { firstWritten, suggestion } from './notes.js';

export function lowerReasons(unit: PolicyUnit, names: readonly Name[]): Reason[] | null {
  if (names.length === 0) return null;
  // At most four reasons: arrays, not a Map (this runs for every reason list of every policy).
  const reasons: Reason[] = [];
  const firsts: Name[] = [];
  for (const name of names) {
    const text = name.text;
    if (!(REASONS as readonly string[]).includes(text)) {
      const s = suggestion(text, REASONS);
      report(unit, diagnostic('unknownReason', name.range, { name: text }, s ?? {}));
      unit.incomplete = true;
      continue;
    }
    const reason = text as Reason;
    const seen = reasons.indexOf(reason);
    if (seen >= 0) {
      const first = firsts[seen]!;
      report(unit, diagnostic('duplicateReason', name.range, { name: text }, { related: firstWritten(first.range) }));
      continue;
    }
    if (reason === 'Expired' && unit.spec.expiration !== 'graceful') {
      // In an incomplete policy the `expire … gracefully` may be the text that did not parse.
      if (!unit.unparsed) report(unit, diagnostic('expiredNeedsGraceful', name.range));
      continue;
    }
    reasons.push(reason);
    firsts.push(name);
  }
  return reasons;
}
