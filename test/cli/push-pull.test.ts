// SPDX-License-Identifier: Apache-2.0
// `kpol push` / `kpol pull` against the in-memory API server: validation before any write,
// resourceVersion preconditions, one file per key, the exit-code contract.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/core/cluster/client.js';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { ConfigMap } from '../../src/core/cluster/types.js';
import { FakeClock } from '../../src/core/clock.js';
import { makePullCommand } from '../../src/edge/cli/commands/pull.js';
import { makePushCommand } from '../../src/edge/cli/commands/push.js';
import { runCli, runCommand } from './run-cli.js';

const NS = 'kpol-system';
const tmp = mkdtempSync(join(tmpdir(), 'kpol-push-'));
const file = (name: string, text: string) => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const GOOD = 'policy a for nodepool x {\n  budget 10%\n}\n';
const BAD = 'policy a for nodepool x {\n  budget 5 for Drifed\n}\n';

const run = runCommand;

function cluster(objects: ConfigMap[] = []) {
  const c = new MemoryCluster(new FakeClock(0), objects);
  const cm = (name: string) => c.get<ConfigMap>({ kind: 'ConfigMap', name, namespace: NS });
  return { c, cm, push: makePushCommand(async () => c), pull: makePullCommand(async () => c) };
}

const policyCm = (name: string, data: Record<string, string>): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: NS, labels: { 'kpol.dev/policy': 'true' } },
  data,
});

describe('kpol push', () => {
  it('creates the labelled ConfigMap with one key per file', async () => {
    const t = cluster();
    const r = await run(t.push, file('a.kpol', GOOD), file('b.kpol', 'policy b for nodepool y {\n  budget 1\n}\n'));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/created configmap\/kpol-system\/kpol-policies \(2 file\(s\), resourceVersion \d+\)/);
    const cm = await t.cm('kpol-policies');
    expect(cm?.metadata.labels).toEqual({ 'kpol.dev/policy': 'true' });
    expect(cm?.data).toEqual({ 'a.kpol': GOOD, 'b.kpol': 'policy b for nodepool y {\n  budget 1\n}\n' });
  });

  it('refuses a bad policy with file:line:col and exit 1, writing nothing', async () => {
    const t = cluster([policyCm('kpol-policies', { 'a.kpol': GOOD })]);
    const version = t.c.resourceVersion();
    const p = file('bad.kpol', BAD);
    const r = await run(t.push, p);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${p}:2:16: error KPOL2001`);
    expect(r.stderr).toContain('nothing was written');
    expect(t.c.resourceVersion()).toBe(version);
  });

  it('refuses a push that conflicts with another policy ConfigMap, naming where', async () => {
    const t = cluster([policyCm('team-b', { 'b.kpol': 'policy shared for nodepool y {\n  budget 1\n}\n' })]);
    const r = await run(t.push, file('shared.kpol', 'policy shared for nodepool x {\n  budget 1\n}\n'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error KPOL2\d{3}/);
    expect(await t.cm('kpol-policies')).toBeUndefined();
  });

  it('is not blocked by another ConfigMap that is broken anyway', async () => {
    const t = cluster([
      policyCm('team-b', { 'b.kpol': BAD.replace('policy a for nodepool x', 'policy b for nodepool y') }),
    ]);
    expect((await run(t.push, file('a.kpol', GOOD))).code).toBe(0);
  });

  it('replaces the .kpol keys, keeps other keys and labels', async () => {
    const existing = policyCm('kpol-policies', { 'old.kpol': GOOD, README: 'notes' });
    existing.metadata.labels!.team = 'platform';
    const t = cluster([existing]);
    expect((await run(t.push, file('a.kpol', GOOD))).code).toBe(0);
    const cm = await t.cm('kpol-policies');
    expect(cm?.data).toEqual({ README: 'notes', 'a.kpol': GOOD });
    expect(cm?.metadata.labels).toEqual({ 'kpol.dev/policy': 'true', team: 'platform' });
  });

  it('a concurrent change between read and write is a conflict (exit 1), and the other change survives', async () => {
    const t = cluster([policyCm('kpol-policies', { 'a.kpol': GOOD })]);
    // Someone else updates the ConfigMap after push has read it: the real server's 409 must reach the user.
    let raced = false;
    const racing = new Proxy(t.c, {
      get(target, prop, receiver) {
        if (prop === 'update' && !raced) {
          return async (obj: ConfigMap) => {
            raced = true;
            const cur = (await t.cm('kpol-policies'))!;
            await target.update({ ...cur, data: { 'a.kpol': GOOD.replace('10%', '20%') } });
            return target.update(obj);
          };
        }
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as ClusterClient;
    const r = await run(
      makePushCommand(async () => racing),
      file('a.kpol', GOOD.replace('10%', '30%')),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('configmap/kpol-system/kpol-policies was changed by someone else');
    expect(r.stderr).toContain('nothing was written');
    expect((await t.cm('kpol-policies'))?.data?.['a.kpol']).toContain('20%');
  });

  it('usage errors exit 2: no files, a file not ending in .kpol, two files with one name', async () => {
    const t = cluster();
    expect((await run(t.push)).code).toBe(2);
    expect((await run(t.push, file('p.txt', GOOD))).code).toBe(2);
    const dir2 = mkdtempSync(join(tmpdir(), 'kpol-push2-'));
    writeFileSync(join(dir2, 'a.kpol'), GOOD);
    expect((await run(t.push, file('a.kpol', GOOD), join(dir2, 'a.kpol'))).code).toBe(2);
  });

  it('the real command reads --kubeconfig: a missing file is exit 2 naming it, no stack trace', async () => {
    const r = await runCli('push', '--kubeconfig', join(tmp, 'no-such-kubeconfig'), file('a.kpol', GOOD));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no-such-kubeconfig: no such file');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('an unreachable API server is exit 1 with the reason, no stack trace', async () => {
    const kc = file(
      'kubeconfig.yaml',
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: c',
        'clusters: [{name: k, cluster: {server: "http://127.0.0.1:9", insecure-skip-tls-verify: true}}]',
        'contexts: [{name: c, context: {cluster: k, user: u}}]',
        'users: [{name: u, user: {token: t}}]',
        '',
      ].join('\n'),
    );
    const r = await runCli('pull', '--kubeconfig', kc, '--out', mkdtempSync(join(tmpdir(), 'kpol-pull-none-')));
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the API server refused');
  });
});

describe('kpol pull', () => {
  it(
    'writes one file per .kpol key and prints each ConfigMap status; push of the pulled files ' + 'round-trips',
    async () => {
      const a = policyCm('kpol-policies', { 'a.kpol': GOOD, README: 'x' });
      a.metadata.annotations = { 'kpol.dev/status': 'valid' };
      const t = cluster([a, policyCm('team-b', { 'b.kpol': 'policy b for nodepool y {\n  budget 1\n}\n' })]);
      const out = mkdtempSync(join(tmpdir(), 'kpol-pull-'));
      const r = await run(t.pull, '--out', out);
      expect(r.code).toBe(0);
      expect(readdirSync(out).sort()).toEqual(['a.kpol', 'b.kpol']);
      expect(readFileSync(join(out, 'a.kpol'), 'utf8')).toBe(GOOD);
      expect(r.stderr).toContain('configmap/kpol-system/kpol-policies: valid');
      expect(r.stderr).toContain('configmap/kpol-system/team-b: not yet seen by the controller');

      const one = mkdtempSync(join(tmpdir(), 'kpol-pull1-'));
      expect((await run(t.pull, '--out', one, '--name', 'team-b')).code).toBe(0);
      expect(readdirSync(one)).toEqual(['b.kpol']);
      const version = t.c.resourceVersion();
      expect((await run(t.push, '--name', 'team-b', join(one, 'b.kpol'))).code).toBe(0);
      expect(t.c.resourceVersion()).toBe(version); // identical content: the server stores nothing new
    },
  );

  it('refuses keys that clash across ConfigMaps, and a missing --name', async () => {
    const t = cluster([policyCm('one', { 'p.kpol': GOOD }), policyCm('two', { 'p.kpol': GOOD })]);
    const out = mkdtempSync(join(tmpdir(), 'kpol-pull2-'));
    const r = await run(t.pull, '--out', out);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('p.kpol is in configmap/kpol-system/one and configmap/kpol-system/two');
    expect(readdirSync(out)).toEqual([]);
    expect((await run(t.pull, '--out', out, '--name', 'missing')).code).toBe(2);
  });
});
