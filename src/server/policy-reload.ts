// SPDX-License-Identifier: Apache-2.0
// Hot reload of policies stored in ConfigMaps: on every ConfigMap change the controller's
// policies are rebuilt from the policy files plus the labelled ConfigMaps; a set with errors
// is refused and the last good one stays. The editor only needs the `PolicySources` contract,
// so the fuller ConfigMap loader (issue 4) can replace this one behind it.
import type { PolicySpec } from '../../rules/model.js';
import type { ClusterClient } from '../cluster/client.js';
import type { ConfigMap } from '../cluster/types.js';
import type { Logger } from '../observe/logger.js';
import { loadPolicies, policySourcesFromConfigMaps, type PolicySource } from '../policy/load.js';

/** What the editor asks of whatever loads the controller's policies. */
export interface PolicySources {
  /** Policies from files given on the command line (not editable in the browser). */
  readonly files: readonly PolicySource[];
  /** The sources the controller runs on now: the last set that checked without errors. */
  applied(): readonly PolicySource[];
}

/** Where reloaded policies go: the Runtime has this shape. */
export interface PolicyTarget {
  policies: readonly PolicySpec[];
}

export interface PolicyReloadOptions {
  client: ClusterClient;
  files: readonly PolicySource[];
  target: PolicyTarget;
  now: () => number;
  logger?: Logger;
}

export class ConfigMapPolicyReload implements PolicySources {
  readonly files: readonly PolicySource[];
  private good: readonly PolicySource[];
  private pending: Promise<void> | undefined;
  private again = false;
  private readonly watch: { stop(): void };

  constructor(private readonly o: PolicyReloadOptions, initial: readonly PolicySource[]) {
    this.files = o.files;
    this.good = initial;
    this.watch = o.client.watch('ConfigMap', () => this.schedule());
  }

  applied(): readonly PolicySource[] {
    return this.good;
  }

  /** Resolves once every change seen so far has been considered (tests wait on it). */
  async settled(): Promise<void> {
    while (this.pending) await this.pending;
  }

  stop(): void {
    this.watch.stop();
  }

  private schedule(): void {
    if (this.pending) {
      this.again = true;
      return;
    }
    this.pending = (async () => {
      do {
        this.again = false;
        await this.reload();
      } while (this.again);
    })().finally(() => (this.pending = undefined));
  }

  private async reload(): Promise<void> {
    const cms = await this.o.client.list<ConfigMap>('ConfigMap');
    const sources = [...this.files, ...policySourcesFromConfigMaps(cms)];
    if (sameSources(sources, this.good)) return;
    const loaded = loadPolicies(sources, this.o.now());
    if (!loaded.ok) {
      const problems = loaded.files.flatMap((f) => f.diagnostics.filter((d) => d.severity === 'error').map((d) => `${f.fileName}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${d.code} ${d.message}`));
      this.o.logger?.warn('policy change refused; keeping the last good policies', { problems });
      return;
    }
    this.good = sources;
    this.o.target.policies = loaded.policies;
    this.o.logger?.info('policies reloaded', { policies: loaded.policies.map((p) => p.name) });
  }
}

const sameSources = (a: readonly PolicySource[], b: readonly PolicySource[]) =>
  a.length === b.length && a.every((s, i) => s.fileName === b[i].fileName && s.text === b[i].text);
