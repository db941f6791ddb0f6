// SPDX-License-Identifier: Apache-2.0
// Golden files for the check phase: each test/golden/check/NAME.kpol → NAME.errors.txt (the
// diagnostics rendered with squiggles) and NAME.model.json (the PolicySpecs without source
// ranges, keys sorted). Update with KPOL_UPDATE_GOLDEN=1 and review every changed file.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { renderDiagnostics } from '../../../grammar/print-diagnostics.js';
import { checkSource } from '../../../rules/checks/check.js';
import { expectGolden } from '../../support/golden.js';
import { stableJson } from '../../support/stable-json.js';

const DIR = new URL('../../golden/check/', import.meta.url).pathname;
const NOW = Date.parse('2026-06-01T00:00:00Z');
const cases = readdirSync(DIR)
  .filter((f) => f.endsWith('.kpol'))
  .sort();

describe('check golden files', () => {
  it.each(cases)('%s', (name) => {
    const text = readFileSync(join(DIR, name), 'utf8');
    const { value, diagnostics } = checkSource(text, name, { nowMs: NOW });
    const base = join(DIR, name.replace(/\.kpol$/, ''));
    expectGolden(`${base}.errors.txt`, renderDiagnostics(name, text, diagnostics));
    expectGolden(`${base}.model.json`, stableJson(value));
  });
});
