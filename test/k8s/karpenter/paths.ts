// SPDX-License-Identifier: Apache-2.0
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const here = new URL('.', import.meta.url).pathname;

/** The Karpenter and KWOK versions the tests run, pinned in ./karpenter-version and ./kwok-version. */
export const KARPENTER_VERSION = readFileSync(join(here, 'karpenter-version'), 'utf8').trim();
export const KWOK_VERSION = readFileSync(join(here, 'kwok-version'), 'utf8').trim();

/** The script that builds both binaries and copies out the CRDs and stage files (idempotent). */
export const BUILD_SCRIPT = join(here, 'build.sh');

/** Where build.sh caches one pair of versions; outside the repo, next to the control plane's. */
export function cacheDir(): string {
  const root = process.env.KPOL_K8S_CACHE || join(homedir(), '.cache', 'kpol');
  return join(root, `karpenter-${KARPENTER_VERSION}-kwok-${KWOK_VERSION}`);
}

export type Binary = 'karpenter-kwok' | 'kwok';

export const BINARIES: readonly Binary[] = ['karpenter-kwok', 'kwok'];

export function binaryPath(name: Binary): string {
  return join(cacheDir(), 'bin', name);
}

/** Karpenter's CRDs as its KWOK provider ships them (karpenter.sh, autoscaling.x-k8s.io, karpenter.kwok.sh). */
export function crdsDir(): string {
  return join(cacheDir(), 'crds');
}

/** KWOK's stage files: what it does to the Nodes and Pods it manages, and how fast. */
export function stagesDir(): string {
  return join(cacheDir(), 'stages');
}

/** Files build.sh must have produced besides the binaries; ensure-built.ts checks them. */
export const REQUIRED_FILES: readonly string[] = [
  'crds/karpenter.sh_nodepools.yaml',
  'crds/karpenter.sh_nodeclaims.yaml',
  'crds/karpenter.kwok.sh_kwoknodeclasses.yaml',
  'stages/node-initialize.yaml',
  'stages/node-heartbeat.yaml',
  'stages/pod-ready.yaml',
  'stages/pod-complete.yaml',
  'stages/pod-delete.yaml',
];
