// SPDX-License-Identifier: Apache-2.0
// Least privilege, checked against the code: every request the controller makes (recorded while
// it provisions, drifts through a PDB, consolidates, reloads policies, writes NodePool status
// and holds its Lease) is allowed by deploy/20-rbac.yaml, and every verb the RBAC grants is one
// of those requests — in the Role when it is only ever needed in kpol's own namespace.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiRequest } from './api-inventory.js';
import { exerciseController, NAMESPACE } from './exercise.js';
import { allObjects } from './manifests.js';

interface Rule { apiGroups: string[]; resources: string[]; verbs: string[] }

const rulesOf = (kind: string) => allObjects().filter((o) => o.kind === kind).flatMap((o) => o.rules as Rule[]);
const grants = (rules: Rule[]) => rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => ({ group: g, resource: res, verb: v })))));
const allows = (rules: Rule[], q: ApiRequest) => grants(rules).some((g) => g.group === q.group && g.resource === q.resource && g.verb === q.verb);
const show = (q: { group: string; resource: string; verb: string; namespace?: string }) => `${q.verb} ${q.group || 'core'}/${q.resource}${q.namespace ? ` in ${q.namespace}` : ''}`;

let requests: ApiRequest[] = [];
beforeAll(async () => {
  const run = await exerciseController();
  expect(run.replaced).toBe(true); // the exercise did go through a drift replacement
  requests = run.requests;
});

describe('RBAC against the requests the controller makes', () => {
  it('the exercise covers each kind of work (eviction, node registration, status, lease, events)', () => {
    const seen = new Set(requests.map(show));
    for (const s of ['create core/pods/eviction in default', 'create core/nodes', 'patch karpenter.sh/nodepools/status', 'update coordination.k8s.io/leases in kpol-system',
      'patch core/configmaps in kpol-system', 'create core/events in kpol-system', 'delete karpenter.sh/nodeclaims', 'watch core/configmaps']) {
      expect(seen, s).toContain(s);
    }
  });

  it('every request is allowed: by the ClusterRole, or by the Role inside kpol-system', () => {
    const cluster = rulesOf('ClusterRole');
    const own = rulesOf('Role');
    const denied = requests.filter((q) => !allows(cluster, q) && !(q.namespace === NAMESPACE && allows(own, q)));
    expect(denied.map(show)).toEqual([]);
  });

  it('every grant is used; the ClusterRole grants nothing needed only in kpol-system', () => {
    const unusedCluster = grants(rulesOf('ClusterRole')).filter((g) =>
      !requests.some((q) => q.group === g.group && q.resource === g.resource && q.verb === g.verb && q.namespace !== NAMESPACE));
    const unusedOwn = grants(rulesOf('Role')).filter((g) =>
      !requests.some((q) => q.group === g.group && q.resource === g.resource && q.verb === g.verb && q.namespace === NAMESPACE));
    expect(unusedCluster.map(show)).toEqual([]);
    expect(unusedOwn.map(show)).toEqual([]);
  });

  it('the bindings give both roles to the Deployment\'s ServiceAccount', () => {
    const sa = allObjects().find((o) => o.kind === 'ServiceAccount')!;
    const dep = allObjects().find((o) => o.kind === 'Deployment')!;
    expect(dep.spec.template.spec.serviceAccountName).toBe(sa.metadata.name);
    for (const kind of ['ClusterRoleBinding', 'RoleBinding']) {
      const b = allObjects().find((o) => o.kind === kind)!;
      expect(b.subjects).toEqual([{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: sa.metadata.namespace }]);
      expect(b.roleRef.kind).toBe(kind.replace('Binding', ''));
    }
  });
});
