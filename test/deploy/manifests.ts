// SPDX-License-Identifier: Apache-2.0
// Reads the manifests under deploy/ as `kubectl apply -f` would see them: multi-document YAML,
// a directory meaning its own *.yaml files (kubectl does not recurse without -R). Each mode is
// the list of paths its install command applies, in order (deploy/README.md shows the commands).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export const ROOT = new URL('../../', import.meta.url).pathname;
export const DEPLOY = join(ROOT, 'deploy/');

export type Mode = 'govern' | 'standalone';

/**
 * What each mode applies, relative to the repository root. Govern mode runs next to Karpenter,
 * which ships the CRDs; standalone mode installs them (deploy/crds/) and shares the namespace
 * and the example policy with govern mode.
 */
export const MODES: Record<Mode, readonly string[]> = {
  govern: ['deploy/'],
  standalone: ['deploy/crds/', 'deploy/00-namespace.yaml', 'deploy/30-policy-configmap.yaml', 'deploy/standalone/'],
};

/** The install command deploy/README.md gives for `mode`. */
export const applyCommand = (mode: Mode) => `kubectl apply ${MODES[mode].map((p) => `-f ${p}`).join(' ')}`;

export interface Manifest {
  file: string;
  text: string;
  objects: Record<string, any>[];
  errors: string[];
}

/** Every manifest under deploy/, at any depth (to check each parses). */
export function manifestFiles(dir = DEPLOY): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? manifestFiles(join(dir, e.name)) : e.name.endsWith('.yaml') ? [join(dir, e.name)] : [],
  );
}

/** The files `kubectl apply -f path` reads: the file, or a directory's *.yaml files in name order. */
export function applied(path: string): string[] {
  const full = join(ROOT, path);
  if (!statSync(full).isDirectory()) return [full];
  return readdirSync(full, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.yaml'))
    .map((e) => join(full, e.name))
    .sort();
}

export const modeFiles = (mode: Mode) => MODES[mode].flatMap(applied);

export function readManifest(file: string): Manifest {
  const text = readFileSync(file, 'utf8');
  const docs = parseAllDocuments(text);
  const errors = docs.flatMap((d) => [...d.errors, ...d.warnings].map((e) => e.message));
  return { file, text, objects: docs.map((d) => d.toJS()).filter((o) => o !== null), errors };
}

const cached = new Map<Mode, Record<string, any>[]>();
/** The objects `mode` applies. */
export const objects = (mode: Mode) =>
  cached.get(mode) ??
  cached
    .set(
      mode,
      modeFiles(mode).flatMap((f) => readManifest(f).objects),
    )
    .get(mode)!;
export const find = (mode: Mode, kind: string, name: string) =>
  objects(mode).find((o) => o.kind === kind && o.metadata?.name === name);
