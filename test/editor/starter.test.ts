// SPDX-License-Identifier: Apache-2.0
// A new policy's starting text checks cleanly beside the policies already applied: it names a
// NodePool no other policy governs, or — when every NodePool is governed, as in the demo —
// selects by a label no NodePool has yet (it used to name `default` and start with KPOL2012).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { starterPolicy } from '../../editor/src/starter.js';
import { loadPolicies } from '../../src/core/policy/load.js';

const DEMO_POLICY = readFileSync(new URL('../../rules/examples/business-hours.kpol', import.meta.url), 'utf8');
const demo = { fileName: 'configmap/kpol-system/business-hours/business-hours.kpol', text: DEMO_POLICY };
const errorsOf = (text: string) =>
  loadPolicies([demo, { fileName: 'configmap/kpol-system/mine/mine.kpol', text }]).files.flatMap((f) =>
    f.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code} ${d.message}`),
  );

describe('a new policy’s starting text', () => {
  it('when every NodePool is governed (the demo), selects by label, says why, and has no errors', () => {
    const text = starterPolicy('mine', { default: 'business-hours', gpu: 'business-hours' });
    expect(text).toContain('policy mine for nodepools where team = "mine" {');
    expect(text).toContain('governed already (by business-hours)');
    expect(errorsOf(text)).toEqual([]);
    // What it replaces: naming the first NodePool.
    expect(errorsOf('policy mine for nodepool default {\n  budget 10%\n}\n')).toEqual([
      expect.stringMatching(/^KPOL2012 /),
    ]);
  });

  it('names the first NodePool no policy governs', () => {
    expect(starterPolicy('mine', { default: 'business-hours', batch: null, web: null })).toBe(
      'policy mine for nodepool batch {\n  budget 10%\n}\n',
    );
  });

  it('names `default` on a cluster without NodePools', () => {
    expect(starterPolicy('mine', {})).toBe('policy mine for nodepool default {\n  budget 10%\n}\n');
  });
});
