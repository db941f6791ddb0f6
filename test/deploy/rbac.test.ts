// SPDX-License-Identifier: Apache-2.0
// Least privilege, checked against the code, for each mode's manifests: every request the
// controller makes is allowed by that mode's RBAC, and every verb the RBAC grants is one of those
// requests — in the Role when it is only ever needed in kpol's own namespace. Standalone mode's
// requests are recorded while it provisions, drifts through a PDB, consolidates, reloads
// policies, writes NodePool status and holds its Lease (exercise.ts). Govern mode's are, for now,
// the designed list (govern-requests.ts), until its exercise exists.
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiRequest } from './api-inventory.js';
import { exerciseController, NAMESPACE } from './exercise.js';
import { GOVERN_DESIGNED_REQUESTS } from './govern-requests.js';
import { objects, type Mode } from './manifests.js';

interface Rule { apiGroups: string[]; resources: string[]; verbs: string[] }

interface ModeCheck {
  mode: Mode;
  /** The requests the controller makes in this mode. */
  requests: () => Promise<ApiRequest[]>;
  /** Where they come from: recorded from the running code, or the design (until it is recorded). */
  source: 'recorded' | 'designed';
  /** Requests that show the exercise went through each kind of work. */
  covers: string[];
}

const CHECKS: ModeCheck[] = [
  {
    mode: 'standalone',
    source: 'recorded',
    async requests() {
      const run = await exerciseController();
      expect(run.replaced).toBe(true); // the exercise did go through a drift replacement
      return run.requests;
    },
    covers: ['create core/pods/eviction in default', 'create core/nodes', 'patch karpenter.sh/nodepools/status', 'update coordination.k8s.io/leases in kpol-system',
      'patch core/configmaps in kpol-system', 'create core/events in kpol-system', 'delete karpenter.sh/nodeclaims', 'watch core/configmaps'],
  },
  {
    // TODO(govern): record the requests of the govern controller (src/govern/) with an exercise
    // like exerciseController — a NodePool governed and released, a held node, a graceful
    // expiration, the fail-closed renewal, a policy reload, the Lease — and drop the designed list.
    mode: 'govern',
    source: 'designed',
    requests: async () => [...GOVERN_DESIGNED_REQUESTS],
    covers: ['patch karpenter.sh/nodepools', 'patch core/nodes', 'delete karpenter.sh/nodeclaims', 'patch karpenter.sh/nodepools/status',
      'update coordination.k8s.io/leases in kpol-system', 'patch core/configmaps in kpol-system', 'create core/events in default'],
  },
];

const rulesOf = (mode: Mode, kind: string) => objects(mode).filter((o) => o.kind === kind).flatMap((o) => o.rules as Rule[]);
const grants = (rules: Rule[]) => rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => ({ group: g, resource: res, verb: v })))));
const allows = (rules: Rule[], q: ApiRequest) => grants(rules).some((g) => g.group === q.group && g.resource === q.resource && g.verb === q.verb);
const show = (q: { group: string; resource: string; verb: string; namespace?: string }) => `${q.verb} ${q.group || 'core'}/${q.resource}${q.namespace ? ` in ${q.namespace}` : ''}`;

describe.each(CHECKS)('RBAC of $mode mode against the requests it makes ($source)', ({ mode, requests: make, covers }) => {
  let requests: ApiRequest[] = [];
  beforeAll(async () => {
    requests = await make();
  });

  it('the requests cover each kind of work', () => {
    const seen = new Set(requests.map(show));
    for (const s of covers) expect(seen, s).toContain(s);
  });

  it('every request is allowed: by the ClusterRole, or by the Role inside kpol-system', () => {
    const cluster = rulesOf(mode, 'ClusterRole');
    const own = rulesOf(mode, 'Role');
    const denied = requests.filter((q) => !allows(cluster, q) && !(q.namespace === NAMESPACE && allows(own, q)));
    expect(denied.map(show)).toEqual([]);
  });

  it('every grant is used; the ClusterRole grants nothing needed only in kpol-system', () => {
    const unusedCluster = grants(rulesOf(mode, 'ClusterRole')).filter((g) =>
      !requests.some((q) => q.group === g.group && q.resource === g.resource && q.verb === g.verb && q.namespace !== NAMESPACE));
    const unusedOwn = grants(rulesOf(mode, 'Role')).filter((g) =>
      !requests.some((q) => q.group === g.group && q.resource === g.resource && q.verb === g.verb && q.namespace === NAMESPACE));
    expect(unusedCluster.map(show)).toEqual([]);
    expect(unusedOwn.map(show)).toEqual([]);
  });

  it('the bindings give both roles to the Deployment\'s ServiceAccount', () => {
    const sa = objects(mode).find((o) => o.kind === 'ServiceAccount')!;
    const dep = objects(mode).find((o) => o.kind === 'Deployment')!;
    expect(dep.spec.template.spec.serviceAccountName).toBe(sa.metadata.name);
    for (const kind of ['ClusterRoleBinding', 'RoleBinding']) {
      const b = objects(mode).find((o) => o.kind === kind)!;
      expect(b.subjects).toEqual([{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: sa.metadata.namespace }]);
      expect(b.roleRef.kind).toBe(kind.replace('Binding', ''));
    }
  });
});

it.todo('govern mode: record the requests of the govern controller (src/govern/) and check deploy/20-rbac.yaml against them');
