// SPDX-License-Identifier: Apache-2.0
// `kpol pause` / `kpol resume` against the in-memory API server: the ConfigMap they write and
// delete (and that the evaluator reads back), the end a pause needs, located usage errors with
// "did you mean" for typos, resourceVersion preconditions, and the exit-code contract.
import { describe, expect, it } from 'vitest';
import { MemoryCluster } from '../../src/core/cluster/memory/memory-cluster.js';
import type { ClusterClient } from '../../src/core/cluster/client.js';
import type { ConfigMap } from '../../src/core/cluster/types.js';
import { FakeClock } from '../../src/core/clock.js';
import { readPause } from '../../src/core/facts/pauses.js';
import { pauseConfigMapName } from '../../src/core/policy/pause-store.js';
import { makePauseCommand } from '../../src/edge/cli/commands/pause.js';
import { makeResumeCommand } from '../../src/edge/cli/commands/resume.js';
import { makeNodePool } from '../support/cluster-builder.js';
import { runCli, runCommand } from './run-cli.js';

const NS = 'kpol-system';
const NOW = Date.parse('2026-11-25T20:00:00Z');

const run = runCommand;

function cluster() {
  const c = new MemoryCluster(new FakeClock(NOW), [makeNodePool('web'), makeNodePool('batch')]);
  const pauses = async () =>
    (await c.list<ConfigMap>('ConfigMap', NS)).filter((cm) => cm.metadata.labels?.['kpol.dev/pause']);
  return {
    c,
    pauses,
    pause: makePauseCommand(
      async () => c,
      () => NOW,
      { USER: 'alice' },
    ),
    resume: makeResumeCommand(async () => c),
  };
}

describe('kpol pause', () => {
  it('writes one labelled ConfigMap per scope that the evaluator reads back', async () => {
    const k = cluster();
    const r = await run(k.pause, '--reason', 'Drifted', '--nodepool', 'web,batch', '--for', '90m', '--note', 'rollout');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const name = pauseConfigMapName({ nodePools: ['batch', 'web'], reasons: ['Drifted'] });
    expect(r.stdout).toBe(
      `paused Drifted on NodePools batch, web until 2026-11-25T21:30:00Z (configmap/${NS}/${name} created)\n`,
    );
    const [cm] = await k.pauses();
    expect(cm!.metadata.name).toBe(name);
    expect(cm!.data).toEqual({
      until: '2026-11-25T21:30:00Z',
      nodepools: 'batch,web',
      reasons: 'Drifted',
      by: 'alice',
      note: 'rollout',
    });
    const read = readPause(cm!);
    expect(read).toMatchObject({ nodePools: ['batch', 'web'], reasons: ['Drifted'], untilMs: NOW + 90 * 60_000 });
    expect(read.error).toBeUndefined();

    // The same scope (flags in another order) moves the end of the same pause.
    const again = await run(
      k.pause,
      '--nodepool',
      'batch',
      '--nodepool',
      'web',
      '--reason',
      'Drifted',
      '--until',
      '2026-11-26T08:00:00Z',
    );
    expect(again.stdout).toContain('until 2026-11-26T08:00:00Z');
    expect(again.stdout).toContain('updated)');
    const all = await k.pauses();
    expect(all).toHaveLength(1);
    expect(all[0]!.data?.until).toBe('2026-11-26T08:00:00Z');
  });

  it('needs an end, one only, in the future and within 31 days (usage errors, exit 2, nothing written)', async () => {
    const k = cluster();
    const cases: Array<[string[], RegExp]> = [
      [[], /a pause needs an end: --for a duration/],
      [['--for', '1h', '--until', '2026-11-26T00:00:00Z'], /give --for or --until, not both/],
      [['--for', 'soon'], /--for takes a positive duration such as 90m, 2h or 1d, not `soon`/],
      [['--for', '0s'], /--for takes a positive duration/],
      [['--until', 'tomorrow'], /--until takes an RFC 3339 instant such as/],
      [['--until', '2026-11-25T19:00:00Z'], /--until 2026-11-25T19:00:00Z is not in the future/],
      [['--for', '32d'], /a pause lasts at most 31 days; for a longer block write a `freeze`/],
      [['--reason', 'Drift', '--for', '1h'], /^--reason: unknown reason "Drift" \(did you mean Drifted\?\)/],
      [['--reason', 'drifted', '--for', '1h'], /did you mean Drifted\?/],
      [['--nodepool', 'Web_1', '--for', '1h'], /^--nodepool: "Web_1" is not a NodePool name/],
      [['--nodepol', 'web', '--for', '1h'], /unknown option `--nodepol`; did you mean `--nodepool`\?/],
      [['web', '--for', '1h'], /unexpected argument `web`/],
    ];
    for (const [argv, message] of cases) {
      const r = await run(k.pause, ...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(message);
    }
    expect(await k.pauses()).toEqual([]);
  });

  it('a NodePool the cluster does not have is exit 1 with "did you mean", nothing written', async () => {
    const k = cluster();
    const r = await run(k.pause, '--nodepool', 'webb', '--for', '1h');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('--nodepool: there is no NodePool "webb" in the cluster; did you mean web?');
    expect(await k.pauses()).toEqual([]);
  });

  it('a concurrent change between read and write is a conflict (exit 1), not a lost update', async () => {
    const k = cluster();
    await run(k.pause, '--for', '1h');
    // Another writer moves the pause on between this pause's read and its write.
    const racing: ClusterClient = Object.create(k.c) as ClusterClient;
    racing.update = async (obj) => {
      const current = (await k.c.get<ConfigMap>({ kind: 'ConfigMap', namespace: NS, name: obj.metadata.name }))!;
      await k.c.update({ ...current, data: { ...current.data, note: 'someone else' } });
      return k.c.update(obj);
    };
    const r = await run(
      makePauseCommand(
        async () => racing,
        () => NOW,
        {},
      ),
      '--for',
      '2h',
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/changed while it was written .*; run kpol pause again/);
    expect((await k.pauses())[0]!.data?.note).toBe('someone else');
  });
});

describe('kpol pause --list', () => {
  it('lists invalid pauses first, then those in force, then ended ones, with scope, end, author and note', async () => {
    const k = cluster();
    expect((await run(k.pause, '--list')).stdout).toBe('no pauses\n');
    await run(k.pause, '--reason', 'Drifted', '--nodepool', 'web', '--for', '2h', '--note', 'rollout');
    await run(k.pause, '--nodepool', 'batch', '--for', '30m');
    // Ended: its end is before the command's now (pauses are not garbage-collected; resume removes them).
    const ended = makePauseCommand(
      async () => k.c,
      () => NOW - 3 * 3_600_000,
      { USER: 'bob' },
    );
    await run(ended, '--reason', 'Expired', '--for', '1h');
    const bad = pauseConfigMapName({ nodePools: [], reasons: ['Empty'] });
    await k.c.create<ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: bad, namespace: NS, labels: { 'kpol.dev/pause': 'true' } },
      data: { until: 'tomorrow', reasons: 'Empty' },
    });
    const r = await run(k.pause, '--list');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^CONFIGMAP\s+STATE\s+PAUSES\s+UNTIL\s+BY\s+NOTE$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/).slice(1))).toEqual([
      [
        'invalid (holds)',
        'Empty on every NodePool',
        '-',
        '-',
        expect.stringMatching(/until: "tomorrow" is not an RFC 3339/),
      ],
      ['in force', 'every reason on NodePool batch', '2026-11-25T20:30:00Z', 'alice', '-'],
      ['in force', 'Drifted on NodePool web', '2026-11-25T22:00:00Z', 'alice', 'rollout'],
      ['ended', 'Expired on every NodePool', '2026-11-25T18:00:00Z', 'bob', '-'],
    ]);
  });

  it('--list with what makes a pause is a usage error and writes nothing', async () => {
    const k = cluster();
    const r = await run(k.pause, '--list', '--for', '1h');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^--list takes no --for/);
    expect(await k.pauses()).toEqual([]);
  });
});

describe('kpol resume', () => {
  it('deletes the pause of exactly the scope named, and lists the others when there is none', async () => {
    const k = cluster();
    await run(k.pause, '--reason', 'Drifted', '--nodepool', 'web', '--for', '1h');
    await run(k.pause, '--for', '1h');
    const miss = await run(k.resume, '--nodepool', 'web');
    expect(miss.code).toBe(1);
    expect(miss.stderr).toContain('kpol resume: no pause of every reason on NodePool web in namespace kpol-system');
    expect(miss.stderr).toContain('  Drifted paused by kpol pause until 2026-11-25T21:00:00Z (by alice)');
    const hit = await run(k.resume, '--reason', 'Drifted', '--nodepool', 'web');
    expect(hit.code).toBe(0);
    expect(hit.stdout).toMatch(
      /^resumed Drifted on NodePool web \(ConfigMap\/kpol-system\/kpol-pause-[0-9a-f]{8} deleted\)\n$/,
    );
    expect((await k.pauses()).map((cm) => cm.data?.nodepools)).toEqual([undefined]);
    // No flags: the pause of every reason on every NodePool.
    expect((await run(k.resume)).stdout).toMatch(/^resumed every reason on every NodePool/);
    expect(await k.pauses()).toEqual([]);
  });

  it('--all deletes every pause; with a selector it is a usage error; typos are located', async () => {
    const k = cluster();
    await run(k.pause, '--reason', 'Empty', '--for', '1h');
    await run(k.pause, '--nodepool', 'batch', '--for', '1h');
    const bad = await run(k.resume, '--all', '--nodepool', 'web');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^--all resumes every pause; give it without --reason or --nodepool/);
    const typo = await run(k.resume, '--reason', 'Underutilised');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^--reason: unknown reason "Underutilised" \(did you mean Underutilized\?\)/);
    const all = await run(k.resume, '--all');
    expect(all.code).toBe(0);
    expect(all.stdout.split('\n').filter(Boolean)).toHaveLength(2);
    expect(await k.pauses()).toEqual([]);
    expect((await run(k.resume, '--all')).stdout).toBe('no pauses in namespace kpol-system\n');
  });
});

describe('the kpol binary', () => {
  it('lists pause and resume, suggests them for typos, and prints their help', async () => {
    const help = await runCli('--help');
    expect(help.stdout).toMatch(/ {2}pause {5}pause voluntary disruption/);
    expect(help.stdout).toMatch(/ {2}resume {4}end a pause before its time/);
    const typo = await runCli('pasue');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown command `pasue`; did you mean `pause`?');
    const usage = await runCli('resume', '--help');
    expect(usage.stdout).toMatch(/^usage: kpol resume/);
    const noEnd = await runCli('pause', '--reason', 'Drifted');
    expect(noEnd.code).toBe(2);
    expect(noEnd.stderr).toMatch(/^kpol pause: a pause needs an end/);
    expect(noEnd.stderr).not.toMatch(/at .*\.ts:\d+/); // no stack trace
  });
});
