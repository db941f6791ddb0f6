// SPDX-License-Identifier: Apache-2.0
// Stage: `freeze` statements → FreezeSpec with absolute instants, ids `f0, f1, …`.
import type { FreezeStmt, Str } from '../../grammar/ast.js';
import { diagnostic } from '../../grammar/diagnostic.js';
import { MESSAGES } from '../../grammar/messages.js';
import type { FreezeSpec } from '../model.js';
import { isKnownTimeZone } from '../window.js';
import { report, type CheckContext, type PolicyUnit } from './context.js';
import { lowerReasons } from './reasons.js';
import { timeZoneProblem } from './time-zones.js';
import { parseTimestamp } from './timestamp.js';

const HOUR = 3_600_000;
// UTC offsets in use lie within −12h…+14h: widening a UTC reading by them covers every
// instant an unknown zone could mean, so the freeze fails closed.
const EARLIEST_OFFSET = 14 * HOUR;
const LATEST_OFFSET = 12 * HOUR;

export function lowerFreezes(ctx: CheckContext): void {
  for (const unit of ctx.units) {
    const stmts = unit.ast.statements.filter((s): s is FreezeStmt => s.kind === 'Freeze');
    unit.spec.freezes = stmts.map((s, i) => lowerFreeze(unit, s, `f${i}`, ctx.nowMs));
  }
}

function lowerFreeze(unit: PolicyUnit, stmt: FreezeStmt, id: string, nowMs: number | undefined): FreezeSpec {
  const { from, to, timeZone } = stmt.when;
  const zoneLit = timeZone;
  const zoneProblem = zoneLit && timeZoneProblem(zoneLit);
  if (zoneProblem) report(unit, zoneProblem);
  const zone = zoneLit?.value ?? unit.defaultZone;
  const known = isKnownTimeZone(zone);
  const fromMs = instant(unit, from, known ? zone : 'UTC');
  const toMs = instant(unit, to, known ? zone : 'UTC');
  const freeze: FreezeSpec = {
    id,
    reasons: lowerReasons(unit, stmt.reasons),
    range: { fromMs: fromMs ?? 0, toMs: toMs ?? 0 },
    source: stmt.range,
  };
  if (stmt.name) freeze.name = stmt.name.text;
  if (fromMs === undefined || toMs === undefined) return freeze;
  if (toMs <= fromMs) {
    report(
      unit,
      diagnostic(
        'emptyRange',
        to.range,
        { from: from.value, to: to.value },
        { related: [{ range: from.range, message: MESSAGES.rangeStartsHere.text }] },
      ),
    );
    return freeze;
  }
  if (!known) freeze.range = { fromMs: fromMs - EARLIEST_OFFSET, toMs: toMs + LATEST_OFFSET };
  if (nowMs !== undefined && freeze.range.toMs <= nowMs) {
    report(
      unit,
      diagnostic('freezeInPast', to.range, { to: to.value, now: new Date(nowMs).toISOString().replace('.000Z', 'Z') }),
    );
  }
  return freeze;
}

function instant(unit: PolicyUnit, lit: Str, zone: string): number | undefined {
  const ms = parseTimestamp(lit.value, zone);
  if (ms === undefined) report(unit, diagnostic('invalidTimestamp', lit.range, { text: lit.value }));
  return ms;
}
