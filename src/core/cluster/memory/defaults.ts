// SPDX-License-Identifier: Apache-2.0
// What kube-apiserver fills in on the way in, for the fields kpol reads: the built-in types'
// defaulting (pkg/apis/core/v1/defaults.go, apps/v1, policy/v1), the admission plugins that
// run on pods by default (Priority, DefaultTolerationSeconds), the pod strategy's initial phase
// and the structural defaults of the karpenter.sh CRDs (deploy/crds, the same as Karpenter's).
// A field a caller leaves out therefore comes back as a real server would return it, and code
// that reads it never has to guess what "absent" means. Fields kpol never reads (schedulerName,
// restartPolicy, dnsPolicy, terminationMessagePath, …) are left out on purpose.
// test/k8s/adapter/defaults.test.ts creates the same objects here and on kube-apiserver and
// compares these fields.
//
// Stored objects are frozen and a patched object shares its untouched parts with the stored
// one, so every default here copies only the path it writes.
import { DEFAULT_TERMINATION_GRACE_SECONDS, type KubeObject, type Pod } from '../types.js';

/**
 * The priority the Priority admission plugin gives a pod by its `priorityClassName`: 0 without
 * one (the in-memory server has no PriorityClass objects, so no global default), and the two
 * classes every API server creates at start. Other classes are unknown here: the pod keeps the
 * priority it was written with (a real server would read the PriorityClass).
 */
export const BUILT_IN_PRIORITY: Readonly<Record<string, number>> = {
  '': 0,
  'system-cluster-critical': 2_000_000_000,
  'system-node-critical': 2_000_001_000,
};

/** The tolerations DefaultTolerationSeconds adds unless the pod already tolerates the taint. */
const DEFAULT_TOLERATIONS = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'];
const DEFAULT_TOLERATION_SECONDS = 300;

/** The karpenter.sh CRDs' defaults (deploy/crds). */
export const CRD_DEFAULTS = {
  consolidateAfter: '0s',
  consolidationPolicy: 'WhenEmptyOrUnderutilized',
  budgetNodes: '10%',
  expireAfter: '720h',
} as const;

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const absent = (v: unknown): boolean => v === undefined || v === null;

/** `obj` with `value` at `key`, copied (the rest shared). */
const withKey = <T extends Json>(obj: T, key: string, value: unknown): T => ({ ...obj, [key]: value });

/**
 * `obj` with `f` applied to the object at `key` (which must be an object, else `obj` as it is);
 * `obj` itself when `f` changes nothing.
 */
function under<T extends Json>(obj: T, key: string, f: (inner: Json) => Json): T {
  const inner = obj[key];
  if (!isObj(inner)) return obj;
  const next = f(inner);
  return next === inner ? obj : withKey(obj, key, next);
}

/** Sets `key` to `value` when it is absent (or null, which a real server defaults too). */
const orDefault = <T extends Json>(obj: T, key: string, value: unknown): T =>
  absent(obj[key]) ? withKey(obj, key, value) : obj;

/**
 * The object with the API server's defaults filled in. `current` is the stored object an
 * update or patch replaces (undefined for a create, or a seeded snapshot object, which is
 * defaulted as if it had been created: objects read back from a real server always carry
 * them). Returns `obj` itself when nothing was missing.
 */
export function withServerDefaults(obj: KubeObject, current: KubeObject | undefined): KubeObject {
  switch (obj.kind) {
    case 'Pod':
      return podDefaults(obj, current);
    case 'Node':
      return under(obj, 'status', (s) =>
        absent(s.allocatable) && isObj(s.capacity) ? withKey(s, 'allocatable', { ...s.capacity }) : s,
      );
    case 'PodDisruptionBudget':
      return pdbDefaults(obj);
    case 'ReplicaSet':
      return under(obj, 'spec', (s) =>
        under(orDefault(s, 'replicas', 1), 'template', (t) => under(t, 'spec', podSpecDefaults)),
      );
    case 'NodePool':
      return under(obj, 'spec', nodePoolSpecDefaults);
    case 'NodeClaim':
      return under(obj, 'spec', (s) => orDefault(s, 'expireAfter', CRD_DEFAULTS.expireAfter));
    default:
      return obj;
  }
}

/** What a PodSpec gets wherever it appears (pods and pod templates): SetDefaults_PodSpec, 30 s of grace. */
const podSpecDefaults = (spec: Json): Json =>
  orDefault(spec, 'terminationGracePeriodSeconds', DEFAULT_TERMINATION_GRACE_SECONDS);

function podDefaults(pod: KubeObject, current: KubeObject | undefined): KubeObject {
  let out = under(pod, 'spec', (spec) => {
    let s = podSpecDefaults(spec);
    // SetDefaults_Pod (pods only, not templates): a resource with a limit and no request requests its limit.
    for (const list of ['containers', 'initContainers']) {
      const cs = s[list];
      if (!Array.isArray(cs)) continue;
      const next = cs.map((c: unknown) => (isObj(c) ? under(c, 'resources', requestsFromLimits) : c));
      if (next.some((c, i) => c !== cs[i])) s = withKey(s, list, next);
    }
    // Priority: computed from the class on create; an update cannot change it (the plugin keeps the old value).
    if (absent(s.priority)) {
      const priority = current
        ? (current as Pod).spec?.priority
        : BUILT_IN_PRIORITY[typeof s.priorityClassName === 'string' ? s.priorityClassName : ''];
      if (priority !== undefined) s = withKey(s, 'priority', priority);
    }
    return withDefaultTolerations(s);
  });
  // The pod strategy's PrepareForCreate: a new pod is Pending until its kubelet says otherwise.
  if (!current && !(isObj(out.status) && !absent(out.status.phase)))
    out = withKey(out, 'status', { ...(isObj(out.status) ? out.status : {}), phase: 'Pending' });
  return out;
}

function requestsFromLimits(resources: Json): Json {
  const limits = resources.limits;
  if (!isObj(limits)) return resources;
  const requests = isObj(resources.requests) ? resources.requests : {};
  const missing = Object.keys(limits).filter((k) => !(k in requests));
  if (missing.length === 0 && isObj(resources.requests)) return resources;
  return withKey(resources, 'requests', { ...requests, ...Object.fromEntries(missing.map((k) => [k, limits[k]])) });
}

/** DefaultTolerationSeconds: NoExecute not-ready and unreachable for 300 s, unless already tolerated. */
function withDefaultTolerations(spec: Json): Json {
  const tolerations = Array.isArray(spec.tolerations) ? (spec.tolerations as Json[]) : [];
  const tolerated = (key: string) =>
    tolerations.some((t) => isObj(t) && (!t.key || t.key === key) && (!t.effect || t.effect === 'NoExecute'));
  const add = DEFAULT_TOLERATIONS.filter((key) => !tolerated(key));
  if (add.length === 0) return spec;
  return withKey(spec, 'tolerations', [
    ...tolerations,
    ...add.map((key) => ({
      key,
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: DEFAULT_TOLERATION_SECONDS,
    })),
  ]);
}

/**
 * policy/v1 PodDisruptionBudgetStatus: its four counts are always serialised, 0 until the disruption controller writes
 * them.
 */
function pdbDefaults(pdb: KubeObject): KubeObject {
  const status = isObj(pdb.status) ? pdb.status : {};
  let s = status;
  for (const k of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']) s = orDefault(s, k, 0);
  return s === pdb.status ? pdb : withKey(pdb, 'status', s);
}

/**
 * The NodePool CRD's defaults, applied top-down as the API server does (a defaulted parent gets its children's
 * defaults).
 */
function nodePoolSpecDefaults(spec: Json): Json {
  let s = under(
    orDefault(spec, 'disruption', { consolidateAfter: CRD_DEFAULTS.consolidateAfter }),
    'disruption',
    (d) => {
      let out = orDefault(d, 'consolidateAfter', CRD_DEFAULTS.consolidateAfter);
      out = orDefault(out, 'consolidationPolicy', CRD_DEFAULTS.consolidationPolicy);
      out = orDefault(out, 'budgets', [{ nodes: CRD_DEFAULTS.budgetNodes }]);
      const budgets = out.budgets;
      if (Array.isArray(budgets)) {
        const next = budgets.map((b: unknown) => (isObj(b) ? orDefault(b, 'nodes', CRD_DEFAULTS.budgetNodes) : b));
        if (next.some((b, i) => b !== budgets[i])) out = withKey(out, 'budgets', next);
      }
      return out;
    },
  );
  s = under(s, 'template', (t) => under(t, 'spec', (ts) => orDefault(ts, 'expireAfter', CRD_DEFAULTS.expireAfter)));
  return s;
}
