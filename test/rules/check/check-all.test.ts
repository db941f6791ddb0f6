// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { parse } from '../../../grammar/parse.js';
import { checkAll, STAGES } from '../../../rules/checks/check.js';

const input = (fileName: string, text: string) => ({ fileName, file: parse(text).value });

describe('checking several files together', () => {
  it('reports a NodePool governed by policies in two files, in the second file, pointing at the first', () => {
    const result = checkAll([
      input('a.kpol', 'policy a for nodepool default, gpu {\n}\n'),
      input('b.kpol', 'policy b for nodepool gpu {\n}\n'),
    ]);
    expect(result.files[0].diagnostics).toEqual([]);
    const [d] = result.files[1].diagnostics;
    expect(d.code).toBe('KPOL2012');
    expect(d.message).toBe('NodePool `gpu` is governed by both `a` and `b`');
    expect(d.range.start).toMatchObject({ line: 0, character: 22 });
    expect(d.related).toEqual([
      {
        range: expect.objectContaining({ start: expect.objectContaining({ line: 0, character: 31 }) }),
        message: 'first written in `a.kpol`',
        file: 'a.kpol',
      },
    ]);
    expect(result.value.map((p) => [p.name, p.file])).toEqual([
      ['a', 'a.kpol'],
      ['b', 'b.kpol'],
    ]);
  });

  it('reports a policy name declared in two files', () => {
    const result = checkAll([
      input('a.kpol', 'policy p for nodepool x {\n}\n'),
      input('b.kpol', 'policy p for nodepool y {\n}\n'),
    ]);
    expect(result.files[1].diagnostics.map((d) => d.code)).toEqual(['KPOL2011']);
  });

  it('keeps named schedules local to their file', () => {
    const result = checkAll([
      input(
        'a.kpol',
        'schedule nightly = "0 1 * * *" for 1h\npolicy a for nodepool x {\n  budget 0 during nightly\n}\n',
      ),
      input('b.kpol', 'policy b for nodepool y {\n  budget 0 during nightly\n}\n'),
    ]);
    expect(result.files[0].diagnostics).toEqual([]);
    expect(result.files[1].diagnostics.map((d) => d.code)).toEqual(['KPOL2009']);
  });

  it('documents why every stage sits where it does', () => {
    for (const stage of STAGES) expect(stage.why.length, stage.name).toBeGreaterThan(20);
    expect(new Set(STAGES.map((s) => s.name)).size).toBe(STAGES.length);
  });
});
