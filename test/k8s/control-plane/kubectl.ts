// SPDX-License-Identifier: Apache-2.0
import { execFile } from 'node:child_process';
import { binaryPath } from './paths.js';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the kubectl built with the control plane, as a user would, against `kubeconfigPath`.
 * Resolves with the exit code and output whatever the code; `stdin` is piped in (for `-f -`).
 */
export function kubectl(kubeconfigPath: string, args: string[], stdin?: string): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      binaryPath('kubectl'),
      [`--kubeconfig=${kubeconfigPath}`, ...args],
      { timeout: 60_000, maxBuffer: 32 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : -1
          : 0;
        if (err && code === -1) reject(new Error(`kubectl ${args.join(' ')}: ${err.message}`));
        else resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(stdin ?? '');
  });
}

/** Like `kubectl` but rejects on a non-zero exit, with kubectl's stderr in the message. */
export async function kubectlOk(kubeconfigPath: string, args: string[], stdin?: string): Promise<string> {
  const r = await kubectl(kubeconfigPath, args, stdin);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}`);
  return r.stdout;
}
