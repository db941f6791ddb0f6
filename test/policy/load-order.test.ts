// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { loadPolicies } from '../../src/core/policy/load.js';

describe('loadPolicies', () => {
  it('lists syntax errors and the checker’s reports of a file together, in source order', () => {
    const text = 'policy a for nodepool x {\n  budget 5 for Drifed\n  budget 1 @\n  budget 2 for Empyt\n}\n';
    const [file] = loadPolicies([{ fileName: 'a.kpol', text }]).files;
    expect(file!.diagnostics.map((d) => `${d.range.start.line + 1}:${d.code}`)).toEqual([
      '2:KPOL2001',
      '3:KPOL1001',
      '4:KPOL2001',
    ]);
  });
});
