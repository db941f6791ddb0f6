// SPDX-License-Identifier: Apache-2.0
// The one set of karpenter.sh/v1 CRDs every k8s test runs against: the shipped deploy/crds,
// applied with the built kubectl as a user would. The control plane is shared by every file, so
// any other CRD installed here (a looser test fixture, say) would make results depend on which
// file ran first; `kubectl apply` is idempotent and overwrites whatever is there.
import { kubectlOk } from './control-plane/kubectl.js';

const CRDS = new URL('../../deploy/crds', import.meta.url).pathname;

let applied: Promise<void> | undefined;

/** Applies deploy/crds (once per test file) and waits until the API server serves both kinds. */
export function installShippedCrds(kubeconfigPath: string): Promise<void> {
  applied ??= (async () => {
    await kubectlOk(kubeconfigPath, ['apply', '-f', CRDS]);
    await kubectlOk(kubeconfigPath, [
      'wait',
      '--for=condition=Established',
      'crd/nodepools.karpenter.sh',
      'crd/nodeclaims.karpenter.sh',
      '--timeout=60s',
    ]);
  })();
  return applied;
}
