// SPDX-License-Identifier: Apache-2.0
// The editor's JSON API under /api/editor/. Every route needs the access token; every write
// also needs a same-origin (or absent) Origin. The API never applies a policy itself: it
// stores ConfigMaps in the controller's namespace, and the controller's loader
// (ConfigMapPolicies, seen here as PolicySources) picks them up — a policy with errors is
// refused here and would be refused there too.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClusterClient, Kind } from '../../core/cluster/client.js';
import type { KubeObject, NodePool } from '../../core/cluster/types.js';
import { governs } from '../../core/eval/resolve-policies.js';
import type { PolicySources } from '../../core/policy/configmap-policies.js';
import type { LocatedError } from '../../core/policy/last-good.js';
import { configMapFileName, loadPolicies, type PolicySource } from '../../core/policy/load.js';
import { unevaluableFile, type EvaluateAt } from '../../core/policy/trial-eval.js';
import { hasToken, originAllowed, readJson, reply, RequestError } from './http-reply.js';
import { badPolicyAddress, PolicyConfigMaps, type SaveRequest, type StoredPolicy } from './policy-configmaps.js';
import { simulateDay, type DaySimulation } from './simulate-day.js';

export interface EditorApiOptions {
  client: ClusterClient;
  token: string;
  sources: PolicySources;
  now: () => number;
  /**
   * Evaluates policies over the cluster as the controller does: a save whose policy checks but
   * cannot be evaluated is refused (422) as one with errors is (src/core/policy/trial-eval.ts).
   */
  evaluateAt?: EvaluateAt;
}

/** The kinds the browser needs for the preview, completion and the simulation. */
const SNAPSHOT_KINDS: Kind[] = [
  'NodePool',
  'NodeClaim',
  'Node',
  'Pod',
  'PodDisruptionBudget',
  'ConfigMap',
  'ReplicaSet',
];

/** Where a ConfigMap policy key appears as a PolicySource: the loader's own name for it. */
const fileNameOf = (p: Pick<StoredPolicy, 'namespace' | 'name' | 'key'>) => configMapFileName({ metadata: p }, p.key);

/** An edit as the browser sends it: the same shape a save takes. */
type EditedPolicy = SaveRequest;

function editedPolicy(body: unknown, namespace: string): EditedPolicy {
  const b = body as Partial<Record<keyof EditedPolicy, unknown>> | null;
  if (
    !b ||
    typeof b !== 'object' ||
    typeof b.text !== 'string' ||
    typeof b.namespace !== 'string' ||
    typeof b.name !== 'string' ||
    typeof b.key !== 'string'
  ) {
    throw new RequestError(400, 'the body needs string fields `namespace`, `name`, `key` and `text`');
  }
  if (b.resourceVersion !== undefined && typeof b.resourceVersion !== 'string')
    throw new RequestError(400, '`resourceVersion` must be a string');
  if (b.baseText !== undefined && typeof b.baseText !== 'string')
    throw new RequestError(400, '`baseText` must be a string');
  const e: EditedPolicy = {
    namespace: b.namespace,
    name: b.name,
    key: b.key,
    text: b.text,
    ...(b.resourceVersion !== undefined && { resourceVersion: b.resourceVersion as string }),
    ...(b.baseText !== undefined && { baseText: b.baseText as string }),
  };
  const bad = badPolicyAddress(e);
  if (bad) throw new RequestError(400, bad);
  // Saved anywhere else, the policy would never be loaded: say so rather than store it.
  if (e.namespace !== namespace)
    throw new RequestError(
      400,
      `namespace \`${e.namespace}\` is not the controller's: it loads policy ConfigMaps from \`${namespace}\` only`,
    );
  return e;
}

export class EditorApi {
  private readonly store: PolicyConfigMaps;

  constructor(private readonly o: EditorApiOptions) {
    this.store = new PolicyConfigMaps(o.client, o.sources.namespace);
  }

  /** The sources the controller would run with the edited text in place of its stored version. */
  withEdit(e: EditedPolicy): PolicySource[] {
    const fileName = fileNameOf(e);
    const others = this.o.sources.applied().filter((s) => s.fileName !== fileName);
    return [...others, { fileName, text: e.text }];
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL, origins: ReadonlySet<string>): Promise<void> {
    try {
      if (!hasToken(req, this.o.token))
        return reply(
          res,
          401,
          { error: 'unauthorised: this API needs the access token kpol printed at start' },
          { 'WWW-Authenticate': 'Bearer realm="kpol"' },
        );
      const route = `${req.method} ${url.pathname}`;
      if (req.method !== 'GET' && !originAllowed(req, origins))
        return reply(res, 403, { error: `forbidden: requests from origin \`${req.headers.origin}\` may not write` });
      switch (route) {
        case 'GET /api/editor/cluster':
          return reply(res, 200, await this.cluster());
        case 'GET /api/editor/policies':
          return reply(res, 200, await this.policies());
        case 'PUT /api/editor/policies':
          return await this.save(req, res);
        case 'POST /api/editor/simulate':
          return await this.simulate(req, res);
        default:
          return reply(res, 404, { error: `no route ${route}` });
      }
    } catch (e) {
      // A body refused part-way (413) is still arriving: close the connection rather than let a
      // client reuse it with the rest of that body in front of its next request.
      if (e instanceof RequestError)
        return reply(res, e.status, { error: e.message }, e.status === 413 ? { Connection: 'close' } : {});
      throw e;
    }
  }

  private async cluster(): Promise<{ now: number; objects: KubeObject[]; files: readonly PolicySource[] }> {
    const lists = await Promise.all(SNAPSHOT_KINDS.map((k) => this.o.client.list(k)));
    return { now: this.o.now(), objects: lists.flat(), files: this.o.sources.files };
  }

  /**
   * The stored policies, and which policy governs each NodePool now (null: its own
   * spec.disruption), so that a new policy can start on a NodePool no other policy governs.
   */
  private async policies(): Promise<{
    policies: (StoredPolicy & { applied: boolean })[];
    nodePools: Record<string, string | null>;
  }> {
    const sources = this.o.sources.applied();
    const applied = new Map(sources.map((s) => [s.fileName, s.text]));
    const [list, pools] = await Promise.all([this.store.list(), this.o.client.list<NodePool>('NodePool')]);
    const enforced = loadPolicies(sources, this.o.now()).policies;
    const nodePools = Object.fromEntries(
      pools.map((pool) => [pool.metadata.name, enforced.find((p) => governs(p, pool))?.name ?? null]),
    );
    return { policies: list.map((p) => ({ ...p, applied: applied.get(fileNameOf(p)) === p.text })), nodePools };
  }

  private async save(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const e = editedPolicy(await readJson(req), this.o.sources.namespace);
    const fileName = fileNameOf(e);
    const against = this.o.sources.applied().filter((s) => s.fileName !== fileName);
    const unevaluable = await this.unevaluable(e);
    if (unevaluable) {
      return reply(res, 422, {
        error: 'the policy cannot be evaluated over the cluster, so it was not saved and is not applied',
        diagnostics: [{ file: unevaluable.fileName, ...unevaluable.diagnostic }],
      });
    }
    const r = await this.store.save(e, against, this.o.now());
    if (r.ok) return reply(res, 200, { saved: r.saved });
    if (!r.conflict) {
      const diagnostics = r.refused.files.flatMap((f) =>
        f.diagnostics.filter((d) => d.severity === 'error').map((d) => ({ file: f.fileName, ...d })),
      );
      return reply(res, 422, {
        error: 'the policy has errors, so it was not saved and is not applied; keep it as a draft until it checks',
        diagnostics,
      });
    }
    const who = r.current ? `it is now at version ${r.current.resourceVersion}` : 'it no longer exists';
    return reply(res, 409, {
      error:
        `conflict: ConfigMap ${e.namespace}/${e.name} changed since you loaded it (${who}); ` +
        `compare and save again`,
      current: r.current ?? null,
    });
  }

  /** The edited file's trial error, if its policy is the one that cannot be evaluated (others are not its fault). */
  private async unevaluable(e: EditedPolicy): Promise<LocatedError | undefined> {
    if (!this.o.evaluateAt) return undefined;
    const sources = this.withEdit(e);
    const loaded = loadPolicies(sources, this.o.now());
    if (!loaded.ok) return undefined; // the save reports the check errors itself
    const located = await unevaluableFile(loaded.policies, sources, this.o.evaluateAt, this.o.now());
    return located?.fileName === fileNameOf(e) ? located : undefined;
  }

  private async simulate(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const e = editedPolicy(await readJson(req), this.o.sources.namespace);
    const loaded = loadPolicies(this.withEdit(e), this.o.now());
    if (!loaded.ok) return reply(res, 422, { error: 'the policy has errors; fix them to simulate' });
    const { objects } = await this.cluster();
    const result: DaySimulation = await simulateDay(objects, loaded.policies, this.o.now());
    return reply(res, 200, result);
  }
}
