// SPDX-License-Identifier: Apache-2.0
// The package as a user gets it: `npm pack` (whose `prepare` brings the build up to date), then
// `npm install -g --prefix <tmp> ./kpol-*.tgz` offline with an empty npm cache — kpol has no
// runtime dependencies, the build carries them — then the installed `kpol` bin runs from its
// build (no tsx, no node_modules) in a folder outside the checkout.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildState } from '../../src/edge/cli/build-state.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;

let tmp = '';
let packed: string[] = [];
let installed = '';
let bin = '';

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'kpol-pack-'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', tmp], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 180_000,
  });
  const [{ filename, files }] = JSON.parse(out.slice(out.indexOf('['))) as {
    filename: string;
    files: { path: string }[];
  }[];
  packed = files.map((f) => f.path);
  const prefix = join(tmp, 'prefix');
  const emptyCache = join(tmp, 'npm-cache');
  mkdirSync(emptyCache);
  // --offline with an empty cache: nothing can come from the registry, and nothing has to.
  execFileSync(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--offline',
      '--cache',
      emptyCache,
      '--no-audit',
      '--no-fund',
      join(tmp, filename),
    ],
    {
      cwd: tmp,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 180_000,
    },
  );
  installed = join(prefix, 'lib/node_modules/kpol');
  bin = join(prefix, 'bin/kpol');
}, 300_000);
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** The installed bin, as a shell runs it (its #! line), from a folder outside the checkout. */
const kpol = (...args: string[]) =>
  spawnSync(bin, args, {
    cwd: tmp,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? '', HOME: tmp },
  });

describe('npm pack + npm install -g', () => {
  it('packs the build, the sources it was built from and the files kpol reads at run time; no tests', () => {
    expect(packed).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'tsconfig.json',
        'src/edge/cli/bin.mjs',
        'src/edge/cli/build-state.mjs',
        'dist/cli/main.mjs',
        'dist/cli/stamp.json',
        'dist/cli/THIRD-PARTY-NOTICES.txt',
        'rules/examples/demo/cluster.yaml',
        'rules/examples/business-hours.kpol',
        'deploy/crds/karpenter.sh_nodepools.yaml',
      ]),
    );
    expect(packed.filter((p) => /^(test|node_modules|editor\/src|\.git)\//.test(p))).toEqual([]);
  });

  it('installs no dependencies, and the installed build matches its sources', () => {
    expect(existsSync(join(installed, 'node_modules'))).toBe(false);
    expect(buildState(pathToFileURL(`${installed}/`))).toMatchObject({ fresh: true });
  });

  it('kpol --help', () => {
    const r = kpol('--help');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: kpol <command>/);
    expect(r.stdout).toMatch(/^ {2}check {5}/m);
  });

  it('kpol check on the shipped example', () => {
    const r = kpol('check', join(installed, 'rules/examples/business-hours.kpol'));
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('1 file(s): 0 error(s), 0 warning(s)');
  });

  it('kpol eval on the shipped demo; kpol pull loads the bundled Kubernetes client', () => {
    const demo = join(installed, 'rules/examples/demo/cluster.yaml');
    const e = kpol(
      'eval',
      '--cluster',
      demo,
      '--policy',
      join(installed, 'rules/examples/business-hours.kpol'),
      '--at',
      '2026-11-23T10:00:00Z',
    );
    expect(e.stderr).toBe('');
    expect(e.status).toBe(0);
    expect(e.stdout).toMatch(/^default +business-hours/m);
    const p = kpol('pull', '--kubeconfig', join(tmp, 'no-such-kubeconfig'));
    expect(p.status).toBe(2);
    expect(p.stderr).toContain('no-such-kubeconfig');
  });
});
