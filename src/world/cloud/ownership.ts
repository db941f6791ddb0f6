// SPDX-License-Identifier: Apache-2.0
// Which machines are kpol's to act on. On the embedded cluster and in simulations of a snapshot
// every machine is: the simulated cloud adopts them all (a snapshot of an EKS cluster has
// `aws:///…` machines, and simulating it means pretending to be their cloud). On a real cluster
// in standalone mode only the machines the simulated cloud launched are: any other NodeClaim
// belongs to another cloud provider (a real Karpenter's, KWOK's, …), and kpol launching,
// disrupting, draining or finalizing it would fight that provider over real machines.
//
// The rule, for a NodeClaim:
//   - with status.providerID: kpol's if and only if the scheme is the simulated cloud's
//     (`kpol-sim://`). The provider ID is written by the cloud provider that launched the
//     machine, and the simulated cloud writes no other scheme, so this is the one field that
//     says who launched it. The nodeClassRef cannot tell (kpol's NodePools reference
//     `karpenter.k8s.aws/EC2NodeClass`, so that Karpenter's configurations run unchanged), nor
//     can labels (NodePool templates copy arbitrary labels onto their NodeClaims).
//   - without one (not launched yet): kpol's if and only if kpol's NodeClaimFactory made it —
//     it puts ANNOTATION_CREATION_REASON on every NodeClaim the provisioner, the disruption
//     queue and interruption pre-launch create (and restarts keep it: it is on the object).
//     Another provisioner's fresh NodeClaim has no such annotation and its own provider is about
//     to launch it: launching it in the simulated cloud too would race that provider.
// A Node is kpol's when its spec.providerID has the simulated cloud's scheme: the node agent
// registers only such Nodes, and only for them does it play kubelet, termination drain and
// disruption remove a left-over disrupted taint. Other Nodes stay in the cluster view (pods can
// be scheduled there, so the scheduling simulation must see them); nothing writes to them.
import type { Node, NodeClaim } from '../../core/cluster/types.js';
import { PROVIDER_ID_SCHEME } from './simulated-cloud.js';

/** Put by kpol's NodeClaimFactory on every NodeClaim it builds: why kpol created it. */
export const ANNOTATION_CREATION_REASON = 'kpol.dev/creation-reason';

export const isSimulatedProviderID = (providerID: string | undefined): boolean =>
  providerID !== undefined && providerID.startsWith(PROVIDER_ID_SCHEME);

/** Whether the simulated cloud launched this NodeClaim, or will (kpol created it and it is not launched yet). */
export function launchedBySimulatedCloud(nc: NodeClaim): boolean {
  const providerID = nc.status?.providerID;
  if (providerID) return isSimulatedProviderID(providerID);
  return nc.metadata.annotations?.[ANNOTATION_CREATION_REASON] !== undefined;
}

/** Which NodeClaims and Nodes the controllers of one Runtime may act on. */
export interface Ownership {
  nodeClaim(nc: NodeClaim): boolean;
  node(node: Node): boolean;
}

/** The embedded cluster and simulations: the simulated cloud adopts every machine. */
export const OWNS_EVERYTHING: Ownership = { nodeClaim: () => true, node: () => true };

/** Standalone on a real cluster: only what the simulated cloud launched. */
export const SIMULATED_CLOUD_ONLY: Ownership = {
  nodeClaim: launchedBySimulatedCloud,
  node: (n) => isSimulatedProviderID(n.spec.providerID),
};

/**
 * `NodeClaim/a (aws:///us-west-2a/i-…), NodeClaim/b (not launched), … and 3 more`: the first
 * `max` NodeClaims by name, for an error message.
 */
export function describeNodeClaims(claims: readonly NodeClaim[], max = 10): string {
  const sorted = [...claims].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const shown = sorted
    .slice(0, max)
    .map((nc) => `NodeClaim/${nc.metadata.name} (${nc.status?.providerID || 'not launched'})`);
  const rest = sorted.length - shown.length;
  return rest > 0 ? `${shown.join(', ')} and ${rest} more` : shown.join(', ');
}
