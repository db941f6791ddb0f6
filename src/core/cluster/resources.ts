// SPDX-License-Identifier: Apache-2.0
// Kubernetes resource quantities as plain numbers (cpu in cores, memory and storage in bytes,
// `pods` and extended resources as counts), pod requests and node allocatable.
import type { Container, Node, Pod } from './types.js';
import { ownValue } from './own-keys.js';

/**
 * Resource name → amount; a missing name is 0. Names come from pod specs, so they are read as
 * own keys (a request named `constructor` is a request, not Object.prototype's member) and
 * written with `put`. Records stay plain objects: prototype-less ones are several times slower
 * to build in V8, and these are built on every scheduling step.
 */
export type Resources = Readonly<Record<string, number>>;

const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$/;

/**
 * `resource.ParseQuantity` as a number: `100m` → 0.1, `1.5` → 1.5, `128Mi` → 134217728,
 * `1e3` → 1000, `500M` → 5e8. `undefined` for text Kubernetes would reject.
 */
export function parseQuantity(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) ? text : undefined;
  const m = QUANTITY.exec(text.trim());
  if (!m) return undefined;
  const [, sign, digits, exponent, suffix] = m;
  const base = Number(digits) * (exponent ? 10 ** Number(exponent.slice(1)) : SUFFIX[suffix ?? '']);
  return sign === '-' ? -base : base;
}

/** Parses a `Record<name, quantity>`; unparseable entries are skipped (the API server never stores them). */
/** `r[k]` when `r` has it as its own property, else 0. */
const amount = (r: Resources, k: string): number => (Object.hasOwn(r, k) ? r[k] : 0);

/** `r[k] = v`, also for the one name assignment would not store: `__proto__` (its setter). */
function put(r: Record<string, number>, k: string, v: number): void {
  if (k === '__proto__')
    Object.defineProperty(r, k, { value: v, enumerable: true, writable: true, configurable: true });
  else r[k] = v;
}

export function parseResourceList(list: Readonly<Record<string, string | number>> | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, q] of Object.entries(list ?? {})) {
    const v = parseQuantity(q);
    if (v !== undefined) put(out, name, v);
  }
  return out;
}

export function addResources(a: Resources, b: Resources): Record<string, number> {
  return addInto({ ...a }, b);
}

/** `out` with `b` added to it, in place (the one loop addResources and sumRequests share). */
export function addInto(out: Record<string, number>, b: Resources): Record<string, number> {
  // for-in over own keys, not Object.entries: a scheduling simulation adds per pod it places.
  for (const k in b) if (Object.hasOwn(b, k)) put(out, k, amount(out, k) + b[k]);
  return out;
}

export function maxResources(a: Resources, b: Resources): Record<string, number> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) put(out, k, Math.max(amount(out, k), v));
  return out;
}

/** A container's requests; a resource with only a limit requests its limit (the API server's defaulting). */
function containerRequests(c: Container): Record<string, number> {
  return { ...parseResourceList(c.resources?.limits), ...parseResourceList(c.resources?.requests) };
}

const requestCache = new WeakMap<Pod, Resources>();
/**
 * The requests of pods with only `containers`, by that list: the stores share one frozen list
 * between the pods of a ReplicaSet (src/core/cluster/lean.ts), so 150,000 pods parse a few hundred
 * lists rather than each its own (parsing them all made ~300 MB of garbage on a first tick).
 */
const byContainers = new WeakMap<readonly Container[], Resources>();

/**
 * The scheduler's pod requests: per resource, max(Σ containers, max init container) plus
 * `spec.overhead`, and `pods: 1`. Memoised per pod object (pods are never mutated) and, for a
 * pod with containers alone, per containers list.
 */
export function podRequests(pod: Pod): Resources {
  const hit = requestCache.get(pod);
  if (hit) return hit;
  const containers = pod.spec.containers;
  const plain = containers !== undefined && pod.spec.initContainers === undefined && pod.spec.overhead === undefined;
  const shared = plain ? byContainers.get(containers) : undefined;
  const out = shared ?? computeRequests(pod);
  if (plain && shared === undefined) byContainers.set(containers, out);
  requestCache.set(pod, out);
  return out;
}

/** The sum of the pods' requests, built in one record (in pod order, as adding them pairwise would). */
export function sumRequests(pods: readonly Pod[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pod of pods) addInto(out, podRequests(pod));
  return out;
}

function computeRequests(pod: Pod): Resources {
  let sum: Record<string, number> = {};
  for (const c of pod.spec.containers ?? []) sum = addResources(sum, containerRequests(c));
  let init: Record<string, number> = {};
  for (const c of pod.spec.initContainers ?? []) init = maxResources(init, containerRequests(c));
  return addResources(addResources(maxResources(sum, init), parseResourceList(pod.spec.overhead)), { pods: 1 });
}

/** `status.allocatable`, else `status.capacity`, of a Node. */
export function nodeAllocatable(node: Node): Record<string, number> {
  return parseResourceList(node.status?.allocatable ?? node.status?.capacity);
}

// Sums of decimal fractions (0.1 + 0.2 cores) must not fail a fit by rounding.
const EPSILON = 1e-9;

/** The first resource whose request exceeds what is available, if any. */
export function insufficientResource(
  requests: Resources,
  available: Resources,
): { name: string; requested: number; available: number } | undefined {
  for (const [name, requested] of Object.entries(requests)) {
    if (requested <= 0) continue;
    const have = ownValue(available, name) ?? 0;
    if (requested > have + EPSILON * Math.max(1, Math.abs(have))) return { name, requested, available: have };
  }
  return undefined;
}

/**
 * `insufficientResource(requests, available) === undefined` without allocating: the same
 * comparison per resource, for loops that ask it of thousands of nodes.
 */
export function fitsWithin(requests: Resources, available: Resources): boolean {
  for (const name in requests) {
    if (!Object.hasOwn(requests, name)) continue;
    const requested = requests[name];
    if (requested <= 0) continue;
    const have = ownValue(available, name) ?? 0;
    if (requested > have + EPSILON * Math.max(1, Math.abs(have))) return false;
  }
  return true;
}

/** `available − used`, per resource named in `available`. */
export function remaining(available: Resources, used: Resources): Record<string, number> {
  const out = { ...available };
  for (const k in used) if (Object.hasOwn(used, k)) put(out, k, amount(out, k) - used[k]);
  return out;
}

/**
 * `free`, equal to remaining(available, used) before `added` was added to `used`, made equal to
 * it again in place: only the resources `added` names moved.
 */
export function refreshRemaining(
  free: Record<string, number>,
  available: Resources,
  used: Resources,
  added: Resources,
): void {
  for (const k in added) if (Object.hasOwn(added, k)) put(free, k, amount(available, k) - amount(used, k));
}

/** Compact, stable rendering for messages: `{"cpu":"1.5","memory":"2Gi","pods":"3"}`-like. */
export function formatResources(r: Resources): string {
  const keys = Object.keys(r)
    .filter((k) => r[k] !== 0)
    .sort();
  return '{' + keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(formatQuantity(k, r[k]))}`).join(',') + '}';
}

export function formatQuantity(name: string, v: number): string {
  if (name === 'memory' || name === 'ephemeral-storage') {
    for (const [s, f] of [
      ['Gi', 2 ** 30],
      ['Mi', 2 ** 20],
      ['Ki', 2 ** 10],
    ] as const) {
      if (Math.abs(v) >= f && Number.isInteger(v / f)) return `${v / f}${s}`;
    }
    return String(v);
  }
  if (name === 'cpu' && !Number.isInteger(v)) return `${Math.round(v * 1000)}m`;
  return String(v);
}
