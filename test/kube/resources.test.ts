// SPDX-License-Identifier: Apache-2.0
// Kinds to REST paths, and Status answers to ApiErrors.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/cluster/client.js';
import { statusError, transportError } from '../../src/edge/kube/api-errors.js';
import { RESOURCES, resourceOf, resourcePath } from '../../src/edge/kube/api-resources.js';

describe('resourcePath', () => {
  it.each([
    ['NodePool', undefined, 'a', undefined, '/apis/karpenter.sh/v1/nodepools/a'],
    ['NodeClaim', 'ignored', 'a', 'status', '/apis/karpenter.sh/v1/nodeclaims/a/status'],
    ['Node', undefined, undefined, undefined, '/api/v1/nodes'],
    ['Pod', 'team-a', 'web-1', 'eviction', '/api/v1/namespaces/team-a/pods/web-1/eviction'],
    ['Pod', undefined, undefined, undefined, '/api/v1/pods'],
    ['PodDisruptionBudget', 'x', 'web', undefined, '/apis/policy/v1/namespaces/x/poddisruptionbudgets/web'],
    ['ReplicaSet', 'x', undefined, undefined, '/apis/apps/v1/namespaces/x/replicasets'],
    ['Lease', 'kpol', 'leader', undefined, '/apis/coordination.k8s.io/v1/namespaces/kpol/leases/leader'],
    ['ConfigMap', 'x', 'a b', undefined, '/api/v1/namespaces/x/configmaps/a%20b'],
  ] as const)('%s %s/%s %s', (kind, ns, name, sub, path) => {
    expect(resourcePath(RESOURCES[kind], ns, name, sub)).toBe(path);
  });

  it('an unknown kind is a 404 ApiError', () => {
    expect(() => resourceOf('Deployment')).toThrow(ApiError);
  });
});

describe('statusError', () => {
  it('keeps the Status code, reason and message', () => {
    const e = statusError(
      429,
      JSON.stringify({
        kind: 'Status',
        code: 429,
        reason: 'TooManyRequests',
        message: "Cannot evict pod as it would violate the pod's disruption budget.",
      }),
      'POST x',
    );
    expect([e.code, e.reason, e.message]).toEqual([
      429,
      'TooManyRequests',
      "Cannot evict pod as it would violate the pod's disruption budget.",
    ]);
  });

  it('derives the reason from the code when the Status has none, and uses the body when it is not JSON', () => {
    const e = statusError(503, '<html>bad gateway</html>', 'GET /api/v1/pods');
    expect([e.code, e.reason, e.message]).toEqual([503, 'ServiceUnavailable', '<html>bad gateway</html>']);
    expect(statusError(418, '', 'GET /x').reason).toBe('Unknown');
    expect(statusError(502, '', 'GET /x')).toMatchObject({
      code: 502,
      reason: 'InternalError',
      message: 'GET /x: HTTP 502',
    });
  });

  it('transportError names the server and the cause', () => {
    const e = transportError(
      'https://127.0.0.1:6443',
      'GET /api',
      Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } }),
    );
    expect([e.code, e.reason, e.message]).toEqual([
      503,
      'ServiceUnavailable',
      'GET /api: cannot reach the API server at https://127.0.0.1:6443: ECONNREFUSED',
    ]);
  });
});
