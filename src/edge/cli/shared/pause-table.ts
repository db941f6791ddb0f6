// SPDX-License-Identifier: Apache-2.0
// `kpol pause --list`: the pauses in a namespace as a table, the ones in force first. An ended
// pause does nothing (the evaluator compares its end with the instant) but stays until `kpol
// resume` removes it; an unreadable one holds every reason it may name until it is fixed.
import type { ConfigMap } from '../../../core/cluster/types.js';
import { PAUSED_FOREVER, type Pause } from '../../../core/facts/pauses.js';
import { scopeText } from '../../../core/policy/pause-store.js';

const instant = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function state(p: Pause, nowMs: number): string {
  if (p.error) return 'invalid (holds)';
  return p.untilMs > nowMs ? 'in force' : 'ended';
}

export function pauseTable(pauses: readonly { cm: ConfigMap; pause: Pause }[], nowMs: number): string {
  if (pauses.length === 0) return 'no pauses';
  const rank = (p: Pause) => (p.error ? 0 : p.untilMs > nowMs ? 1 : 2);
  const sorted = [...pauses].sort(
    (a, b) => rank(a.pause) - rank(b.pause) || a.cm.metadata.name.localeCompare(b.cm.metadata.name),
  );
  const rows = [
    ['CONFIGMAP', 'STATE', 'PAUSES', 'UNTIL', 'BY', 'NOTE'],
    ...sorted.map(({ cm, pause: p }) => [
      cm.metadata.name,
      state(p, nowMs),
      scopeText(p),
      p.untilMs >= PAUSED_FOREVER ? '-' : instant(p.untilMs),
      p.by ?? '-',
      p.error ?? p.note ?? '-',
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
