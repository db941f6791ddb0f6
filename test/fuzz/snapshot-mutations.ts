// SPDX-License-Identifier: Apache-2.0
// Mutated cluster snapshots for fuzzing `kpol eval --cluster`: a small valid snapshot, the
// mutations (delete a field, change a type, nest deeply, duplicate, swap kinds, huge strings,
// prototype-named keys, truncated or corrupted text, alias bombs) as fast-check arbitraries,
// and the judge: exit 0 or 1, never "internal error", every message located.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { main } from '../../src/edge/cli/main.js';
import type { KubeObject } from '../../src/core/cluster/types.js';
import { makeNodePool, makePdb, toList } from '../support/cluster-builder.js';

export const AT = '2026-11-28T03:00:00Z'; // a Saturday inside weekend-ml's pod window: every method is open

const EXAMPLES = new URL('../../rules/examples/', import.meta.url);
const POLICY = readFileSync(new URL('weekend-ml.kpol', EXAMPLES), 'utf8');
const EXAMPLE_CLUSTER = parse(readFileSync(new URL('clusters/weekend-ml.yaml', EXAMPLES), 'utf8')) as {
  items: KubeObject[];
};

/**
 * The unmutated snapshot: rules/examples' weekend-ml cluster (drifted, do-not-disrupt and
 * disruption-schedule nodes, so evaluation reaches deep into every object), a second NodePool
 * governed by a policy ConfigMap, a PDB and a ReplicaSet. Small: a run costs milliseconds.
 */
export function baseSnapshot(): { apiVersion: string; kind: string; items: KubeObject[] } {
  const objects: KubeObject[] = structuredClone(EXAMPLE_CLUSTER.items);
  objects.push(makeNodePool('gpu'));
  objects.push(
    makePdb('web', { matchLabels: { app: 'batch' } }, { namespace: 'batch', disruptionsAllowed: 1, maxUnavailable: 1 }),
  );
  objects.push({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'policies', namespace: 'kpol-system', labels: { 'kpol.dev/policy': 'true' } },
    data: {
      'extra.kpol':
        'policy q for nodepool gpu {\n  budget 2\n  window w blocks Drifted on nodes where ' +
        'constructor exists during "@daily" for 1h\n}\n',
    },
  });
  objects.push({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c' }] } },
    },
  });
  return toList(objects);
}

const KINDS = [
  'Node',
  'Pod',
  'NodeClaim',
  'NodePool',
  'PodDisruptionBudget',
  'ConfigMap',
  'ReplicaSet',
  'List',
  'PodList',
  'Deployment',
  '',
];
const API_VERSIONS = ['v1', 'karpenter.sh/v1', 'karpenter.sh/v1beta1', 'policy/v1', 'apps/v1', ''];
const PROTO_KEYS = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'length'];

/** Values a field is replaced with: every JSON type, edge numbers, wrong-but-plausible strings, big ones. */
const replacement: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    0,
    -1,
    1.5,
    1e308,
    -1e308,
    2 ** 53 + 2,
    true,
    false,
    '',
    'x',
    'Ready',
    '500m',
    '-1',
    '1e400',
    'NaN',
    '2026-13-45T00:00:00Z',
    '+275760-09-13T00:00:01Z',
    '100%',
    '0%',
    'Never',
    '9999999999h',
    'In',
    {},
    [],
    [null],
    [[]],
    { a: 1 },
    { __proto__: null, constructor: 'x' },
  ),
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.double(),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => 'x'.repeat(n)),
);

/**
 * Every key in the unmutated snapshot. Most mutations aim at one of these (a name first,
 * uniformly, then one of its places), so `ownerReferences`, in three pods, is hit as often as
 * `metadata`; uniform over all places, such fields were almost never reached. Taken from the
 * snapshot, not from object-shapes.ts, so a field the shapes forget is aimed at all the same.
 */
export const FIELD_NAMES: readonly string[] = (() => {
  const names = new Set<string>();
  for (const s of slots(baseSnapshot())) if (typeof s.key === 'string') names.add(s.key);
  return [...names].sort();
})();

export type Mutation =
  | { op: 'delete'; at: number; field: number }
  | { op: 'replace'; at: number; field: number; value: unknown }
  | { op: 'nest'; at: number; depth: number; object: boolean }
  | { op: 'duplicate'; at: number }
  | { op: 'kind'; at: number; kind: string }
  | { op: 'apiVersion'; at: number; apiVersion: string }
  | { op: 'protoKey'; at: number; key: string }
  | { op: 'many'; at: number; count: number };

export type TextMutation =
  | { op: 'none' }
  | { op: 'truncate'; at: number }
  | { op: 'insert'; at: number; text: string }
  | { op: 'aliasBomb'; levels: number }
  | { op: 'deepText'; depth: number; open: string };

export interface SnapshotCase {
  mutations: Mutation[];
  format: 'json' | 'yaml' | 'json-array';
  text: TextMutation;
}

const at = fc.nat({ max: 1_000_000 });
// field: 0 aims anywhere; otherwise at FIELD_NAMES[field - 1] (10 in 11 cases)
const field = fc.oneof(
  { weight: 1, arbitrary: fc.constant(0) },
  { weight: 10, arbitrary: fc.integer({ min: 1, max: 1_000 }) },
);
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), at, field }) },
  { weight: 6, arbitrary: fc.record({ op: fc.constant('replace' as const), at, field, value: replacement }) },
  fc.record({
    op: fc.constant('nest' as const),
    at,
    depth: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 150, max: 400 })),
    object: fc.boolean(),
  }),
  fc.record({ op: fc.constant('duplicate' as const), at }),
  fc.record({ op: fc.constant('kind' as const), at, kind: fc.constantFrom(...KINDS) }),
  fc.record({ op: fc.constant('apiVersion' as const), at, apiVersion: fc.constantFrom(...API_VERSIONS) }),
  fc.record({ op: fc.constant('protoKey' as const), at, key: fc.constantFrom(...PROTO_KEYS) }),
  fc.record({ op: fc.constant('many' as const), at, count: fc.integer({ min: 20, max: 300 }) }),
);
const textMutation: fc.Arbitrary<TextMutation> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ op: 'none' as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('truncate' as const), at }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('insert' as const),
      at,
      text: fc.constantFrom(
        '[',
        '{',
        ']',
        '}',
        '"',
        ':',
        ',',
        '\n',
        '- ',
        '&a ',
        '*a',
        '!!binary ',
        '\t',
        '\\',
        '\u0000',
        '---\n',
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('aliasBomb' as const), levels: fc.integer({ min: 2, max: 12 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('deepText' as const),
      depth: fc.integer({ min: 150, max: 200_000 }),
      open: fc.constantFrom('[', '{"a":', '- '),
    }),
  },
);
export const snapshotCase: fc.Arbitrary<SnapshotCase> = fc.record({
  mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
  format: fc.constantFrom('json' as const, 'yaml' as const, 'json-array' as const),
  text: textMutation,
});

type Container = Record<string, unknown> | unknown[];
interface Slot {
  parent: Container;
  key: string | number;
}

/** Every (container, key) in the tree, breadth first, by a loop. */
function slots(root: unknown): Slot[] {
  const out: Slot[] = [];
  const queue: unknown[] = [root];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i];
    const entries: [string | number, unknown][] = Array.isArray(v)
      ? v.map((c, k) => [k, c])
      : v && typeof v === 'object'
        ? Object.entries(v)
        : [];
    for (const [k, c] of entries) {
      out.push({ parent: v as Record<string, unknown>, key: k });
      queue.push(c);
    }
  }
  return out;
}

const get = (s: Slot): unknown => (s.parent as Record<string | number, unknown>)[s.key];
const set = (s: Slot, v: unknown): void => void ((s.parent as Record<string | number, unknown>)[s.key] = v);

function apply(root: { items: unknown[] }, m: Mutation): void {
  let all = slots(root);
  if ((m.op === 'delete' || m.op === 'replace') && m.field > 0) {
    const name = FIELD_NAMES[(m.field - 1) % FIELD_NAMES.length];
    const named = all.filter((s) => s.key === name);
    if (named.length) all = named;
  }
  const s = all[m.at % all.length];
  const items: unknown[] = Array.isArray(root.items) ? root.items : []; // an earlier mutation may have replaced it
  const item = items.length ? (items[m.at % items.length] as Record<string, unknown> | null) : undefined;
  switch (m.op) {
    case 'delete':
      if (Array.isArray(s.parent)) s.parent.splice(s.key as number, 1);
      else delete s.parent[s.key as string];
      return;
    case 'replace':
      return set(s, m.value);
    case 'nest': {
      let v = get(s);
      for (let i = 0; i < m.depth; i++) v = m.object ? { a: v } : [v];
      return set(s, v);
    }
    case 'duplicate':
      if (item !== undefined) items.push(structuredClone(item));
      return;
    case 'kind':
      if (item && typeof item === 'object') item.kind = m.kind;
      return;
    case 'apiVersion':
      if (item && typeof item === 'object') item.apiVersion = m.apiVersion;
      return;
    case 'protoKey': {
      const v = get(s);
      if (v && typeof v === 'object' && !Array.isArray(v))
        Object.defineProperty(v, m.key, { value: 'x', enumerable: true, writable: true, configurable: true });
      return;
    }
    case 'many':
      if (item !== undefined) for (let i = 0; i < m.count; i++) items.push(structuredClone(item));
      return;
  }
}

function applyText(text: string, m: TextMutation): string {
  switch (m.op) {
    case 'none':
      return text;
    case 'truncate':
      return text.slice(0, m.at % (text.length + 1));
    case 'insert': {
      const i = m.at % (text.length + 1);
      return text.slice(0, i) + m.text + text.slice(i);
    }
    case 'aliasBomb': {
      const names = Array.from({ length: m.levels }, (_, i) => `l${i}`);
      const lines = [`${names[0]}: &${names[0]} [lol, lol, lol, lol, lol, lol, lol, lol, lol]`];
      for (let i = 1; i < m.levels; i++)
        lines.push(
          `${names[i]}: &${names[i]} [${Array(9)
            .fill(`*${names[i - 1]}`)
            .join(', ')}]`,
        );
      return `${lines.join('\n')}\n---\n${text}`;
    }
    case 'deepText':
      // YAML block nesting is cut at 3,000: the YAML parser needs ~2 s to overflow on 200,000 and reports the same
      return m.open === '- ' ? `${'- '.repeat(Math.min(m.depth, 3_000))}x\n` : m.open.repeat(m.depth);
  }
}

/** A case for a failure report: long strings cut, so a 200 KB value does not flood the log. */
export function describeCase(c: SnapshotCase): string {
  return JSON.stringify(c, (_, v: unknown) =>
    typeof v === 'string' && v.length > 60 ? `${v.slice(0, 20)}…(${v.length} chars)` : v,
  );
}

/** The snapshot text of a case (pure: same case, same text). */
export function caseText(c: SnapshotCase): { text: string; ext: string } {
  const root = baseSnapshot() as unknown as { items: unknown[] };
  for (const m of c.mutations) apply(root, m);
  const value = c.format === 'json-array' && Array.isArray(root.items) ? root.items : root;
  let text: string;
  try {
    text = c.format === 'yaml' ? stringify(value, { aliasDuplicateObjects: false }) : JSON.stringify(value);
  } catch {
    text = JSON.stringify(value); // yaml's writer recurses; very deep values go out as JSON
  }
  return { text: applyText(text, c.text), ext: c.format === 'yaml' ? 'yaml' : 'json' };
}

export interface Verdict {
  code: number;
  stderr: string;
  /** Why the run is a failure, or undefined when it is fine. */
  problem?: string;
}

// CliError prints its first line after `kpol eval: `; the lines after it stand alone.
const LOCATED = [
  /^(kpol eval: )?[^\n]*?:\d+:\d+: \S/, // text: file:line:col (and policy diagnostics from a ConfigMap)
  /^(kpol eval: )?[^\n]*?: (item \d+|[^/\s]*\/[^\n]*?): [\w.[\]"-]*:? /, // object: file: Kind/ns/name: field: problem
  /^warning: [^\n]*?: [^/\s]*\/[^\n]*?: listed again/,
  /^(kpol eval: |warning: )?… and \d+ more (errors|warnings)$/,
  /^\s/, // a diagnostic's source excerpt and caret
  /^kpol eval: the policies have errors; nothing was evaluated$/,
  /^$/,
];

/** Judges one run: exit 0 or 1, no internal error or stack, every stderr line located. */
export function judge(code: number, stderr: string): Verdict {
  const v: Verdict = { code, stderr };
  if (/internal error/.test(stderr)) v.problem = 'internal error';
  else if (/\n\s+at \S+ \(|Maximum call stack/.test(stderr)) v.problem = 'stack trace in output';
  else if (code !== 0 && code !== 1) v.problem = `exit ${code}`;
  else {
    const bad = stderr.split('\n').find((line) => !LOCATED.some((re) => re.test(line)));
    if (bad !== undefined) v.problem = `unlocated message: ${bad.slice(0, 200)}`;
  }
  return v;
}

/** Runs `kpol eval --cluster` in-process, as the CLI does, on files under one temporary directory. */
export class SnapshotRunner {
  private readonly dir = mkdtempSync(join(tmpdir(), 'kpol-fuzz-'));
  private readonly policy = join(this.dir, 'p.kpol');
  private n = 0;

  constructor() {
    writeFileSync(this.policy, POLICY);
  }

  async run(text: string, ext: string): Promise<Verdict> {
    const path = join(this.dir, `s${this.n++ % 4}.${ext}`);
    writeFileSync(path, text);
    let stderr = '';
    // A process warning (yaml emits some) reaches the user's terminal outside any located
    // message, so it is a failure too; warnings are emitted on the next tick, hence the wait.
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.message);
    process.on('warning', onWarning);
    let code: number;
    try {
      code = await main(['eval', '--policy', this.policy, '--cluster', path, '--at', AT, '--output', 'json'], {
        out: () => {},
        err: (t) => void (stderr += t.endsWith('\n') ? t : `${t}\n`),
        isTTY: false,
      });
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    const verdict = judge(code, stderr);
    if (!verdict.problem && warnings.length) verdict.problem = `process warning: ${warnings[0].slice(0, 200)}`;
    return verdict;
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
