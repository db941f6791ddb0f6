// SPDX-License-Identifier: Apache-2.0
// Instance termination shared by the Node and NodeClaim finalizers (Karpenter's
// `EnsureTerminated`): mark the NodeClaim `InstanceTerminating=True`, ask the cloud to delete
// the instance, then report it terminated only once the cloud no longer has it.
import type { ClusterClient } from '../../core/cluster/client.js';
import type { NodeClaim } from '../../core/cluster/types.js';
import type { CloudProvider, Instance } from '../../world/cloud/provider.js';
import { conditionOf, setCondition } from './conditions.js';
import { CONDITION_INSTANCE_TERMINATING } from './names.js';

/** Gone = the cloud forgot it or reports it `terminated` (Karpenter's providers answer NotFound for both). */
export const isInstanceGone = (instance: Instance | undefined): boolean =>
  instance === undefined || instance.state === 'terminated';

export interface InstanceTermination {
  gone: boolean;
  /** The NodeClaim as stored after the call (its condition may have been written). */
  nodeClaim?: NodeClaim;
}

/**
 * Idempotent: sets the condition once, and asks the cloud to delete whenever the instance is
 * still `pending`/`running` (so a controller that stopped between writing the condition and
 * calling the cloud resumes correctly, and a NodeClaim-less Node is not deleted twice); once it
 * is `terminating` it only looks. A failing delete counts as done when the instance is gone, and
 * is rethrown otherwise.
 */
export async function ensureInstanceTerminated(
  client: ClusterClient,
  cloud: CloudProvider,
  providerID: string,
  nodeClaim: NodeClaim | undefined,
  nowMs: number,
): Promise<InstanceTermination> {
  let claim = nodeClaim;
  const marked = conditionOf(claim, CONDITION_INSTANCE_TERMINATING)?.status === 'True';
  if (claim && !marked) {
    claim = await setCondition(
      client,
      claim,
      { type: CONDITION_INSTANCE_TERMINATING, status: 'True', reason: CONDITION_INSTANCE_TERMINATING },
      nowMs,
    );
  }
  const instance = await cloud.get(providerID);
  if (isInstanceGone(instance)) return { gone: true, nodeClaim: claim };
  if (instance!.state === 'pending' || instance!.state === 'running') {
    try {
      await cloud.delete(providerID);
    } catch (e) {
      if (isInstanceGone(await cloud.get(providerID))) return { gone: true, nodeClaim: claim };
      throw e;
    }
  }
  return { gone: false, nodeClaim: claim };
}
