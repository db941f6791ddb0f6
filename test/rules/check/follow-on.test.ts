// SPDX-License-Identifier: Apache-2.0
// No follow-on diagnostics: what the checker would report only because a statement or a
// declaration did not parse is not reported; the same report stands once the text parses.
import { describe, expect, it } from 'vitest';
import { diagnosticsOf, inPolicy } from './helpers.js';

const codes = (text: string) => diagnosticsOf(text).map((d) => d.code);

describe('no follow-on diagnostics', () => {
  it('a misspelt budget does not leave its reason "unlimited" (KPOL3004)', () => {
    expect(codes(inPolicy('budjet 0 for Drifted', 'budget 1 for Empty, Underutilized'))).toEqual(['KPOL1005']);
    expect(codes(inPolicy('budget 1 for Empty, Underutilized'))).toEqual(['KPOL3004']);
  });

  it('a budget whose reasons did not parse shadows nothing (KPOL3003)', () => {
    expect(codes(inPolicy('budget 1 fro Empty', 'budget 5 for Drifted'))).toEqual(['KPOL1003']);
    expect(codes(inPolicy('budget 1', 'budget 5 for Drifted'))).toEqual(['KPOL3003']);
  });

  it('`Expired` is not reported when `gracefully` did not parse (KPOL2013)', () => {
    expect(codes(inPolicy('expire after 720h gracefuly', 'budget 1 for Expired'))).toEqual(['KPOL1003']);
    expect(codes(inPolicy('expire after 720h', 'budget 1 for Expired'))).toContain('KPOL2013');
  });

  it('a schedule whose declaration did not parse is not also unknown where used (KPOL2009)', () => {
    const text = `schedule nightly "0 1 * * *" for 4h\n${inPolicy('budget 0 during nightly')}`;
    expect(codes(text)).toEqual(['KPOL1003']);
    expect(codes(inPolicy('budget 0 during nightly'))).toEqual(['KPOL2009']);
  });

  it('a schedule used only in a statement that did not parse is not unused (KPOL3009)', () => {
    const text = `schedule nightly = "0 1 * * *" for 4h\n${inPolicy('budget 1', 'budjet 0 during nightly')}`;
    expect(codes(text)).toEqual(['KPOL1005']);
    expect(codes(`schedule nightly = "0 1 * * *" for 4h\n${inPolicy('budget 1')}`)).toEqual(['KPOL3009']);
  });

  it('an unknown reason leaves no reason "unlimited" (KPOL3004) and shadows nothing (KPOL3003)', () => {
    expect(codes(inPolicy('budget 5 for drifted'))).toEqual(['KPOL2001']);
    expect(codes(inPolicy('budget 1 for Empyt', 'budget 5 for Drifted'))).toEqual(['KPOL2001']);
    // `Expired` without graceful expiration is an error of its own, whatever else the list holds.
    expect(codes(inPolicy('budget 1 for Drifed, Expired'))).toEqual(['KPOL2001', 'KPOL2013']);
  });

  it('a misspelt use of a schedule is a use of the schedule meant: it is not also unused (KPOL3009)', () => {
    expect(codes(`schedule nightly = "0 1 * * *" for 4h\n${inPolicy('budget 0 during nighly')}`)).toEqual(['KPOL2009']);
  });

  it('a policy without parse errors keeps every analysis, even beside one that has them', () => {
    const text = `${inPolicy('budjet 0 for Drifted')}policy q for nodepool other {\n  budget 0 for Drifted\n}\n`;
    expect(codes(text)).toEqual(['KPOL1005', 'KPOL3004', 'KPOL3004']);
  });
});
