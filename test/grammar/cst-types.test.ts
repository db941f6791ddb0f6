// SPDX-License-Identifier: Apache-2.0
// grammar/cst-types.ts is what Chevrotain generates from the grammar today: a rule or child
// added to the parser without regenerating fails here (KPOL_UPDATE_GOLDEN=1 rewrites the file).
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cstTypesFile } from '../../grammar/cst-header.js';
import { nodeOf, tokenOf } from '../../grammar/cst.js';
import type { ScheduleDeclCstNode } from '../../grammar/cst-types.js';
import { cstDeclarations } from '../../grammar/parser.js';

const FILE = new URL('../../grammar/cst-types.ts', import.meta.url);

describe('grammar/cst-types.ts', () => {
  it("matches the parser's generated CST declarations", () => {
    const fresh = cstTypesFile(cstDeclarations());
    if (process.env.KPOL_UPDATE_GOLDEN === '1') writeFileSync(FILE, fresh);
    expect(readFileSync(FILE, 'utf8')).toBe(fresh);
  });

  it('declares a node type for every rule the lowering reads', () => {
    const text = readFileSync(FILE, 'utf8');
    for (const rule of [
      'file',
      'policy',
      'statement',
      'budgetStmt',
      'window',
      'selector',
      'requirement',
      'inZone',
      'forDuration',
    ]) {
      expect(text, rule).toContain(`name: "${rule}";`);
    }
  });
});

// Checked by `npm run typecheck` (tsc reads the tests): each marked line must fail to compile,
// or its expect-error directive is itself an error.
export function misspeltKeysDoNotCompile(node: ScheduleDeclCstNode): unknown[] {
  return [
    // @ts-expect-error a misspelt child
    nodeOf(node, 'inZon'),
    // @ts-expect-error a token key where a rule is read
    nodeOf(node, 'StringLit'),
    // @ts-expect-error a child this rule does not have
    tokenOf(node, 'KwBudget'),
    tokenOf(node, 'StringLit'),
    nodeOf(node, 'inZone'),
  ];
}
