// SPDX-License-Identifier: Apache-2.0
// `kpol run --kubeconfig` on a cluster holding another cloud provider's NodeClaim (as a real
// Karpenter on AWS leaves one): standalone refuses to start, naming it, with a non-zero exit and
// no stack trace, and writes nothing to it; `--mode auto` on kpol's own shipped CRDs chooses
// standalone (and so refuses the same way); on a NodePool CRD without kpol's label it governs.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeClaim } from '../../../src/core/cluster/types.js';
import { KPOL_CRD_LABEL } from '../../../src/edge/cli/shared/run-mode.js';
import type { KubeClusterClient } from '../../../src/edge/kube/kube-cluster.js';
import { sharedControlPlane } from '../control-plane/inject.js';
import { kubectlOk } from '../control-plane/kubectl.js';
import { closeKubeClient, createNamespace, kubeClient } from '../adapter/kube-backend.js';

const ROOT = new URL('../../..', import.meta.url).pathname;
const id = randomBytes(3).toString('hex');
const ns = `kpol-own-${id}`;
const claimName = `aws-${id}`;
const PROVIDER_ID = 'aws:///us-west-2a/i-0123456789abcdef0';

interface Exit {
  code: number | null;
  stderr: string;
  stdout: string;
}

/**
 * `kpol run` as a user starts it; resolves when it exits, or (with `until`) as soon as stderr
 * matches, then stopping it by PID so that a mode that does start does not keep running.
 */
function kpolRun(args: string[], until?: RegExp, timeoutMs = 60_000): Promise<Exit> {
  const child = spawn(process.execPath, [`${ROOT}src/edge/cli/bin.mjs`, 'run', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(child.pid!, 'SIGKILL');
      reject(new Error(`kpol run ${args.join(' ')} did not finish in ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    const stopIfMatched = () => {
      if (until && until.test(stderr) && child.exitCode === null && child.signalCode === null)
        process.kill(child.pid!, 'SIGTERM');
    };
    child.stdout!.on('data', (d) => {
      stdout += d;
    });
    child.stderr!.on('data', (d) => {
      stderr += d;
      stopIfMatched();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    });
  });
}

describe("kpol run standalone beside another cloud provider's NodeClaim", () => {
  const cp = sharedControlPlane();
  let client: KubeClusterClient;
  let created: NodeClaim;

  beforeAll(async () => {
    client = await kubeClient(); // applies the shipped CRDs
    await createNamespace(client, ns);
    // The fields the shipped CRD requires (spec.nodeClassRef, spec.requirements), and the status a
    // real Karpenter on AWS writes once the instance is launched.
    created = await client.create<NodeClaim>({
      apiVersion: 'karpenter.sh/v1',
      kind: 'NodeClaim',
      metadata: { name: claimName, labels: { 'karpenter.sh/nodepool': 'default' } },
      spec: {
        nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.large'] }],
      },
      status: { providerID: PROVIDER_ID },
    });
    expect(created.status?.providerID).toBe(PROVIDER_ID);
  });

  afterAll(async () => {
    // The label back on the CRD whatever happened (the next file's `kubectl apply` would also restore it).
    await kubectlOk(cp.kubeconfigPath, [
      'label',
      '--overwrite',
      'crd',
      'nodepools.karpenter.sh',
      `${KPOL_CRD_LABEL.key}=${KPOL_CRD_LABEL.value}`,
    ]).catch(() => {});
    await client?.delete({ kind: 'NodeClaim', name: claimName }).catch(() => {});
    await closeKubeClient();
  });

  const common = () => ['--kubeconfig', cp.kubeconfigPath, '--namespace', ns, '--port', '0'];
  const named = `NodeClaim/${claimName} (${PROVIDER_ID})`;

  it(
    '--mode standalone refuses to start: the NodeClaim and its provider ID named, exit 1, no ' +
      'stack trace, nothing written',
    async () => {
      const r = await kpolRun([...common(), '--mode', 'standalone']);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain('standalone mode acts only on machines its simulated cloud launches');
      expect(r.stderr).toContain(named);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(r.stdout).not.toContain('"msg":"started"');
      const now = await client.get<NodeClaim>({ kind: 'NodeClaim', name: claimName });
      expect(now?.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    },
    90_000,
  );

  it("--mode auto on kpol's own shipped CRDs chooses standalone (and refuses the same way)", async () => {
    const crd = JSON.parse(await kubectlOk(cp.kubeconfigPath, ['get', 'crd', 'nodepools.karpenter.sh', '-o', 'json']));
    expect(crd.metadata.labels?.[KPOL_CRD_LABEL.key]).toBe(KPOL_CRD_LABEL.value);
    const r = await kpolRun(common());
    expect(r.stderr).toContain("--mode auto chose standalone: the karpenter.sh NodePool CRD is kpol's own");
    expect(r.stderr).toContain(named);
    expect(r.code, r.stderr).toBe(1);
  }, 90_000);

  it("--mode auto on a NodePool CRD without kpol's label chooses govern", async () => {
    await kubectlOk(cp.kubeconfigPath, ['label', 'crd', 'nodepools.karpenter.sh', `${KPOL_CRD_LABEL.key}-`]);
    try {
      // Stopped as soon as it says so: govern mode itself is not this test's subject.
      const r = await kpolRun(common(), /--mode auto chose \w+/);
      expect(r.stderr).toContain(
        "--mode auto chose govern: the karpenter.sh NodePool CRD is installed and is not kpol's own",
      );
      expect(r.stderr).not.toContain(named);
    } finally {
      await kubectlOk(cp.kubeconfigPath, [
        'label',
        '--overwrite',
        'crd',
        'nodepools.karpenter.sh',
        `${KPOL_CRD_LABEL.key}=${KPOL_CRD_LABEL.value}`,
      ]);
    }
  }, 90_000);
});
