// SPDX-License-Identifier: Apache-2.0
// A small interpreter for the object shapes in object-shapes.ts: it walks one object with a
// shape and returns the first field that kpol could not read, as `field.path: problem`.
// Fields a shape does not name are left alone (kpol never reads them). A `null` where an
// optional field may be is removed, because Kubernetes' JSON decoding treats it as absent and
// kpol's readers test `!== undefined` (a `deletionTimestamp: null` must not mean "deleting").
import { parseQuantity } from './resources.js';

/** One field's shape: a scalar name, an enumeration, a list, a string-keyed map, or an object's fields. */
export type Shape =
  | 'string'
  | 'boolean'
  | 'integer'
  | 'number'
  | 'intOrString'
  | 'quantity'
  | 'time'
  | { enum: readonly string[] }
  | { list: Shape }
  | { map: Shape }
  | { fields: Fields };

/** Field name → shape; a name ending in `!` is required (the `!` is not part of the name). */
export type Fields = Readonly<Record<string, Shape>>;

export const describe = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : typeof v;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Echoed values are cut short: a problem line stays small whatever the input holds. */
const quote = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);
/** Map keys in a path are quoted when they are not plain names (label keys hold `/` and `.`). */
const keyPath = (path: string, key: string): string =>
  /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? `${path}.${key}` : `${path}[${quote(key)}]`;
const fieldPath = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

// Instants JavaScript dates can hold (±8.64e15 ms); kubectl prints RFC 3339.
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function scalarProblem(shape: string, v: unknown): string | undefined {
  switch (shape) {
    case 'string':
      return typeof v === 'string' ? undefined : `must be a string, found ${describe(v)}`;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `must be true or false, found ${describe(v)}`;
    case 'integer':
      if (Number.isSafeInteger(v)) return undefined;
      return `must be an integer, found ${typeof v === 'number' ? String(v) : describe(v)}`;
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? undefined : `must be a number, found ${describe(v)}`;
    case 'intOrString':
      if (Number.isSafeInteger(v) || typeof v === 'string') return undefined;
      return `must be an integer or a string, found ${describe(v)}`;
    case 'quantity':
      if (typeof v !== 'string' && typeof v !== 'number') {
        return `must be a quantity such as "500m" or "2Gi", found ${describe(v)}`;
      }
      return parseQuantity(v) === undefined ? `${quote(String(v))} is not a Kubernetes quantity` : undefined;
    case 'time':
      if (typeof v !== 'string') return `must be an RFC 3339 time, found ${describe(v)}`;
      return RFC3339.test(v) && !Number.isNaN(Date.parse(v)) ? undefined : `${quote(v)} is not an RFC 3339 time`;
  }
  return `unknown shape ${shape}`;
}

/** A field's compiled spec: its name, whether it is required, and its shape. */
interface FieldSpec {
  name: string;
  required: boolean;
  shape: Shape;
}

// Compiled once per `fields` object, reversed so that popping the work list checks them in order.
const compiled = new WeakMap<Fields, FieldSpec[]>();
function fieldSpecs(fields: Fields): FieldSpec[] {
  let specs = compiled.get(fields);
  if (!specs) {
    specs = Object.entries(fields)
      .map(([spec, shape]) => {
        const required = spec.endsWith('!');
        return { name: required ? spec.slice(0, -1) : spec, required, shape };
      })
      .reverse();
    compiled.set(fields, specs);
  }
  return specs;
}

/** A place in the walk; paths are spelled only for a problem (building one per value cost as much as JSON.parse). */
interface Place {
  value: unknown;
  shape: Shape;
  parent: Place | undefined;
  /** A field name, a list index, or (`mapKey`) a map key. */
  key: string | number;
  mapKey?: boolean;
}

function pathOf(place: Place | undefined, root: string, last?: string | number): string {
  const parts: Place[] = [];
  for (let p = place; p?.parent; p = p.parent) parts.push(p);
  let path = root;
  for (const p of parts.reverse()) {
    if (typeof p.key === 'number') path += `[${p.key}]`;
    else path = p.mapKey ? keyPath(path, p.key) : fieldPath(path, p.key);
  }
  if (typeof last === 'number') path += `[${last}]`;
  else if (last !== undefined) path = fieldPath(path, last);
  return path;
}

/**
 * The first problem with `value` against `shape`, as `path: problem`; undefined when kpol can
 * read it. Iterative (an explicit work list), so a long list cannot overflow the stack.
 */
export function shapeProblem(value: unknown, shape: Shape, path: string): string | undefined {
  const work: Place[] = [{ value, shape, parent: undefined, key: '' }];
  while (work.length > 0) {
    const place = work.pop()!;
    const { value: v, shape: s } = place;
    if (typeof s === 'string') {
      const problem = scalarProblem(s, v);
      if (problem) return `${pathOf(place, path)}: ${problem}`;
    } else if ('enum' in s) {
      if (typeof v !== 'string' || !s.enum.includes(v)) {
        const found = typeof v === 'string' ? quote(v) : describe(v);
        return `${pathOf(place, path)}: must be one of ${s.enum.join(', ')}, found ${found}`;
      }
    } else if ('list' in s) {
      if (!Array.isArray(v)) return `${pathOf(place, path)}: must be a list, found ${describe(v)}`;
      for (let i = v.length - 1; i >= 0; i--) {
        if (v[i] === null || v[i] === undefined) return `${pathOf(place, path, i)}: must not be null`;
        work.push({ value: v[i], shape: s.list, parent: place, key: i });
      }
    } else if ('map' in s) {
      if (!isRecord(v)) return `${pathOf(place, path)}: must be a map, found ${describe(v)}`;
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        work.push({ value: v[keys[i]], shape: s.map, parent: place, key: keys[i], mapKey: true });
      }
    } else {
      if (!isRecord(v)) return `${pathOf(place, path)}: must be an object, found ${describe(v)}`;
      for (const f of fieldSpecs(s.fields)) {
        const has = Object.hasOwn(v, f.name);
        const fv = has ? v[f.name] : undefined;
        const absent = fv === undefined || fv === null;
        if (absent && f.required) return `${pathOf(place, path, f.name)}: is required`;
        if (absent && has) delete v[f.name]; // null: absent, as Kubernetes decodes it
        if (!absent) work.push({ value: fv, shape: f.shape, parent: place, key: f.name });
      }
    }
  }
  return undefined;
}
