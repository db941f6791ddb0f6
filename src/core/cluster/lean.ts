// SPDX-License-Identifier: Apache-2.0
// Lean copies of cluster objects, for the caches that hold them by the hundred thousand (the
// in-memory server's store, each informer's cache). Two savings, both declared here:
// - Projection (the informers' caches; README.md "Objects from an API server"): for
//   PROJECTED_KINDS only the fields object-shapes.ts declares are kept; managedFields are dropped
//   from every kind. The other kinds are
//   kept whole because kpol writes them back with full updates (a NodeClaim's launch), which must
//   not erase what kpol does not read.
// - Sharing: equal label sets, owner references, conditions, tolerations, containers and other
//   maps and lists the shapes declare become one frozen object shared by every object holding
//   them (150,000 pods carry a few hundred distinct label sets), and the strings of SHARED_STRINGS
//   (namespace, node name, timestamps) one string each.
// Shared parts are frozen; callers freeze the rest as before. Sharing stays bounded: the table
// forgets everything when it grows past TABLE_LIMIT (objects keep what they share).
import { KIND_SHAPES, METADATA } from './object-shapes.js';
import type { Fields, Shape } from './shape-check.js';
import type { KubeObject } from './types.js';

/** Kinds whose cached copies keep only the declared fields: the numerous ones, which kpol only patches. */
export const PROJECTED_KINDS: ReadonlySet<string> = new Set(['Pod', 'Node']);

/** Leaf fields whose strings repeat across objects (a namespace, a node's name on its 30 pods, a timestamp). */
const SHARED_STRINGS: ReadonlySet<string> = new Set([
  'apiVersion',
  'kind',
  'namespace',
  'nodeName',
  'creationTimestamp',
  'startTime',
  'phase',
  'lastTransitionTime',
]);

/** Entries the sharing table holds before it starts over (~10–20 MB of keys at most). */
const TABLE_LIMIT = 1 << 17;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const shapeFields = (kind: string): Fields | undefined => KIND_SHAPES[kind];

/** The table of shared parts and strings; one per cache, so unrelated caches never hold each other's. */
export class Sharing {
  private readonly parts = new Map<string, object>();
  private readonly strings = new Map<string, string>();
  part<T extends object>(value: T): T {
    const key = JSON.stringify(value);
    const known = this.parts.get(key);
    if (known !== undefined) return known as T;
    if (this.parts.size >= TABLE_LIMIT) this.parts.clear();
    this.parts.set(key, freeze(value));
    return value;
  }

  string(s: string): string {
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    if (this.strings.size >= TABLE_LIMIT) this.strings.clear();
    this.strings.set(s, s);
    return s;
  }
}

/**
 * `s` as one flat string. V8 keeps a string made by concatenation (a template literal: the names and
 * uids the simulated world and the bench generate) as a tree of its parts, ~3× the characters'
 * size; reading a character joins them, and the collector then substitutes the joined string.
 */
function flat(s: string): string {
  if (s.length > 0) s.charCodeAt(0);
  return s;
}

function freeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const v of Object.values(value)) freeze(v);
  return Object.freeze(value);
}

/**
 * A copy of `obj` with the parts its kind's shape declares shared through `sharing`, and, for
 * PROJECTED_KINDS (unless `project` is 'none', as for the in-memory server, which is the cluster
 * itself), without the fields no shape declares. Frozen parts of `obj` other than its metadata
 * are taken as they are: they are already some stored object's.
 */
export function leanCopy<T extends KubeObject>(obj: T, sharing: Sharing, project: 'numerous' | 'none' = 'numerous'): T {
  const fields = shapeFields(obj.kind);
  const drop = project === 'numerous' && fields !== undefined && PROJECTED_KINDS.has(obj.kind);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) {
    const v = (obj as Record<string, unknown>)[key];
    if (v === undefined) continue;
    if (key === 'metadata') out.metadata = copyFields(v, METADATA, sharing, drop, true);
    else if (key === 'apiVersion' || key === 'kind') out[key] = typeof v === 'string' ? sharing.string(v) : v;
    else if (fields && key in fields) out[key] = copyShape(v, fields[key], sharing, drop);
    else if (!drop) out[key] = plainCopy(v);
  }
  return out as T;
}

function copyShape(v: unknown, shape: Shape, sharing: Sharing, drop: boolean): unknown {
  if (typeof v === 'string') return flat(v);
  if (typeof v !== 'object' || v === null) return v;
  if (Object.isFrozen(v)) return v;
  if (typeof shape === 'string' || 'enum' in shape) return plainCopy(v);
  if ('fields' in shape) return copyFields(v, shape, sharing, drop);
  if ('list' in shape) {
    if (!Array.isArray(v)) return plainCopy(v);
    return sharing.part(v.map((x) => copyShape(x, shape.list, sharing, drop)));
  }
  if (!isRecord(v)) return plainCopy(v);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) if (v[key] !== undefined) out[key] = copyShape(v[key], shape.map, sharing, drop);
  return sharing.part(out);
}

const declared = new WeakMap<Fields, Map<string, Shape>>();
function declaredFields(fields: Fields): Map<string, Shape> {
  let m = declared.get(fields);
  if (!m) {
    m = new Map(Object.entries(fields).map(([k, s]) => [k.endsWith('!') ? k.slice(0, -1) : k, s]));
    declared.set(fields, m);
  }
  return m;
}

/** `fresh`: a new object even when `v` is frozen (the store writes the copy's resourceVersion). */
function copyFields(v: unknown, shape: Shape, sharing: Sharing, drop: boolean, fresh = false): unknown {
  if (!isRecord(v) || typeof shape !== 'object' || !('fields' in shape)) return plainCopy(v);
  if (Object.isFrozen(v) && !fresh) return v;
  const fields = declaredFields(shape.fields);
  const out: Record<string, unknown> = {};
  // for-in over own keys rather than Object.keys: no array of keys per object a write copies.
  for (const key in v) {
    if (!Object.hasOwn(v, key)) continue;
    const x = v[key];
    if (x === undefined || key === 'managedFields') continue;
    const s = fields.get(key);
    if (s === undefined) {
      if (!drop) out[key] = plainCopy(x);
    } else if (typeof x === 'string') out[key] = SHARED_STRINGS.has(key) ? sharing.string(x) : flat(x);
    else out[key] = copyShape(x, s, sharing, drop);
  }
  return out;
}

/** A copy of a JSON value; frozen parts are taken as they are. */
function plainCopy(v: unknown): unknown {
  if (typeof v === 'string') return flat(v);
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return v;
  if (Array.isArray(v)) return v.map(plainCopy);
  const out: Record<string, unknown> = {};
  for (const key in v) if (Object.hasOwn(v, key)) out[key] = plainCopy((v as Record<string, unknown>)[key]);
  return out;
}
