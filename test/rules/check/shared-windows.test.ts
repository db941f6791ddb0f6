// SPDX-License-Identifier: Apache-2.0
// lower-window.ts gives every use of the same valid window in a file one shared WindowSpec. The
// specs must be what each policy gets when checked alone (where nothing is shared), and only
// windows equal in cron, duration and zone may share one.
import { describe, expect, it } from 'vitest';
import { parse } from '../../../grammar/parse.js';
import { checkAll } from '../../../rules/checks/check.js';
import type { PolicySpec, WindowSpec } from '../../../rules/model.js';
import { generatePolicy } from '../../bench/generate.js';

const specsOf = (text: string): PolicySpec[] => checkAll([{ fileName: 'f.kpol', file: parse(text).value }]).value;

/** Every window a spec holds, in a fixed order. */
const windowsOf = (s: PolicySpec): WindowSpec[] => [
  ...s.budgets.flatMap((b) => (b.window ? [b.window] : [])),
  ...s.podWindows.flatMap((p) => (p.window ? [p.window] : [])),
  ...s.maintenanceWindows.flatMap((w) => w.windows),
];

const MIXED = [
  'schedule nightly = "0 1 * * mon-fri" for 4h in "Europe/Berlin"',
  'policy a for nodepool a {',
  '  budget 0 for Underutilized during "@daily" for 10m',
  '  allow 3 Drifted only during nightly',
  '  window w blocks Drifted during "@daily" for 10m, "@daily" for 20m',
  '}',
  'policy b for nodepool b {',
  '  timezone "Asia/Tokyo"',
  '  budget 0 for Underutilized during "@daily" for 10m',
  '  budget 1 during "@daily" for 10m in "UTC"',
  '  allow 3 Drifted only during nightly',
  '  pods where app = x disruptable only during "@daily" for 10m',
  '}',
  'policy c for nodepool c {',
  '  budget 0 during "@daily" for 10m in "Nowhere/Atlantis"',
  '  budget 1 during "@dialy" for 10m',
  '}',
].join('\n');

describe('shared window specs', () => {
  it.each([
    ['generated', generatePolicy(300)],
    ['mixed zones, durations and errors', MIXED],
  ])('%s: each policy gets the specs it gets when checked alone', (_name, text) => {
    const together = specsOf(text);
    const alone = parse(text).value.policies.map((p) => {
      const own = text.slice(p.range.start.offset, p.range.end.offset);
      const decls = text.split('\n').filter((l) => l.startsWith('schedule ')); // policies may name them
      return specsOf([...decls, own].join('\n'))[0]!;
    });
    expect(together.length).toBe(alone.length);
    together.forEach((spec, i) => {
      // Sources differ (the policy moved); everything a window decides must not.
      expect(JSON.stringify(windowsOf(spec))).toBe(JSON.stringify(windowsOf(alone[i]!)));
      expect(windowsOf(spec).length).toBeGreaterThan(0);
    });
  });

  it('shares one spec between equal windows only', () => {
    const [a, b, c] = specsOf(MIXED);
    const daily = a!.budgets[0]!.window!;
    expect(daily).toEqual({ cron: '@daily', durationSeconds: 600, timeZone: 'UTC' });
    expect(a!.maintenanceWindows[0]!.windows[0]).toBe(daily);
    expect(a!.maintenanceWindows[0]!.windows[1]).not.toBe(daily); // 20m
    expect(b!.budgets[0]!.window).toEqual({ ...daily, timeZone: 'Asia/Tokyo' }); // the policy's zone
    expect(b!.budgets[1]!.window).toBe(daily); // `in "UTC"` written out
    expect(b!.podWindows[0]!.window).toBe(b!.budgets[0]!.window);
    expect(b!.budgets[2]!.window).toBe(a!.budgets[1]!.window); // the named schedule
    // An invalid window carries its own error; nothing is shared between two checks.
    expect(c!.budgets.map((x) => x.window!.error !== undefined)).toEqual([false, true]);
    expect(specsOf(MIXED)[0]!.budgets[0]!.window).not.toBe(daily);
  });
});
