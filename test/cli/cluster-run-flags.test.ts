// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { clusterRunFlags } from '../../src/edge/cli/shared/cluster-run-flags.js';

describe('kpol run flags for a real cluster', () => {
  it('defaults: namespace from POD_NAMESPACE, client-go timings, a unique identity from POD_NAME', () => {
    const f = clusterRunFlags({ 'in-cluster': true }, { POD_NAMESPACE: 'ops', POD_NAME: 'kpol-7d9-abc' });
    expect(f.namespace).toBe('ops');
    expect(f.leaderElection).toMatchObject({
      name: 'kpol-controller',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
    });
    expect(f.leaderElection?.identity).toMatch(/^kpol-7d9-abc_[0-9a-f]{8}$/);
    expect(clusterRunFlags({ 'leader-election': 'on' }, { POD_NAME: 'x' }).leaderElection?.identity).not.toBe(
      f.leaderElection?.identity,
    );
    expect(clusterRunFlags({}, {}).leaderElection).toBeUndefined(); // a local --kubeconfig run: one process, no Lease
    expect(clusterRunFlags({}, {}).namespace).toBe('kpol-system');
  });
  it('durations, off, and the errors client-go would refuse', () => {
    expect(
      clusterRunFlags(
        { 'in-cluster': true, 'lease-duration': '4s', 'renew-deadline': '3s', 'retry-period': '500ms' },
        {},
      ).leaderElection,
    ).toMatchObject({ leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 });
    expect(clusterRunFlags({ 'leader-election': 'off' }, {}).leaderElection).toBeUndefined();
    expect(() => clusterRunFlags({ 'leader-election': 'on', 'lease-duration': '5s' }, {})).toThrow(
      /lease duration must be longer than the renew deadline/,
    );
    expect(() => clusterRunFlags({ 'leader-election': 'on', 'lease-duration': 'soon' }, {})).toThrow(
      /--lease-duration takes a duration/,
    );
    expect(() => clusterRunFlags({ 'leader-election': 'maybe' }, {})).toThrow(/on or off/);
    expect(() => clusterRunFlags({ 'probe-port': '99999' }, {})).toThrow(/--probe-port/);
  });
});
