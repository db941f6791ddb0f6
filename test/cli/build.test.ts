// SPDX-License-Identifier: Apache-2.0
// The compiled CLI (src/edge/cli/build.mjs) on a copy of the package in a temporary folder, so the
// checkout's own dist/ is never touched: bin.mjs runs the build while it matches the sources
// and the sources through tsx once one changes; each command loads only its own chunks (no
// Kubernetes client for --help, check or eval); and the build answers as the sources do.
// Which modules a process loads is read from a load hook (test/support/load-trace.mjs).
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../../src/edge/cli/build.mjs';
import { buildState, inputRecord, type BuildState } from '../../src/edge/cli/build-state.mjs';
import { seq } from '../support/regex.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const LOAD_TRACE = new URL('../support/load-trace.mjs', import.meta.url).pathname;
const EXAMPLE = join(ROOT, 'rules/examples/business-hours.kpol');
const DEMO = join(ROOT, 'rules/examples/demo/cluster.yaml');
const AT = '2026-11-23T10:00:00Z';

const stateOf = (root: string): BuildState => buildState(pathToFileURL(`${root}/`));

let pkg = '';
let built: { modules: Record<string, string[]>; inputs: string[] };
let traces = 0;

/** A copy of what `npm pack` ships (the sources, no dist/) with this checkout's node_modules. */
function copyPackage(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kpol-build-'));
  for (const p of ['package.json', 'tsconfig.json', 'src', 'rules', 'grammar'])
    cpSync(join(ROOT, p), join(dir, p), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  loaded: string[];
}

/** `kpol …` from the copy's bin.mjs, as a user runs it, with the modules it loaded. */
function kpol(args: string[], env: Record<string, string> = {}): Run {
  const trace = join(pkg, `trace-${++traces}.txt`);
  writeFileSync(trace, '');
  const r = spawnSync(process.execPath, ['--import', LOAD_TRACE, join(pkg, 'src/edge/cli/bin.mjs'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, KPOL_FROM_SOURCE: '', ...env, KPOL_LOAD_TRACE: trace },
  });
  return {
    code: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    loaded: readFileSync(trace, 'utf8').split('\n').filter(Boolean),
  };
}

/** The files bundled into the build's modules a run loaded (paths as esbuild names them). */
function bundledSources(run: Run): string[] {
  const prefix = pathToFileURL(join(pkg, 'dist/cli/')).href;
  const modules = run.loaded.filter((u) => u.startsWith(prefix)).map((u) => u.slice(prefix.length));
  expect(modules.length, 'modules of the build loaded').toBeGreaterThan(0);
  return modules.flatMap((m) => built.modules[m] ?? []);
}

const HEAVY = [
  /@kubernetes[/\\]client-node/,
  /^src\/edge\/kube\//,
  /^src\/edge\/simulate\//,
  /^src\/edge\/server\//,
  /^src\/control\/runtime\//,
];
const heavy = (sources: string[]) => sources.filter((s) => HEAVY.some((re) => re.test(s)));

beforeAll(async () => {
  pkg = copyPackage();
  built = await buildCli({ root: pkg });
}, 180_000);
afterAll(() => {
  if (pkg) rmSync(pkg, { recursive: true, force: true });
});

describe('the build', () => {
  it("stamps every package file it read, and npm's record of the bundled packages", () => {
    expect(built.inputs).toEqual(
      expect.arrayContaining([
        'src/edge/cli/main.ts',
        'src/edge/cli/commands/check.ts',
        'grammar/parser.ts',
        'rules/builtin/candidate-rules.json',
        'tsconfig.json',
        'src/edge/cli/build.mjs',
      ]),
    );
    expect(built.inputs.filter((i) => i.includes('node_modules'))).toEqual([]);
    const stamp = JSON.parse(readFileSync(join(pkg, 'dist/cli/stamp.json'), 'utf8'));
    expect(Object.keys(stamp.dependencies)).toEqual(['node_modules/.package-lock.json']);
    expect(readFileSync(join(pkg, 'dist/cli/THIRD-PARTY-NOTICES.txt'), 'utf8')).toMatch(
      /^@kubernetes\/client-node@\S+ \(Apache-2\.0\)$/m,
    );
    expect(stateOf(pkg).fresh).toBe(true);
  });

  it('kpol --help loads the command table and no command', () => {
    const r = kpol(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}check {5}check \.kpol files/m);
    expect(r.loaded.filter((u) => u.endsWith('.ts') || u.includes('/node_modules/'))).toEqual([]);
    const sources = bundledSources(r);
    expect(sources).toContain('src/edge/cli/commands/index.ts');
    expect(sources.filter((s) => s.startsWith('src/edge/cli/commands/') && !/\/(index|command)\.ts$/.test(s))).toEqual(
      [],
    );
    expect(sources.filter((s) => s.includes('node_modules'))).toEqual([]);
  });

  it.each([
    ['check', [EXAMPLE]],
    ['eval', ['--cluster', DEMO, '--policy', EXAMPLE, '--at', AT]],
    ['explain', ['--help']],
    ['run', ['--help']],
  ])('kpol %s loads its own module and not the Kubernetes client, the simulator or the servers', (command, rest) => {
    const r = kpol([command, ...rest]);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    const sources = bundledSources(r);
    expect(sources).toContain(`src/edge/cli/commands/${command}.ts`);
    expect(heavy(sources)).toEqual([]);
    // Everything comes from the build: no TypeScript source, nothing from node_modules.
    expect(r.loaded.filter((u) => u.endsWith('.ts') || u.includes('/node_modules/'))).toEqual([]);
  });

  it('kpol lsp --help loads its command, not the language server and its protocol library', () => {
    const r = kpol(['lsp', '--help']);
    expect(r.code).toBe(0);
    const sources = bundledSources(r);
    expect(sources).toContain('src/edge/cli/commands/lsp.ts');
    expect(sources.filter((s) => /vscode-languageserver|^src\/edge\/lsp\//.test(s))).toEqual([]);
  });

  it('kpol pull loads the Kubernetes client (the chunk the others leave out)', () => {
    const r = kpol(['pull', '--kubeconfig', join(pkg, 'no-such-kubeconfig')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no-such-kubeconfig');
    expect(bundledSources(r).some((s) => /@kubernetes[/\\]client-node/.test(s))).toBe(true);
  });

  it('answers as the sources do (through tsx)', () => {
    for (const args of [
      ['check', '--format', 'json', EXAMPLE],
      ['eval', '--cluster', DEMO, '--policy', EXAMPLE, '--at', AT, '--output', 'json'],
    ]) {
      const fromBuild = kpol(args);
      const fromSource = kpol(args, { KPOL_FROM_SOURCE: '1' });
      expect(fromSource.loaded.some((u) => u.endsWith('/src/edge/cli/main.ts'))).toBe(true);
      expect({ ...fromBuild, loaded: [] }).toEqual({ ...fromSource, loaded: [] });
    }
  }, 120_000);
});

describe('a source changed since the build', () => {
  const CHECK = () => join(pkg, 'src/edge/cli/commands/check.ts');

  it('runs the sources: never the stale build', () => {
    const original = readFileSync(CHECK(), 'utf8');
    try {
      writeFileSync(CHECK(), original.replace('usage: kpol check', 'usage: kpol check (edited)'));
      expect(stateOf(pkg)).toEqual({ fresh: false, reason: 'src/edge/cli/commands/check.ts changed since the build' });
      const r = kpol(['check', '--help']);
      expect(r.stdout).toContain('usage: kpol check (edited)');
      expect(r.loaded.some((u) => u.endsWith('/src/edge/cli/commands/check.ts'))).toBe(true);
    } finally {
      writeFileSync(CHECK(), original);
    }
    // The same content again, with a new mtime: hashed and found unchanged.
    expect(stateOf(pkg).fresh).toBe(true);
    expect(kpol(['check', '--help']).loaded.some((u) => u.endsWith('.ts'))).toBe(false);
  }, 60_000);

  it('a JSON input counts; touching a file does not; a removed file does', () => {
    const json = join(pkg, 'rules/builtin/candidate-rules.json');
    const text = readFileSync(json, 'utf8');
    writeFileSync(json, `${text} `);
    expect(stateOf(pkg)).toMatchObject({
      fresh: false,
      reason: expect.stringContaining('rules/builtin/candidate-rules.json'),
    });
    writeFileSync(json, text);
    utimesSync(CHECK(), new Date(), new Date(Date.now() + 60_000));
    expect(stateOf(pkg).fresh).toBe(true);
    renameSync(CHECK(), `${CHECK()}.away`);
    try {
      expect(stateOf(pkg)).toEqual({
        fresh: false,
        reason: 'src/edge/cli/commands/check.ts was removed since the build',
      });
    } finally {
      renameSync(`${CHECK()}.away`, CHECK());
    }
    expect(stateOf(pkg).fresh).toBe(true);
  });

  it('KPOL_FROM_SOURCE=1 runs the sources whatever the build', () => {
    const r = kpol(['--help'], { KPOL_FROM_SOURCE: '1' });
    expect(r.code).toBe(0);
    expect(r.loaded.some((u) => u.endsWith('/src/edge/cli/main.ts'))).toBe(true);
  }, 60_000);
});

describe('buildState', () => {
  /** A package with one source and a stamp for it, as build.mjs writes them. */
  function tiny(): { root: string; stamp: (o: object) => void } {
    const root = mkdtempSync(join(tmpdir(), 'kpol-stamp-'));
    mkdirSync(join(root, 'dist/cli'), { recursive: true });
    mkdirSync(join(root, 'node_modules'));
    writeFileSync(join(root, 'a.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'node_modules/.package-lock.json'), '{"v":1}');
    const rec = (p: string) => inputRecord(readFileSync(join(root, p)), 0);
    const stamp = (o: object) =>
      writeFileSync(
        join(root, 'dist/cli/stamp.json'),
        JSON.stringify({
          format: 1,
          entry: 'main.mjs',
          inputs: { 'a.ts': rec('a.ts') },
          dependencies: { 'node_modules/.package-lock.json': rec('node_modules/.package-lock.json') },
          ...o,
        }),
      );
    return { root, stamp };
  }

  it('no build, or a stamp of another format, is not fresh', () => {
    const { root, stamp } = tiny();
    expect(stateOf(root)).toEqual({ fresh: false, reason: 'there is no build (dist/cli/stamp.json)' });
    stamp({ format: 0 });
    expect(stateOf(root).fresh).toBe(false);
    stamp({});
    expect(stateOf(root)).toEqual({ fresh: true, entry: pathToFileURL(join(root, 'dist/cli/main.mjs')) });
    rmSync(root, { recursive: true });
  });

  it('changed dependencies make it stale where there is a node_modules, and do not matter where there is none', () => {
    const { root, stamp } = tiny();
    stamp({});
    writeFileSync(join(root, 'node_modules/.package-lock.json'), '{"v":2}');
    expect(stateOf(root)).toMatchObject({
      fresh: false,
      reason: expect.stringMatching(/^the installed dependencies changed/),
    });
    rmSync(join(root, 'node_modules'), { recursive: true });
    expect(stateOf(root).fresh).toBe(true); // an installed package: the build carries its dependencies
    rmSync(root, { recursive: true });
  });
});

describe('bin.mjs without a usable build', () => {
  it('says what is missing when tsx is not installed either (exit 70), rather than run anything stale', () => {
    const root = mkdtempSync(join(tmpdir(), 'kpol-nobuild-'));
    mkdirSync(join(root, 'src/edge/cli'), { recursive: true });
    for (const f of ['bin.mjs', 'build-state.mjs'])
      cpSync(join(ROOT, 'src/edge/cli', f), join(root, 'src/edge/cli', f));
    writeFileSync(join(root, 'package.json'), '{"type":"module"}');
    const r = spawnSync(process.execPath, [join(root, 'src/edge/cli/bin.mjs'), '--help'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(r.status).toBe(70);
    expect(r.stderr).toMatch(
      seq(
        /^kpol: cannot start: the build in dist\/cli\/ cannot be used \(there is no build .*\), /,
        /and tsx, which runs kpol from its TypeScript sources, is not installed/,
      ),
    );
    rmSync(root, { recursive: true });
  });
});
