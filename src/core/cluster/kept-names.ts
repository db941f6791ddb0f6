// SPDX-License-Identifier: Apache-2.0
// What a controller's pass looks up in its lists of 5,000 NodeClaims and Nodes — which of them
// need it (finalizing, not yet settled), which carry a given providerID — answered from names kept
// by watch events instead of a walk over every object (the termination controller, the node
// agent's machine part). A pass lists at several points and writes in between, so the answers
// must be those of the list in hand, not of the store now. The names kept since the pass began
// (`mark`) are a superset of the list's: every object version the pass can hold was current then
// or written later, and each such version's event added its name. The pass resolves each name by
// binary search in its own list (sorted by name, as the in-memory server lists) and keeps the
// objects the list's version qualifies: the same objects, in the same order, that a filter over
// the list gives. Only for a client whose events arrive before a writer resumes (the in-memory
// cluster), and only while every event since the state was built has been applied.
import type { KubeObject } from './types.js';
import { position } from './sorted-objects.js';

/** Names by a key (a providerID, or "acting"), for one kind; a name stays under a key it left until `mark`. */
export class KeptNames {
  /** name → its key now (absent: none). */
  private readonly keyOf = new Map<string, string>();
  /** key → the names under it now, and those that left it since the last mark. */
  private readonly names = new Map<string, Set<string>>();
  /** Names that left a key since the last mark: dropped from it by the next mark. */
  private left: [string, string][] = [];

  /** The object `name` now has `key` (undefined: none, or deleted). */
  note(name: string, key: string | undefined): void {
    const old = this.keyOf.get(name);
    if (old === key) return;
    if (old !== undefined) this.left.push([old, name]);
    if (key === undefined) {
      this.keyOf.delete(name);
      return;
    }
    this.keyOf.set(name, key);
    let set = this.names.get(key);
    if (set === undefined) this.names.set(key, (set = new Set()));
    set.add(name);
  }

  /** From now on, a name answers only for the key it has now or gains later (a pass starts). */
  mark(): void {
    for (const [key, name] of this.left) {
      if (this.keyOf.get(name) === key) continue;
      const set = this.names.get(key);
      set?.delete(name);
      if (set?.size === 0) this.names.delete(key);
    }
    this.left = [];
  }

  clear(): void {
    this.keyOf.clear();
    this.names.clear();
    this.left = [];
  }

  /** The key `name` has now. */
  key(name: string): string | undefined {
    return this.keyOf.get(name);
  }

  /** The names under `key` now (not those that left it since the last mark). */
  current(key: string): string[] {
    const out: string[] = [];
    for (const name of this.names.get(key) ?? []) if (this.keyOf.get(name) === key) out.push(name);
    return out;
  }

  /** The names under `key` now, or at any time since the last mark. */
  under(key: string): ReadonlySet<string> | undefined {
    return this.names.get(key);
  }
}

/**
 * The objects of `sorted` (a list in name order) whose names are in `names` and that `keep`
 * accepts, in list order: `sorted.filter(keep)` when `names` holds every name it keeps.
 */
export function pick<T extends KubeObject>(
  sorted: readonly T[],
  names: Iterable<string> | undefined,
  keep: (o: T) => boolean,
): T[] {
  if (names === undefined) return [];
  const at: number[] = [];
  for (const name of names) {
    const p = position(sorted, { metadata: { name } } as KubeObject);
    if (p.found && keep(sorted[p.at]!)) at.push(p.at);
  }
  return at.sort((a, b) => a - b).map((i) => sorted[i]!);
}
