// SPDX-License-Identifier: Apache-2.0
// Reads every manifest under deploy/ as `kubectl apply -f` would see it: multi-document YAML.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const DEPLOY = new URL('../../deploy/', import.meta.url).pathname;

export interface Manifest {
  file: string;
  text: string;
  objects: Record<string, any>[];
  errors: string[];
}

export function manifestFiles(dir = DEPLOY): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? manifestFiles(join(dir, e.name)) : e.name.endsWith('.yaml') ? [join(dir, e.name)] : []);
}

export function readManifest(file: string): Manifest {
  const text = readFileSync(file, 'utf8');
  const docs = parseAllDocuments(text);
  const errors = docs.flatMap((d) => [...d.errors, ...d.warnings].map((e) => e.message));
  return { file, text, objects: docs.map((d) => d.toJS()).filter((o) => o !== null), errors };
}

let cached: Record<string, any>[] | undefined;
export const allObjects = () => (cached ??= manifestFiles().flatMap((f) => readManifest(f).objects));
export const find = (kind: string, name: string) => allObjects().find((o) => o.kind === kind && o.metadata?.name === name);
