// SPDX-License-Identifier: Apache-2.0
// The editor support in grammar/ that the browser editor and `kpol lsp` share: go to a named
// schedule from every statement that can hold a window, hover docs only on real keywords, and
// which quick fixes apply where.
import { describe, expect, it } from 'vitest';
import { wordDocAt } from '../../grammar/hover.js';
import { KEYWORD_DOCS, REASON_DOCS } from '../../grammar/keyword-docs.js';
import { parse } from '../../grammar/parse.js';
import { fixesTouching } from '../../grammar/quick-fix.js';
import { scheduleDefinitionAt } from '../../grammar/schedule-definition.js';
import { checkSource } from '../../rules/checks/check.js';

const TEXT = `schedule night = "0 22 * * *" for 8h
schedule weekend = "0 0 * * 6" for 48h

policy p for nodepool default {
  budget 1 during weekend
  allow 2 Underutilized only during night
  pods where app = db disruptable only during night in "UTC"
  window patch blocks Drifted during "0 6 * * 1" for 1h, weekend
}
`;
const file = parse(TEXT).value;
/** The offset of the `nth` occurrence of `word` as a whole word. */
const at = (word: string, nth = 0) => [...TEXT.matchAll(new RegExp(`\\b${word}\\b`, 'g'))][nth].index! + 1;
const declared = (name: string) => file.schedules.find((s) => s.name.text === name)!.name.range;

describe('scheduleDefinitionAt', () => {
  it('goes to the declaration from a use in a budget, an allow, a pod window and a maintenance window', () => {
    expect(parse(TEXT).diagnostics).toEqual([]);
    expect(scheduleDefinitionAt(file, at('weekend', 1))).toEqual(declared('weekend')); // budget
    expect(scheduleDefinitionAt(file, at('night', 1))).toEqual(declared('night')); // allow
    expect(scheduleDefinitionAt(file, at('night', 2))).toEqual(declared('night')); // pods
    expect(scheduleDefinitionAt(file, at('weekend', 2))).toEqual(declared('weekend')); // window, 2nd schedule
    expect(scheduleDefinitionAt(file, at('night'))).toEqual(declared('night')); // the declaration itself
  });
  it('answers nothing off a schedule name, or for a name no schedule declares', () => {
    expect(scheduleDefinitionAt(file, at('Underutilized'))).toBeUndefined();
    expect(scheduleDefinitionAt(file, at('patch'))).toBeUndefined();
    const undeclared = parse('policy p for nodepool a {\n  budget 1 during nightly\n}\n').value;
    expect(scheduleDefinitionAt(undeclared, 40)).toBeUndefined();
  });
});

describe('wordDocAt', () => {
  it('documents keywords and reasons, including with the cursor just after the word', () => {
    expect(wordDocAt(TEXT, at('budget'))?.markdown).toBe(`**budget**\n\n${KEYWORD_DOCS.budget}`);
    expect(wordDocAt(TEXT, at('Drifted') + 'Drifted'.length - 1)?.markdown).toContain(REASON_DOCS.Drifted);
    const end = TEXT.indexOf('budget') + 'budget'.length;
    expect(wordDocAt(TEXT, end)?.word).toBe('budget');
  });
  it('shows nothing inside a string, a comment or a name', () => {
    const text = '# budget\npolicy budget-ish for nodepool a {\n  budget 1 during "0 1 * * *" for 1h in "UTC"\n}\n';
    expect(wordDocAt(text, 3)).toBeUndefined(); // comment
    expect(wordDocAt(text, text.indexOf('budget-ish') + 2)).toBeUndefined(); // a name starting like a keyword
    expect(wordDocAt(text, text.indexOf('"UTC"') + 2)).toBeUndefined(); // string
    expect(wordDocAt(text, text.indexOf(' in ') + 1)?.word).toBe('in');
  });
});

describe('fixesTouching', () => {
  const { diagnostics } = checkSource('policy p for nodepool a {\n  budget 1 for Drifed, Emty\n}\n');
  const fixes = (from: [number, number], to: [number, number]) =>
    fixesTouching(diagnostics, { line: from[0], character: from[1] }, { line: to[0], character: to[1] }).map(
      (d) => d.fix,
    );
  it('picks the diagnostics with a fix that overlap or touch the range', () => {
    expect(fixes([1, 16], [1, 16])).toEqual(['Drifted']); // inside `Drifed`
    expect(fixes([1, 21], [1, 21])).toEqual(['Drifted']); // just after it
    expect(fixes([1, 0], [1, 40])).toEqual(['Drifted', 'Empty']);
    expect(fixes([0, 0], [0, 5])).toEqual([]);
  });
});
