// SPDX-License-Identifier: Apache-2.0
// One kind's objects in list order (namespace, then name, as etcd returns them), kept current
// so that a list is an array copy; used by the in-memory server's store and by each informer's
// cache. A replacement is patched in place by binary search; additions and removals are
// collected and merged in on the next read, so deleting 100,000 pods does not shift a
// 150,000-element array 100,000 times; a few of them are spliced in instead, which costs less
// than a filter and a merge over every object.
import type { KubeObject } from './types.js';

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export const byNamespaceAndName = (a: KubeObject, b: KubeObject): number =>
  compare(a.metadata.namespace ?? '', b.metadata.namespace ?? '') || compare(a.metadata.name, b.metadata.name);

/** Where `obj` is (found) or would go in `sorted`, by namespace and name. */
export function position(sorted: readonly KubeObject[], obj: KubeObject): { at: number; found: boolean } {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = byNamespaceAndName(sorted[mid], obj);
    if (c === 0) return { at: mid, found: true };
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return { at: lo, found: false };
}

/** The objects of `namespace` (all of them when undefined) from a sorted array, as a new array. */
export function inNamespace(sorted: readonly KubeObject[], namespace: string | undefined): KubeObject[] {
  if (namespace === undefined) return sorted.slice();
  // Namespaces are contiguous in the sorted array.
  const from = position(sorted, { metadata: { namespace, name: '' } } as KubeObject).at;
  let to = from;
  while (to < sorted.length && sorted[to].metadata.namespace === namespace) to++;
  return sorted.slice(from, to);
}

/** Changes between reads up to which they are spliced in rather than filtered and merged. */
const FEW_CHANGES = 16;

export class SortedObjects {
  /** Undefined until first read; then sorted, possibly holding objects listed in `removed`. */
  private sorted: KubeObject[] | undefined;
  private added: KubeObject[] = [];
  private readonly removed = new Set<KubeObject>();

  /**
   * `current()` yields the kind's stored objects in any order; `sorted`, when given, is them
   * already in list order (a list just read), so the first read need not sort again.
   */
  constructor(
    private readonly current: () => { readonly size: number; values(): Iterable<KubeObject> },
    sorted?: KubeObject[],
  ) {
    this.sorted = sorted;
  }

  /** Every stored object of the kind, sorted; callers must not modify the array. */
  read(): readonly KubeObject[] {
    if (this.sorted === undefined) {
      this.sorted = [...this.current().values()].sort(byNamespaceAndName);
    } else if (this.added.length + this.removed.size <= FEW_CHANGES) {
      this.spliceChanges(this.sorted);
    } else {
      const kept = this.removed.size > 0 ? this.sorted.filter((o) => !this.removed.has(o)) : this.sorted;
      const added = this.added.filter((o) => !this.removed.has(o)).sort(byNamespaceAndName);
      this.sorted = merge(kept, added);
    }
    this.added = [];
    this.removed.clear();
    return this.sorted;
  }

  /**
   * A few changes put in place one by one, found by binary search: a splice moves a block of
   * memory, where the filter and the merge call a function per object (a tick that deletes a few
   * of 50,000 pods and lists them paid for both). An object not in `sorted` (added and removed
   * between reads) is skipped: namespace and name are unique among stored objects.
   */
  private spliceChanges(sorted: KubeObject[]): void {
    for (const obj of this.removed) {
      const { at, found } = position(sorted, obj);
      if (found && sorted[at] === obj) sorted.splice(at, 1);
    }
    for (const obj of this.added) if (!this.removed.has(obj)) sorted.splice(position(sorted, obj).at, 0, obj);
  }

  add(obj: KubeObject): void {
    if (this.sorted === undefined) return;
    this.added.push(obj);
    this.bound();
  }

  replace(previous: KubeObject, next: KubeObject): void {
    if (this.sorted === undefined) return;
    const { at, found } = position(this.sorted, next);
    if (found && this.sorted[at] === previous) {
      this.sorted[at] = next;
      return;
    }
    this.removed.add(previous);
    this.added.push(next);
    this.bound();
  }

  remove(obj: KubeObject): void {
    if (this.sorted === undefined) return;
    this.removed.add(obj);
    this.bound();
  }

  /** A kind written far more than it is read: forget the order rather than collect changes. */
  private bound(): void {
    if (this.added.length + this.removed.size > this.current().size + 1024) {
      this.sorted = undefined;
      this.added = [];
      this.removed.clear();
    }
  }
}

function merge(a: readonly KubeObject[], b: readonly KubeObject[]): KubeObject[] {
  if (b.length === 0) return a as KubeObject[];
  const out: KubeObject[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = byNamespaceAndName(a[i], b[j]) <= 0 ? a[i++] : b[j++];
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}
