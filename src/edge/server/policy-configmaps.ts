// SPDX-License-Identifier: Apache-2.0
// Policies stored as ConfigMaps (label `kpol.dev/policy`, one `*.kpol` key each), read and
// written through the ClusterClient with optimistic concurrency: a save names the
// resourceVersion it was based on and fails with a conflict when the ConfigMap moved on —
// unless it names the text it was based on too and that key still holds it (the controller's
// `kpol.dev/status` annotation moves the version without touching the policy). Saving is
// `kpol push`'s validate-then-write, for one key.
import type { ClusterClient } from '../../core/cluster/client.js';
import { LABEL_POLICY_CONFIGMAP, type ConfigMap } from '../../core/cluster/types.js';
import { ANNOTATION_POLICY_STATUS } from '../../core/policy/configmap-status.js';
import { configMapFileName, type LoadedPolicies, type PolicySource } from '../../core/policy/load.js';
import { pushPolicies } from '../../core/policy/push.js';
import { ownValue } from '../../core/cluster/own-keys.js';

export interface StoredPolicy {
  namespace: string;
  name: string;
  key: string; // the data key, ending in .kpol
  text: string;
  resourceVersion: string;
  /** The controller's `kpol.dev/status` for the ConfigMap: `valid`, or why its current version is refused. */
  status?: string;
}

export interface SaveRequest {
  namespace: string;
  name: string;
  key: string;
  text: string;
  /** The version the edit started from; absent to create a new ConfigMap. */
  resourceVersion?: string;
  /** The key's text at that version: a newer version with the same text is no conflict. */
  baseText?: string;
}

export type SaveResult =
  | { ok: true; saved: StoredPolicy }
  | { ok: false; conflict: true; current: StoredPolicy | undefined }
  | { ok: false; conflict?: undefined; refused: LoadedPolicies };

const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const KEY = /^[-._a-zA-Z0-9]+\.kpol$/;

/** Why a ConfigMap name, namespace or key is unusable, or undefined. */
export function badPolicyAddress(r: Pick<SaveRequest, 'namespace' | 'name' | 'key'>): string | undefined {
  if (!NAME.test(r.namespace)) return `namespace \`${r.namespace}\` is not a valid Kubernetes name`;
  if (!NAME.test(r.name)) return `ConfigMap name \`${r.name}\` is not a valid Kubernetes name`;
  if (!KEY.test(r.key)) return `key \`${r.key}\` must be a ConfigMap key ending in .kpol`;
  return undefined;
}

const stored = (cm: ConfigMap, key: string): StoredPolicy => {
  const status = cm.metadata.annotations?.[ANNOTATION_POLICY_STATUS];
  return {
    namespace: cm.metadata.namespace ?? 'default',
    name: cm.metadata.name,
    key,
    text: ownValue(cm.data, key) ?? '',
    resourceVersion: cm.metadata.resourceVersion ?? '',
    ...(status !== undefined && { status }),
  };
};

export class PolicyConfigMaps {
  /** `namespace`: the controller's, the only one whose policy ConfigMaps it loads. */
  constructor(
    private readonly client: ClusterClient,
    private readonly namespace: string,
  ) {}

  /** Every `*.kpol` key of every labelled ConfigMap in the namespace, ordered by name, key. */
  async list(): Promise<StoredPolicy[]> {
    const cms = await this.client.list<ConfigMap>('ConfigMap', this.namespace);
    return cms
      .filter((cm) => cm.metadata.labels?.[LABEL_POLICY_CONFIGMAP] !== undefined)
      .flatMap((cm) =>
        Object.keys(cm.data ?? {})
          .filter((k) => k.endsWith('.kpol'))
          .map((k) => stored(cm, k)),
      )
      .sort(
        (a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name) || a.key.localeCompare(b.key),
      );
  }

  async get(namespace: string, name: string, key: string): Promise<StoredPolicy | undefined> {
    const cm = await this.client.get<ConfigMap>({ kind: 'ConfigMap', namespace, name });
    return cm && ownValue(cm.data, key) !== undefined ? stored(cm, key) : undefined;
  }

  /**
   * Checks the key's new text beside `against` (what the controller enforces, without this key)
   * and writes it with kpol push's validate-then-write (src/core/policy/push.ts).
   */
  async save(r: SaveRequest, against: readonly PolicySource[], nowMs: number): Promise<SaveResult> {
    const file = { key: r.key, fileName: configMapFileName({ metadata: r }, r.key), text: r.text };
    const base = {
      ...(r.resourceVersion !== undefined && { resourceVersion: r.resourceVersion }),
      ...(r.baseText !== undefined && { texts: { [r.key]: r.baseText } }),
    };
    const w = await pushPolicies(this.client, [file], r, { keepOtherKeys: true, base, against, nowMs });
    switch (w.kind) {
      case 'written':
        return { ok: true, saved: stored(w.configMap, r.key) };
      case 'refused':
        return { ok: false, refused: w.loaded };
      case 'conflict': {
        const has = w.current !== undefined && ownValue(w.current.data, r.key) !== undefined;
        return { ok: false, conflict: true, current: has ? stored(w.current!, r.key) : undefined };
      }
      default: {
        const never: never = w;
        throw new Error(`unknown push result ${JSON.stringify(never)}`);
      }
    }
  }
}
