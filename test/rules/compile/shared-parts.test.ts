// SPDX-License-Identifier: Apache-2.0
// compile.ts builds each budget id's rule names and window conditions once and shares them between
// graphs. A shared part must be what a graph of its own would hold, and running a graph must leave
// the parts it shares with other graphs as they were.
import { describe, expect, it } from 'vitest';
import { checkSource } from '../../../rules/checks/check.js';
import { compile } from '../../../rules/compile.js';
import { GraphEngine } from '../../../rules/engine.js';

const specs = checkSource(
  [
    'policy a for nodepool a {',
    '  budget 0 during "@daily" for 10m',
    '  allow 2 Drifted only during "0 2 * * *" for 1h',
    '}',
    'policy b for nodepool b {',
    '  budget 1 during "@hourly" for 10m',
    '  allow 2 Drifted only during "0 3 * * *" for 1h',
    '}',
  ].join('\n'),
).value;

describe('budget rule parts shared between graphs', () => {
  it("are shared by equal budget ids and read as each graph's own", async () => {
    const [a, b] = specs.map(compile);
    const rule = (g: typeof a, name: string) => g!.poolRules.find((r) => r.name === name)!;
    expect(rule(a, 'budget:b0').conditions).toBe(rule(b, 'budget:b0').conditions);
    expect(rule(a, 'budget:b1:closed').conditions).toEqual({
      all: [{ fact: 'window:b1', operator: 'equal', value: false }],
    });
    const before = JSON.stringify(b);
    // Running a graph must not change what another graph shares with it.
    const facts = { now: 0, budgetErrors: 0, 'window:b0': true, 'window:b1': false };
    const events = await new GraphEngine(a!).runPool(facts as never);
    expect(events.map((e) => e.rule).sort()).toEqual(['budget:b0', 'budget:b1:closed']);
    expect(JSON.stringify(b)).toBe(before);
    expect(JSON.stringify(compile(specs[1]!))).toBe(before);
  });
});
