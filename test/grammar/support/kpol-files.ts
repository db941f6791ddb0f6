// SPDX-License-Identifier: Apache-2.0
// Every .kpol file below a folder, named as the grammar tests name it (relative to test/grammar/).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function kpolFiles(dir: string): Array<readonly [string, string]> {
  const root = new URL(`../${dir}`, import.meta.url).pathname;
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.kpol'))
    .sort()
    .map((f) => [`${dir}${f}`, readFileSync(join(root, f), 'utf8')] as const);
}
