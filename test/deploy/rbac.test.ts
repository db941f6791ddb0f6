// SPDX-License-Identifier: Apache-2.0
// Least privilege, checked against the code, for each mode's manifests: every request the
// controller makes is allowed by that mode's RBAC, and every verb the RBAC grants is one of those
// requests — in the Role when it is only ever needed in kpol's own namespace. The requests are
// recorded from the code: standalone mode's while it provisions, drifts through a PDB,
// consolidates, reloads policies, writes NodePool status and holds its Lease (exercise.ts);
// govern mode's while it governs a NodePool, holds and releases nodes, expires a NodeClaim
// gracefully, reloads policies, hands the pool back and holds its Lease (exercise-govern.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiRequest } from './api-inventory.js';
import { exerciseController, NAMESPACE } from './exercise.js';
import { exerciseGovernor } from './exercise-govern.js';
import { objects, type Mode } from './manifests.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

interface ModeCheck {
  mode: Mode;
  /** The requests the controller makes in this mode, recorded. */
  requests: () => Promise<ApiRequest[]>;
  /** Requests that show the exercise went through each kind of work. */
  covers: string[];
  /**
   * Grants the design gives this mode (deploy/README.md) that the code does not use yet: allowed
   * to go unused, and to be removed from this list as soon as the code makes the request.
   */
  pending?: string[];
}

const CHECKS: ModeCheck[] = [
  {
    mode: 'standalone',
    async requests() {
      const run = await exerciseController();
      expect(run.replaced).toBe(true); // the exercise did go through a drift replacement
      return run.requests;
    },
    covers: [
      'create core/pods/eviction in default',
      'create core/nodes',
      'patch karpenter.sh/nodepools/status',
      'update coordination.k8s.io/leases in kpol-system',
      'patch core/configmaps in kpol-system',
      'create core/events in kpol-system',
      'delete karpenter.sh/nodeclaims',
      'watch core/configmaps',
    ],
  },
  {
    mode: 'govern',
    async requests() {
      const run = await exerciseGovernor();
      expect(run.saw).toEqual({ governed: true, held: true, released: true, expired: true, restored: true });
      return run.requests;
    },
    covers: [
      'patch karpenter.sh/nodepools',
      'patch core/nodes',
      'delete karpenter.sh/nodeclaims',
      'update coordination.k8s.io/leases in kpol-system',
      'patch core/configmaps in kpol-system',
      'create core/events in kpol-system',
      'create core/events in default',
      'watch policy/poddisruptionbudgets',
    ],
    // NodePool status is Karpenter's in govern mode: what kpol decided goes into the
    // kpol.dev/decision annotation instead, so no nodepools/status grant.
  },
];

const rulesOf = (mode: Mode, kind: string) =>
  objects(mode)
    .filter((o) => o.kind === kind)
    .flatMap((o) => o.rules as Rule[]);
const grants = (rules: Rule[]) =>
  rules.flatMap((r) =>
    r.apiGroups.flatMap((g) =>
      r.resources.flatMap((res) => r.verbs.map((v) => ({ group: g, resource: res, verb: v }))),
    ),
  );
const allows = (rules: Rule[], q: ApiRequest) =>
  grants(rules).some((g) => g.group === q.group && g.resource === q.resource && g.verb === q.verb);
const show = (q: { group: string; resource: string; verb: string; namespace?: string }) =>
  `${q.verb} ${q.group || 'core'}/${q.resource}${q.namespace ? ` in ${q.namespace}` : ''}`;

describe.each(CHECKS)(
  'RBAC of $mode mode against the requests it makes',
  ({ mode, requests: make, covers, pending = [] }) => {
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
      const unusedCluster = grants(rulesOf(mode, 'ClusterRole')).filter(
        (g) =>
          !requests.some(
            (q) => q.group === g.group && q.resource === g.resource && q.verb === g.verb && q.namespace !== NAMESPACE,
          ),
      );
      const unusedOwn = grants(rulesOf(mode, 'Role')).filter(
        (g) =>
          !requests.some(
            (q) => q.group === g.group && q.resource === g.resource && q.verb === g.verb && q.namespace === NAMESPACE,
          ),
      );
      expect(unusedCluster.map(show).filter((g) => !pending.includes(g))).toEqual([]);
      expect(unusedOwn.map(show).filter((g) => !pending.includes(g))).toEqual([]);
    });

    if (pending.length) {
      it(
        'the grants still pending in the code are granted and not yet requested (drop them from ' +
          '`pending` once they are)',
        () => {
          const seen = new Set(requests.map((q) => show({ ...q, namespace: undefined })));
          expect(pending.filter((g) => seen.has(g))).toEqual([]);
          const granted = new Set(grants([...rulesOf(mode, 'ClusterRole'), ...rulesOf(mode, 'Role')]).map(show));
          expect(pending.filter((g) => !granted.has(g))).toEqual([]);
        },
      );
      for (const g of pending) it.todo(`${mode} mode: the code makes \`${g}\``);
    }

    it("the bindings give both roles to the Deployment's ServiceAccount", () => {
      const sa = objects(mode).find((o) => o.kind === 'ServiceAccount')!;
      const dep = objects(mode).find((o) => o.kind === 'Deployment')!;
      expect(dep.spec.template.spec.serviceAccountName).toBe(sa.metadata.name);
      for (const kind of ['ClusterRoleBinding', 'RoleBinding']) {
        const b = objects(mode).find((o) => o.kind === kind)!;
        expect(b.subjects).toEqual([
          { kind: 'ServiceAccount', name: sa.metadata.name, namespace: sa.metadata.namespace },
        ]);
        expect(b.roleRef.kind).toBe(kind.replace('Binding', ''));
      }
    });
  },
);
