// SPDX-License-Identifier: Apache-2.0
// JSON merge patch (RFC 7386), as `kubectl patch --type merge` sends it.
import type { MergePatch } from '../client.js';
import { deepCopy } from './deep.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The patched value; `target` is not modified. null deletes a key, arrays replace whole. */
export function applyMergePatch<T>(target: T, patch: MergePatch): T {
  return merge(target, patch) as T;
}

function merge(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return deepCopy(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = merge(out[key], value);
  }
  return out;
}
