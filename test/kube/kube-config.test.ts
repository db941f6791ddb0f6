// SPDX-License-Identifier: Apache-2.0
// Finding the cluster: kubeconfig files and contexts, with errors that name the file.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KubeConfigError, loadKubeConfig, runningInCluster } from '../../src/edge/kube/kube-config.js';

const dir = mkdtempSync(join(tmpdir(), 'kpol-kc-'));
const file = join(dir, 'config');
writeFileSync(
  file,
  `apiVersion: v1
kind: Config
clusters:
- { name: a, cluster: { server: "https://a.example:6443" } }
- { name: b, cluster: { server: "http://127.0.0.1:8080", insecure-skip-tls-verify: true } }
users:
- { name: u, user: { token: t } }
contexts:
- { name: first, context: { cluster: a, user: u } }
- { name: second, context: { cluster: b, user: u } }
current-context: first
`,
);

describe('loadKubeConfig', () => {
  it('uses the current context, or the one --context names', () => {
    expect(loadKubeConfig({ kubeconfig: file }).getCurrentCluster()?.server).toBe('https://a.example:6443');
    expect(loadKubeConfig({ kubeconfig: file, context: 'second' }).getCurrentCluster()?.server).toBe(
      'http://127.0.0.1:8080',
    );
  });

  it.each([
    [{ kubeconfig: join(dir, 'missing') }, `${join(dir, 'missing')}: no such file`],
    [{ kubeconfig: file, context: 'third' }, `${file}: no context \`third\` (contexts: first, second)`],
    [{}, 'no kubeconfig given'],
    [{ kubeconfig: file, inCluster: true }, '--in-cluster and --kubeconfig exclude each other'],
  ])('%o fails with a located message', (source, message) => {
    expect(() => loadKubeConfig(source)).toThrow(new KubeConfigError(message));
  });

  it('in-cluster outside a pod says so', () => {
    const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
    delete process.env.KUBERNETES_SERVICE_HOST;
    try {
      expect(() => loadKubeConfig({ inCluster: true })).toThrow(/^--in-cluster: not running in a pod/);
    } finally {
      if (saved.host !== undefined) process.env.KUBERNETES_SERVICE_HOST = saved.host;
    }
  });

  it('detects a pod from the variables the kubelet sets', () => {
    expect(runningInCluster({ KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' })).toBe(true);
    expect(runningInCluster({})).toBe(false);
  });
});
