// SPDX-License-Identifier: Apache-2.0
// Loading a cluster snapshot: the text of `kubectl get … -o yaml|json` (a `List`, several
// YAML documents, a JSON array or a single object) → the objects kpol reads, sorted by kind.
// Takes text, not a path: the CLI reads files, so this module stays portable. Every object
// kept is first checked against the shape of the fields kpol reads (object-shapes.ts).
import { labelSelectorProblem } from './labels.js';
import { KIND_SHAPES, METADATA } from './object-shapes.js';
import { describe, shapeProblem } from './shape-check.js';
import { parseSnapshotText } from './snapshot-parse.js';
import type { ConfigMap, KubeObject, Node, NodeClaim, NodePool, Pod, PodDisruptionBudget } from './types.js';

/**
 * A problem with the snapshot: `file:line:col` for syntax errors, `file: Kind/namespace/name`
 * (`file: Kind/name` when cluster-scoped) for objects, whose message starts with the field path.
 */
export interface LoadError {
  location: string;
  message: string;
}

export interface Snapshot {
  nodePools: NodePool[];
  nodeClaims: NodeClaim[];
  nodes: Node[];
  pods: Pod[];
  pdbs: PodDisruptionBudget[];
  configMaps: ConfigMap[];
  /** Objects of kinds kpol does not read (Deployments, Services, …): counted for a note. */
  ignored: number;
}

export interface LoadResult {
  snapshot?: Snapshot;
  errors: LoadError[];
  /** Problems that did not stop the load (an object listed twice), located like errors. */
  warnings: LoadError[];
}

type Bucket = Exclude<keyof Snapshot, 'ignored'>;

/** The kinds kpol keeps, with the one apiVersion it understands for each. */
const KINDS: Record<string, { apiVersion: string; bucket: Bucket; hasSpec: boolean }> = {
  NodePool: { apiVersion: 'karpenter.sh/v1', bucket: 'nodePools', hasSpec: true },
  NodeClaim: { apiVersion: 'karpenter.sh/v1', bucket: 'nodeClaims', hasSpec: true },
  Node: { apiVersion: 'v1', bucket: 'nodes', hasSpec: true },
  Pod: { apiVersion: 'v1', bucket: 'pods', hasSpec: true },
  PodDisruptionBudget: { apiVersion: 'policy/v1', bucket: 'pdbs', hasSpec: true },
  ConfigMap: { apiVersion: 'v1', bucket: 'configMaps', hasSpec: false },
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Names in messages are cut at Kubernetes' longest (253): a 100 KB name must not fill the screen. */
const short = (s: string): string => (s.length > 253 ? `${s.slice(0, 253)}…` : s);

export function emptySnapshot(): Snapshot {
  return { nodePools: [], nodeClaims: [], nodes: [], pods: [], pdbs: [], configMaps: [], ignored: 0 };
}

class Loader {
  readonly snapshot = emptySnapshot();
  readonly errors: LoadError[] = [];
  readonly warnings: LoadError[] = [];
  private item = 0;
  /** kind/namespace/name → where the object sits in its bucket, to find a second copy. */
  private readonly seen = new Map<string, { index: number; item: number }>();

  constructor(private readonly fileName: string) {}

  /** Adds one top-level value: an object, a List, or an array of either. */
  add(value: unknown, defaults?: { kind: string; apiVersion: string }): void {
    if (Array.isArray(value)) {
      for (const v of value) this.add(v, defaults);
      return;
    }
    if (!isObject(value)) {
      this.item++;
      const message = `expected a Kubernetes object, found ${describe(value)}`;
      this.errors.push({ location: `${this.fileName}: item ${this.item}`, message });
      return;
    }
    const kind = typeof value.kind === 'string' ? value.kind : defaults?.kind;
    const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : defaults?.apiVersion;
    if (kind !== undefined && kind.endsWith('List') && Array.isArray(value.items)) {
      // `kind: List` from kubectl, or a typed list (`PodList`) whose items may omit kind/apiVersion
      const itemKind = kind === 'List' ? undefined : kind.slice(0, -'List'.length);
      this.add(value.items, itemKind && apiVersion ? { kind: itemKind, apiVersion } : undefined);
      return;
    }
    this.item++; // items are numbered as a reader counts them: objects, not the Lists around them
    this.addObject(value, kind, apiVersion);
  }

  private addObject(value: Record<string, unknown>, kind: string | undefined, apiVersion: string | undefined): void {
    const meta = isObject(value.metadata) ? value.metadata : undefined;
    const name = typeof meta?.name === 'string' && meta.name !== '' ? meta.name : undefined;
    const ns = typeof meta?.namespace === 'string' && meta.namespace !== '' ? meta.namespace : undefined;
    const shownName = name ? short(name) : `<unnamed item ${this.item}>`;
    const id = `${short(kind ?? 'object')}/${ns ? short(ns) + '/' : ''}${shownName}`;
    const where = `${this.fileName}: ${id}`;
    const fail = (message: string): void => void this.errors.push({ location: where, message });
    if (kind === undefined) return fail('kind: is required');
    const known = KINDS[kind];
    if (known === undefined) {
      this.snapshot.ignored++;
      return;
    }
    if (apiVersion !== known.apiVersion) {
      const hint =
        kind.startsWith('Node') && apiVersion?.startsWith('karpenter.sh/')
          ? '; upgrade to the Karpenter v1 APIs (v1.0 or later)'
          : '';
      return fail(
        `apiVersion: \`${apiVersion ?? ''}\` is not supported for ${kind}, expected \`${known.apiVersion}\`${hint}`,
      );
    }
    if (meta === undefined || name === undefined) return fail('metadata.name: is required');
    if (known.hasSpec && (value.spec === undefined || value.spec === null)) value.spec = {};
    const problem = shapeProblem(value, { fields: { 'metadata!': METADATA, ...KIND_SHAPES[kind] } }, '');
    if (problem) return fail(problem);
    if (kind === 'PodDisruptionBudget') {
      const selector = (value.spec as PodDisruptionBudget['spec']).selector;
      const selectorProblem = selector ? labelSelectorProblem(selector) : undefined;
      if (selectorProblem) return fail(`spec.selector: ${selectorProblem}`);
    }
    value.kind = kind;
    value.apiVersion = apiVersion;
    const bucket = this.snapshot[known.bucket] as KubeObject[];
    const key = `${kind}/${ns ?? ''}/${name}`;
    const earlier = this.seen.get(key);
    if (earlier) {
      // The later copy wins, as a later document does under `kubectl apply -f`: a file made by
      // appending a fresh dump to an old one holds the newer object last. Counted once.
      const message = `listed again (items ${earlier.item} and ${this.item}); the later copy is used`;
      this.warnings.push({ location: where, message });
      bucket[earlier.index] = value as unknown as KubeObject;
      earlier.item = this.item;
      return;
    }
    this.seen.set(key, { index: bucket.length, item: this.item });
    bucket.push(value as unknown as KubeObject);
  }
}

/**
 * Parses and sorts a snapshot. On a syntax error there is no snapshot (a partial cluster would
 * mislead every decision); otherwise `snapshot` holds every valid object and `errors` the rest.
 */
export function loadSnapshot(text: string, fileName: string): LoadResult {
  const parsed = parseSnapshotText(text);
  const errors: LoadError[] = parsed.problems.map((p) => ({
    location: `${fileName}:${p.line}:${p.col}`,
    message: p.message,
  }));
  if (errors.length > 0) return { errors, warnings: [] };
  const loader = new Loader(fileName);
  for (const doc of parsed.documents) loader.add(doc);
  return { snapshot: loader.snapshot, errors: loader.errors, warnings: loader.warnings };
}
