// SPDX-License-Identifier: Apache-2.0
// deploy/Dockerfile, checked without a Docker engine: the base image is Node 20; every COPY
// source exists, is let in by deploy/Dockerfile.dockerignore and is in the npm package; a
// build stage installs from the lock file and builds the CLI, and the final stage holds that
// build, the sources it was built from and no node_modules; every source the CLI imports is
// copied into the build stage; the user is a non-root uid. Then the stages are run on the
// checkout (COPY as copies, `npm ci` as this checkout's node_modules, `node …` run for real)
// and the image's ENTRYPOINT starts, from the build, with the image's environment when the
// temp folder cannot be written (readOnlyRootFilesystem without the /tmp volume).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;

interface Instruction {
  keyword: string;
  args: string;
  stage: number;
}
const LOAD_TRACE = new URL('../support/load-trace.mjs', import.meta.url).pathname;

/**
 * Instructions with line continuations joined and comments dropped; `stage` counts FROMs (ARGs before the first are
 * stage -1).
 */
export function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let stage = -1;
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    const m = /^(\w+)\s+(.*)$/.exec(full);
    if (!m) continue;
    const keyword = m[1].toUpperCase();
    if (keyword === 'FROM') stage++;
    out.push({ keyword, args: m[2], stage });
  }
  return out;
}

/** Exec form (a JSON array) only: shell form would need a shell in the image. */
const execForm = (args: string): string[] => {
  const v = JSON.parse(args);
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw new Error(`not exec form: ${args}`);
  return v;
};

/**
 * `.dockerignore` semantics: the last pattern matching the path or one of its parent folders decides; `!` lets back in.
 */
export function dockerignored(patterns: string[], path: string): boolean {
  const rules = patterns
    .map((p) => p.trim())
    .filter((p) => p && !p.startsWith('#'))
    .map((p) => {
      const negate = p.startsWith('!');
      const glob = normalize(p.slice(negate ? 1 : 0).trim()).replace(/^\/+|\/+$/g, '');
      const re = new RegExp(
        `^${glob
          .split('**')
          .map((part) =>
            part
              .split('*')
              .map((s) => s.replace(/[.+^${}()|[\]\\?]/g, '\\$&'))
              .join('[^/]*'),
          )
          .join('.*')}$`,
      );
      return { negate, re };
    });
  const parts = normalize(path).replace(/\/+$/, '').split('/');
  const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  let ignored = false;
  for (const r of rules) if (candidates.some((c) => r.re.test(c))) ignored = !r.negate;
  return ignored;
}

const DOCKERFILE = join(ROOT, 'deploy/Dockerfile');
const text = () => readFileSync(DOCKERFILE, 'utf8');
const ins = () => parseDockerfile(text());
const finalStage = () => Math.max(...ins().map((i) => i.stage));
const inFinal = (keyword: string) => ins().filter((i) => i.keyword === keyword && i.stage === finalStage());
const ignorePatterns = () => readFileSync(`${DOCKERFILE}.dockerignore`, 'utf8').split('\n');
const pkg = () => JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** Build-context sources of COPY (not `--from=` a stage), with the destination. */
function copies(): { sources: string[]; dest: string; stage: number }[] {
  return ins()
    .filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD')
    .flatMap((i) => {
      const words = i.args.split(/\s+/);
      if (words.some((w) => w.startsWith('--from='))) return [];
      const plain = words.filter((w) => !w.startsWith('--'));
      return [{ sources: plain.slice(0, -1), dest: plain[plain.length - 1], stage: i.stage }];
    });
}

/** ARG defaults declared before the first FROM, substituted into FROM lines. */
function baseImages(): string[] {
  const args = new Map(
    ins()
      .filter((i) => i.keyword === 'ARG' && i.stage === -1)
      .map((i) => {
        const [k, v = ''] = i.args.split('=');
        return [k.trim(), v.trim()] as const;
      }),
  );
  const stages = new Set<string>();
  return ins()
    .filter((i) => i.keyword === 'FROM')
    .flatMap((i) => {
      const [image, as, name] = i.args
        .replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => args.get(a ?? b) ?? '')
        .split(/\s+/);
      const isStage = stages.has(image);
      if (as?.toUpperCase() === 'AS' && name) stages.add(name);
      return isStage ? [] : [image];
    });
}

/** Each stage's name (`FROM … AS name`), by index; unnamed stages have none. */
function stageNames(): (string | undefined)[] {
  return ins()
    .filter((i) => i.keyword === 'FROM')
    .map((i) => /\s+AS\s+(\S+)\s*$/i.exec(i.args)?.[1]);
}

/** `COPY --from=<stage> <src> <dest>` of a stage. */
function copiesFrom(stage: number): { from: string; source: string; dest: string }[] {
  return ins()
    .filter((i) => i.keyword === 'COPY' && i.stage === stage)
    .flatMap((i) => {
      const words = i.args.split(/\s+/);
      const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
      if (!from) return [];
      const plain = words.filter((w) => !w.startsWith('--'));
      return [{ from, source: plain[0], dest: plain[plain.length - 1] }];
    });
}

let packed: string[] = [];
beforeAll(() => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  packed = (JSON.parse(out) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
}, 60_000);
const inPackage = (path: string) => packed.some((p) => p === path || p.startsWith(`${path.replace(/\/+$/, '')}/`));

describe('deploy/Dockerfile', () => {
  it('builds on Node 20 in every stage (a pinned tag or digest)', () => {
    const images = baseImages();
    expect(images.length).toBeGreaterThan(0);
    for (const image of images) expect(image).toMatch(/^node:20(\.\d+){0,2}(-[a-z0-9]+)*(@sha256:[0-9a-f]{64})?$/);
  });

  it('every COPY source exists, is let in by the .dockerignore and is in the npm package', () => {
    const sources = copies().flatMap((c) => c.sources);
    expect(sources).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'src', 'rules', 'grammar']));
    for (const s of sources) {
      expect(existsSync(join(ROOT, s)), `${s} exists`).toBe(true);
      expect(dockerignored(ignorePatterns(), s), `${s} is in the build context`).toBe(false);
      // npm never packs the lock file: it is only the install's input, not part of the image.
      if (s !== 'package-lock.json') expect(inPackage(s), `${s} is in \`npm pack\``).toBe(true);
    }
    expect(
      copies()
        .filter((c) => c.stage === finalStage())
        .flatMap((c) => c.sources),
    ).not.toContain('package-lock.json');
  });

  it(
    'builds the CLI in a stage that installs from the lock file; the image holds the build and ' + 'no node_modules',
    () => {
      const names = stageNames();
      const final = finalStage();
      const fromBuild = copiesFrom(final).filter((c) => /^\/app\/dist\/?$/.test(c.source));
      expect(fromBuild.length, 'the final stage copies /app/dist from a stage').toBe(1);
      const buildStage = names.indexOf(fromBuild[0].from);
      expect(buildStage).toBeGreaterThanOrEqual(0);
      const runs = ins()
        .filter((i) => i.keyword === 'RUN' && i.stage === buildStage)
        .map((i) => i.args);
      expect(
        runs.some((r) => /\bnpm ci\b/.test(r) && !/--omit=dev/.test(r)),
        'npm ci with the devDependencies (esbuild)',
      ).toBe(true);
      expect(runs.some((r) => /^node src\/edge\/cli\/build\.mjs\b/.test(r))).toBe(true);
      // Nothing is installed into the final stage: the build bundles every package.
      expect(ins().filter((i) => i.stage === final && i.keyword === 'RUN')).toEqual([]);
      expect(copiesFrom(final).filter((c) => c.source.includes('node_modules'))).toEqual([]);
      expect(pkg().dependencies ?? {}).toEqual({});
    },
  );

  it('runs as a non-root numeric user', () => {
    const users = inFinal('USER');
    expect(users.length).toBe(1);
    const [uid, gid] = users[0].args.trim().split(':');
    expect(uid).toMatch(/^\d+$/);
    expect(Number(uid)).toBeGreaterThan(0);
    if (gid !== undefined) expect(Number(gid)).toBeGreaterThan(0);
  });

  it('ENTRYPOINT runs the CLI script with node (exec form, no shell); CMD is `run --in-cluster`', () => {
    const [entry] = inFinal('ENTRYPOINT');
    const [node, script] = execForm(entry.args);
    expect(node).toBe('node');
    expect(script).toBe(pkg().bin.kpol);
    expect(existsSync(join(ROOT, script))).toBe(true);
    expect(inPackage(script)).toBe(true);
    expect(execForm(inFinal('CMD')[0].args)).toEqual(['run', '--in-cluster']);
    // Copied into the final stage, relative to its WORKDIR.
    const workdir = inFinal('WORKDIR').at(-1)!.args.trim();
    expect(workdir).toMatch(/^\//);
    const copiedHere = copies()
      .filter((c) => c.stage === finalStage())
      .some(
        (c) =>
          c.sources.some((s) => script === s || script.startsWith(`${s}/`)) &&
          normalize(join(workdir, c.dest)).startsWith(workdir),
      );
    expect(copiedHere).toBe(true);
  });

  it(
    'the .dockerignore keeps node_modules, a local build, test/, .git, the editor and local ' +
      'files out of the build context',
    () => {
      for (const p of [
        'node_modules',
        'node_modules/tsx/package.json',
        'dist',
        'dist/cli/main.mjs',
        'test',
        'test/deploy/rbac.test.ts',
        '.git',
        '.git/HEAD',
        'editor',
        '.ci',
        'README.md',
        'deploy/Dockerfile',
      ]) {
        expect(dockerignored(ignorePatterns(), p), p).toBe(true);
      }
    },
  );

  it('the build stage has every source the CLI imports, and the packages they import are in the lock file', () => {
    const buildStage = stageNames().indexOf(copiesFrom(finalStage()).find((c) => /^\/app\/dist/.test(c.source))!.from);
    const copied = copies()
      .filter((c) => c.stage === buildStage)
      .flatMap((c) => c.sources);
    const { dependencies = {}, devDependencies = {} } = pkg();
    const { files, packages } = importClosure(join(ROOT, 'src/edge/cli/main.ts'));
    expect(files.length).toBeGreaterThan(100);
    const needed = [
      ...files.map((f) => relative(ROOT, f)),
      'tsconfig.json',
      'src/edge/cli/build.mjs',
      'src/edge/cli/build-state.mjs',
    ];
    expect(needed.filter((f) => !copied.some((s) => f === s || f.startsWith(`${s}/`)))).toEqual([]);
    const builtins = new Set(builtinModules);
    const notInstalled = [...packages].filter(
      (p) => !builtins.has(p) && !p.startsWith('node:') && !(p in dependencies) && !(p in devDependencies),
    );
    expect(notInstalled).toEqual([]);
    expect(copied).toContain('package.json'); // "type": "module", read by Node
  });

  it(
    'the stages, run on the checkout, give an image whose ENTRYPOINT starts from the build ' +
      'with the temp folder unwritable',
    () => {
      const image = runStages();
      try {
        const env = Object.fromEntries(
          inFinal('ENV').map((i) => {
            const m = /^(\w+)[=\s]+(.*)$/.exec(i.args.trim())!;
            return [m[1], m[2].replace(/^"|"$/g, '')];
          }),
        );
        const [node, script] = execForm(inFinal('ENTRYPOINT')[0].args);
        expect(node).toBe('node');
        // A folder inside a file: not even root can create it.
        const unwritable = join(ROOT, 'package.json', 'tmp');
        const start = (args: string[]) => {
          const trace = join(image.root, `trace-${args.join('-')}.txt`);
          writeFileSync(trace, '');
          const r = spawnSync(process.execPath, ['--import', LOAD_TRACE, script, ...args], {
            cwd: image.final,
            encoding: 'utf8',
            timeout: 60_000,
            env: { PATH: process.env.PATH ?? '', ...env, TMPDIR: unwritable, KPOL_LOAD_TRACE: trace },
          });
          return { ...r, loaded: readFileSync(trace, 'utf8').split('\n').filter(Boolean) };
        };
        const help = start(['run', '--help']);
        expect(help.stderr).toBe('');
        expect(help.status).toBe(0);
        expect(help.stdout).toContain('usage: kpol run');
        expect(help.loaded).toContain(pathToFileURL(join(image.final, 'dist/cli/main.mjs')).href);
        expect(help.loaded.filter((u) => u.endsWith('.ts'))).toEqual([]);
        // The CMD outside a pod: the Kubernetes client loads from the build and says what is missing.
        const cmd = start(execForm(inFinal('CMD')[0].args));
        expect(cmd.stderr).toMatch(/^kpol run: --in-cluster: not running in a pod/);
        expect(cmd.status).toBe(2);
        expect(cmd.loaded.some((u) => u.includes('/node_modules/'))).toBe(false);
      } finally {
        rmSync(image.root, { recursive: true, force: true });
      }
    },
    180_000,
  );
});

/**
 * Runs the Dockerfile's stages in temporary folders (each stage's WORKDIR is its folder):
 * COPY from the checkout or from an earlier stage, `npm ci` stands for this checkout's
 * node_modules (installed from the same lock file), `node …` is run. Returns the final stage.
 */
function runStages(): { root: string; final: string } {
  const root = mkdtempSync(join(tmpdir(), 'kpol-image-'));
  const names = stageNames();
  const dirs: string[] = [];
  const inStage = (dir: string, workdir: string, path: string) =>
    join(dir, normalize(path.startsWith('/') ? relative(workdir, path) : path));
  let workdir = '/';
  for (const i of ins().filter((x) => x.stage >= 0)) {
    if (i.keyword === 'FROM') {
      dirs[i.stage] = join(root, `stage-${i.stage}`);
      mkdirSync(dirs[i.stage]);
      workdir = '/';
      continue;
    }
    const dir = dirs[i.stage];
    if (i.keyword === 'WORKDIR') workdir = i.args.trim();
    else if (i.keyword === 'COPY') {
      const words = i.args.split(/\s+/);
      const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
      const plain = words.filter((w) => !w.startsWith('--'));
      const dest = inStage(dir, workdir, plain[plain.length - 1]);
      for (const source of plain.slice(0, -1)) {
        const src = from === undefined ? join(ROOT, source) : inStage(dirs[names.indexOf(from)], '/app', source);
        const target =
          plain.length > 2 || dest.endsWith('/') || plain[plain.length - 1] === './'
            ? join(dest, source.split('/').filter(Boolean).at(-1)!)
            : dest;
        mkdirSync(dirname(target), { recursive: true });
        cpSync(src, target, { recursive: true });
      }
    } else if (i.keyword === 'RUN') {
      if (/^npm ci\b/.test(i.args)) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      else if (/^node\s/.test(i.args))
        execFileSync('sh', ['-c', i.args], { cwd: dir, stdio: 'pipe', timeout: 120_000 });
      else throw new Error(`the test cannot run \`RUN ${i.args}\``);
    }
  }
  return { root, final: dirs[dirs.length - 1] };
}

/** Relative module files reachable from `entry` through value imports, and the bare package names they import. */
function importClosure(entry: string): { files: string[]; packages: Set<string> } {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  const SPECIFIERS = [
    /(?:^|[\n;])\s*import\s+(?!type\s)(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/g, // import x from 'm'; import 'm'
    /(?:^|[\n;])\s*export\s+(?!type\s)[\w*{}\s,$]*?\s+from\s+['"]([^'"]+)['"]/g, // export { x } from 'm'
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g, // import('m')
  ];
  while (queue.length) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (file.endsWith('.json')) continue;
    const src = readFileSync(file, 'utf8');
    for (const re of SPECIFIERS) {
      for (const m of src.matchAll(re)) {
        const spec = m[1];
        if (spec.startsWith('.')) queue.push(resolveRelative(file, spec));
        else packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
      }
    }
  }
  return { files: [...seen], packages };
}

function resolveRelative(from: string, spec: string): string {
  const base = join(dirname(from), spec);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    `${base}.ts`,
    join(base, 'index.ts'),
  ];
  const hit = candidates.find((c) => existsSync(c) && statSync(c).isFile());
  if (!hit) throw new Error(`${relative(ROOT, from)}: cannot resolve ${spec}`);
  return hit;
}
