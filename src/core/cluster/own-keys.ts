// SPDX-License-Identifier: Apache-2.0
// Lookups by keys a user controls (label keys, topology keys, resource names, ConfigMap keys).
// Such a key may be named like an Object member — `constructor`, `toString`, `__proto__` are
// valid label keys — and `record[key]` would then find Object.prototype's member instead of
// nothing. These read own properties only; records built from such keys start without a
// prototype, so that writing `__proto__` stores a value instead of replacing the prototype.

/** `record[key]` when `record` has it as its own property, else undefined. */
export function ownValue<T>(record: Readonly<Record<string, T>> | null | undefined, key: string): T | undefined {
  return record !== undefined && record !== null && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** An empty record without a prototype, optionally filled with `from`'s own entries. */
export function ownRecord<T>(from?: Readonly<Record<string, T>>): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  if (from) for (const [k, v] of Object.entries(from)) out[k] = v;
  return out;
}
