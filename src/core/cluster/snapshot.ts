// SPDX-License-Identifier: Apache-2.0
// Loading a cluster snapshot: the text of `kubectl get … -o yaml|json` (a `List`, several
// YAML documents, a JSON array or a single object) → the objects kpol reads, sorted by kind.
// Takes text, not a path: the CLI reads files, so this module stays portable.
import { labelSelectorProblem } from './labels.js';
import { parseSnapshotText } from './snapshot-parse.js';
import type { ConfigMap, KubeObject, Node, NodeClaim, NodePool, Pod, PodDisruptionBudget } from './types.js';

/** A problem with the snapshot: `file:line:col` for syntax errors, `file: Kind namespace/name` for objects. */
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

export function emptySnapshot(): Snapshot {
  return { nodePools: [], nodeClaims: [], nodes: [], pods: [], pdbs: [], configMaps: [], ignored: 0 };
}

class Loader {
  readonly snapshot = emptySnapshot();
  readonly errors: LoadError[] = [];
  private item = 0;

  constructor(private readonly fileName: string) {}

  /** Adds one top-level value: an object, a List, or an array of either. */
  add(value: unknown, defaults?: { kind: string; apiVersion: string }): void {
    if (Array.isArray(value)) {
      for (const v of value) this.add(v, defaults);
      return;
    }
    this.item++;
    if (!isObject(value)) {
      this.errors.push({ location: `${this.fileName}: item ${this.item}`, message: 'expected a Kubernetes object' });
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
    this.addObject(value, kind, apiVersion);
  }

  // eslint-disable-next-line complexity -- one case per kind the snapshot may hold
  private addObject(value: Record<string, unknown>, kind: string | undefined, apiVersion: string | undefined): void {
    const meta = isObject(value.metadata) ? value.metadata : undefined;
    const name = typeof meta?.name === 'string' && meta.name !== '' ? meta.name : undefined;
    const ns = typeof meta?.namespace === 'string' ? meta.namespace : undefined;
    const where = `${this.fileName}: ${kind ?? 'object'} ${ns ? ns + '/' : ''}${name ?? `<unnamed item ${this.item}>`}`;
    const fail = (message: string): void => void this.errors.push({ location: where, message });
    if (kind === undefined) return fail('object has no `kind`');
    const known = KINDS[kind];
    if (known === undefined) {
      this.snapshot.ignored++;
      return;
    }
    if (apiVersion !== known.apiVersion) {
      const hint = kind.startsWith('Node') && apiVersion?.startsWith('karpenter.sh/') ? '; upgrade to the Karpenter v1 APIs (v1.0 or later)' : '';
      return fail(`apiVersion \`${apiVersion ?? ''}\` is not supported for ${kind}, expected \`${known.apiVersion}\`${hint}`);
    }
    if (meta === undefined || name === undefined) return fail('object has no `metadata.name`');
    for (const field of ['labels', 'annotations'] as const) {
      const map = meta[field];
      if (map === undefined || map === null) continue;
      if (!isObject(map)) return fail(`\`metadata.${field}\` must be a map of strings`);
      for (const [k, v] of Object.entries(map)) {
        if (typeof v !== 'string') return fail(`\`metadata.${field}["${k}"]\` must be a string, found ${v === null ? 'null' : typeof v}`);
      }
    }
    if (known.hasSpec) {
      if (value.spec === undefined || value.spec === null) value.spec = {};
      else if (!isObject(value.spec)) return fail('`spec` must be an object');
    }
    if (kind === 'PodDisruptionBudget') {
      const selector = (value.spec as PodDisruptionBudget['spec']).selector;
      const problem = selector ? labelSelectorProblem(selector) : undefined;
      if (problem) return fail(`invalid \`spec.selector\`: ${problem}`);
    }
    value.kind = kind;
    value.apiVersion = apiVersion;
    (this.snapshot[known.bucket] as KubeObject[]).push(value as unknown as KubeObject);
  }
}

/**
 * Parses and sorts a snapshot. On a syntax error there is no snapshot (a partial cluster would
 * mislead every decision); otherwise `snapshot` holds every valid object and `errors` the rest.
 */
export function loadSnapshot(text: string, fileName: string): LoadResult {
  const parsed = parseSnapshotText(text);
  const errors: LoadError[] = parsed.problems.map((p) => ({ location: `${fileName}:${p.line}:${p.col}`, message: p.message }));
  if (errors.length > 0) return { errors };
  const loader = new Loader(fileName);
  for (const doc of parsed.documents) loader.add(doc);
  return { snapshot: loader.snapshot, errors: [...errors, ...loader.errors] };
}
