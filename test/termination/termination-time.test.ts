// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { disrupted, failedDraining, goTimeString } from '../../src/control/termination/events.js';
import {
  formatRfc3339,
  terminationGracePeriodSeconds,
  terminationTimeOf,
} from '../../src/control/termination/termination-time.js';
import { makeNodeClaimAndNode } from '../support/cluster-builder.js';

describe('termination time', () => {
  it.each([
    ['2026-08-20T12:05:00Z', '2026-08-20T12:05:00Z'],
    ['2026-08-20T12:05:00.999Z', '2026-08-20T12:05:00Z'], // Go's RFC3339 layout drops the fraction
  ])('formatRfc3339(%s) = %s', (iso, out) => {
    expect(formatRfc3339(Date.parse(iso))).toBe(out);
  });

  it('reads spec.terminationGracePeriod as a Go duration, and the policy callback overrides it', () => {
    const { nodeClaim } = makeNodeClaimAndNode('default', 0, { terminationGracePeriod: '1h30m' });
    expect(terminationGracePeriodSeconds(nodeClaim)).toBe(5400);
    expect(terminationGracePeriodSeconds(nodeClaim, () => 60)).toBe(60);
    expect(terminationGracePeriodSeconds(nodeClaim, () => undefined)).toBe(5400);
    const { nodeClaim: none } = makeNodeClaimAndNode('default', 1);
    expect(terminationGracePeriodSeconds(none)).toBeUndefined();
    expect(terminationGracePeriodSeconds(none, () => 120)).toBe(120);
  });

  it('parses the annotation; absent or garbage means no deadline', () => {
    const { nodeClaim } = makeNodeClaimAndNode('default', 0);
    expect(terminationTimeOf(nodeClaim)).toBeUndefined();
    nodeClaim.metadata.annotations = { 'karpenter.sh/nodeclaim-termination-timestamp': '2026-08-20T12:05:00Z' };
    expect(terminationTimeOf(nodeClaim)).toBe(Date.parse('2026-08-20T12:05:00Z'));
    nodeClaim.metadata.annotations = { 'karpenter.sh/nodeclaim-termination-timestamp': 'soon' };
    expect(terminationTimeOf(nodeClaim)).toBeUndefined();
  });
});

describe('event messages', () => {
  const pod = { kind: 'Pod', name: 'web-1', namespace: 'default' };
  it('Disrupted prints T as Go prints a time.Time', () => {
    expect(goTimeString(Date.parse('2026-08-20T12:05:00Z'))).toBe('2026-08-20 12:05:00 +0000 UTC');
    expect(goTimeString(Date.parse('2026-08-20T12:05:00.250Z'))).toBe('2026-08-20 12:05:00.25 +0000 UTC');
    expect(disrupted(pod, Date.parse('2026-08-20T12:05:00Z'), 270, 300).message).toBe(
      'Deleting the pod to accommodate the terminationTime 2026-08-20 12:05:00 +0000 UTC of the ' +
        'node. The pod was granted 270 seconds of grace-period of its 300 ' +
        'terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt ' +
        'annotation.',
    );
  });
  it('FailedDraining texts', () => {
    const node = { kind: 'Node', name: 'n1' };
    expect(failedDraining(node, { kind: 'waiting', pods: 3 }).message).toBe(
      'Failed to drain node, 3 pods are waiting to be evicted',
    );
    expect(failedDraining(node, { kind: 'pdb', pod: 'default/web-1' }).message).toBe(
      'Failed to drain node, evicting pod violates a PDB (Pod=default/web-1)',
    );
    expect(failedDraining(node, { kind: 'multiple-pdbs', pod: 'default/web-1' }).message).toBe(
      'Failed to drain node, eviction does not support multiple PDBs (Pod=default/web-1)',
    );
    expect(failedDraining(node, { kind: 'waiting', pods: 1 }).type).toBe('Warning');
  });
});
