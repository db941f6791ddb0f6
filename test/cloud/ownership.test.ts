// SPDX-License-Identifier: Apache-2.0
// The ownership rule of standalone mode (src/world/cloud/ownership.ts): a launched NodeClaim is kpol's
// by its provider ID's scheme alone; one not launched yet by the annotation kpol's
// NodeClaimFactory writes. Nothing else (nodeClassRef, labels, names) decides.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { Node, NodeClaim } from '../../src/core/cluster/types.js';
import {
  ANNOTATION_CREATION_REASON,
  describeNodeClaims,
  launchedBySimulatedCloud,
  OWNS_EVERYTHING,
  SIMULATED_CLOUD_ONLY,
} from '../../src/world/cloud/ownership.js';
import { SimulatedCloud } from '../../src/world/cloud/simulated-cloud.js';
import { NodeClaimFactory } from '../../src/control/provisioning/nodeclaim-factory.js';
import { pool } from '../reconciler/scenario.js';
import { makeNodeClaimAndNode } from '../support/cluster-builder.js';

const claim = (providerID: string | undefined, annotations?: Record<string, string>): NodeClaim => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  metadata: { name: 'c', labels: { 'karpenter.sh/nodepool': 'default' }, ...(annotations && { annotations }) },
  spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [] },
  ...(providerID !== undefined && { status: { providerID } }),
});
const node = (providerID?: string): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n' },
  spec: providerID ? { providerID } : {},
});

describe('launchedBySimulatedCloud', () => {
  it('a launched NodeClaim: by the provider ID scheme only', () => {
    expect(launchedBySimulatedCloud(claim('kpol-sim:///us-west-2a/i-00000000000000001'))).toBe(true);
    for (const id of [
      'aws:///us-west-2a/i-0123456789abcdef0',
      'kwok://kwok-node-1',
      'gce://p/us-central1-a/vm',
      'sim://a',
      'kpol-sim',
    ]) {
      expect(launchedBySimulatedCloud(claim(id)), id).toBe(false);
      // kpol's annotation does not make another provider's machine kpol's.
      expect(launchedBySimulatedCloud(claim(id, { [ANNOTATION_CREATION_REASON]: 'provisioning' })), id).toBe(false);
    }
  });

  it("not launched yet: kpol's only when kpol's NodeClaimFactory made it", () => {
    expect(launchedBySimulatedCloud(claim(undefined))).toBe(false);
    expect(launchedBySimulatedCloud(claim(''))).toBe(false);
    expect(launchedBySimulatedCloud(claim(undefined, { 'karpenter.sh/nodepool-hash': '1' }))).toBe(false);
    const np = pool('default', ['m5.large']) as Parameters<NodeClaimFactory['build']>[0];
    for (const f of [new NodeClaimFactory(), new NodeClaimFactory('r'), new NodeClaimFactory('i')]) {
      expect(launchedBySimulatedCloud(f.build(np, ['m5.large'], [], 'drifted'))).toBe(true);
    }
  });

  it("what the simulated cloud launches is kpol's; a snapshot's AWS machine is not", async () => {
    const cloud = new SimulatedCloud({ clock: new FakeClock(0) });
    const np = pool('default', ['m5.large']) as Parameters<NodeClaimFactory['build']>[0];
    const inst = await cloud.create(new NodeClaimFactory().build(np, ['m5.large']));
    expect(launchedBySimulatedCloud(claim(inst.providerID))).toBe(true);
    expect(SIMULATED_CLOUD_ONLY.node(node(inst.providerID))).toBe(true);
    const { nodeClaim, node: awsNode } = makeNodeClaimAndNode('default', 0);
    expect(SIMULATED_CLOUD_ONLY.nodeClaim(nodeClaim)).toBe(false);
    expect(SIMULATED_CLOUD_ONLY.node(awsNode)).toBe(false);
    // no provider ID: not a machine the simulated cloud registered
    expect(SIMULATED_CLOUD_ONLY.node(node())).toBe(false);
    expect(OWNS_EVERYTHING.nodeClaim(nodeClaim) && OWNS_EVERYTHING.node(awsNode)).toBe(true);
  });
});

describe('describeNodeClaims', () => {
  const named = (name: string, providerID?: string): NodeClaim => ({ ...claim(providerID), metadata: { name } });
  it('names each with its provider ID, sorted, at most 10, then how many more', () => {
    expect(describeNodeClaims([named('b', 'aws:///a/i-1'), named('a')])).toBe(
      'NodeClaim/a (not launched), NodeClaim/b (aws:///a/i-1)',
    );
    const many = Array.from({ length: 13 }, (_, i) => named(`n${String(i).padStart(2, '0')}`, `aws:///z/i-${i}`));
    const text = describeNodeClaims(many);
    expect(text.split(', ')).toHaveLength(10);
    expect(text).toMatch(/^NodeClaim\/n00 \(aws:\/\/\/z\/i-0\), .* NodeClaim\/n09 \(aws:\/\/\/z\/i-9\) and 3 more$/);
    expect(describeNodeClaims(many.slice(0, 10))).not.toContain('more');
  });
});
