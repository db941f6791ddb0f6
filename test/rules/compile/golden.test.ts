// SPDX-License-Identifier: Apache-2.0
// Golden files for the compile phase: test/golden/compile/NAME.kpol → NAME.graph.json, the
// rule graphs as sorted JSON. The built-in layer is the same in every graph, so it is listed
// by rule name here and pinned once in builtin.rules.json.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkSource } from '../../../rules/checks/check.js';
import { compile } from '../../../rules/compile.js';
import builtin from '../../../rules/builtin/candidate-rules.json' with { type: 'json' };
import { expectGolden } from '../../support/golden.js';
import { stableJson } from '../../support/stable-json.js';

const DIR = new URL('../../golden/compile/', import.meta.url).pathname;
const cases = readdirSync(DIR)
  .filter((f) => f.endsWith('.kpol'))
  .sort();
const builtinNames = new Set(builtin.rules.map((r) => r.name));

describe('compile golden files', () => {
  it.each(cases)('%s', (name) => {
    const { value, diagnostics } = checkSource(readFileSync(join(DIR, name), 'utf8'), name);
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const graphs = value.map(compile).map((g) => ({
      ...g,
      spec: undefined,
      nodeRules: g.nodeRules.map((r) => (builtinNames.has(r.name) ? `builtin:${r.name}` : r)),
    }));
    expectGolden(join(DIR, name.replace(/\.kpol$/, '.graph.json')), stableJson(graphs));
  });
  it('the built-in layer', () => {
    expectGolden(join(DIR, 'builtin.rules.json'), stableJson(builtin));
  });
  it('every graph is plain JSON: it survives a serialisation round trip unchanged', () => {
    for (const name of cases) {
      for (const g of checkSource(readFileSync(join(DIR, name), 'utf8'), name).value.map(compile)) {
        expect(JSON.parse(JSON.stringify(g))).toEqual(g);
      }
    }
  });
});
