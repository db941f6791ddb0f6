// SPDX-License-Identifier: Apache-2.0
// Golden files: compared byte for byte; rewritten only when KPOL_UPDATE_GOLDEN=1 is set
// (`npm run golden:update`), never by hand. A missing golden file is a failure, not a pass.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect } from 'vitest';

export function expectGolden(path: string, actual: string): void {
  if (process.env.KPOL_UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  if (!existsSync(path)) throw new Error(`missing golden file ${path}: run npm run golden:update and review it`);
  expect(actual).toBe(readFileSync(path, 'utf8'));
}
