// SPDX-License-Identifier: Apache-2.0
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const here = new URL('.', import.meta.url).pathname;

/** The Kubernetes version the tests run, pinned in ./k8s-version (one line, e.g. `v1.36.3`). */
export const K8S_VERSION = readFileSync(join(here, 'k8s-version'), 'utf8').trim();

/** The script that builds the binaries (idempotent). */
export const BUILD_SCRIPT = join(here, 'build.sh');

/** Where build.sh caches one version's binaries and generated go.mod; outside the repo. */
export function cacheDir(): string {
  const root = process.env.KPOL_K8S_CACHE || join(homedir(), '.cache', 'kpol');
  return join(root, `k8s-${K8S_VERSION}`);
}

export type Binary = 'etcd' | 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler' | 'kubectl';

export const BINARIES: readonly Binary[] = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kubectl',
];

export function binaryPath(name: Binary): string {
  return join(cacheDir(), 'bin', name);
}
