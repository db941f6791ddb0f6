// SPDX-License-Identifier: Apache-2.0
// deploy/Dockerfile, checked without a Docker engine: the base image is Node 20; every COPY
// source exists, is let in by deploy/Dockerfile.dockerignore and is in the npm package; the
// ENTRYPOINT script is copied and packed, and every module it imports (transitively) is copied
// or is a production dependency that `npm ci --omit=dev` installs; the user is a non-root uid;
// and the CLI starts with the image's environment when the temp folder cannot be written
// (readOnlyRootFilesystem without the /tmp volume).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, normalize, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;

interface Instruction { keyword: string; args: string; stage: number }

/** Instructions with line continuations joined and comments dropped; `stage` counts FROMs (ARGs before the first are stage -1). */
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

/** `.dockerignore` semantics: the last pattern matching the path or one of its parent folders decides; `!` lets back in. */
export function dockerignored(patterns: string[], path: string): boolean {
  const rules = patterns.map((p) => p.trim()).filter((p) => p && !p.startsWith('#')).map((p) => {
    const negate = p.startsWith('!');
    const glob = normalize(p.slice(negate ? 1 : 0).trim()).replace(/^\/+|\/+$/g, '');
    const re = new RegExp(`^${glob.split('**').map((part) => part.split('*').map((s) => s.replace(/[.+^${}()|[\]\\?]/g, '\\$&')).join('[^/]*')).join('.*')}$`);
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
  return ins().filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD').flatMap((i) => {
    const words = i.args.split(/\s+/);
    if (words.some((w) => w.startsWith('--from='))) return [];
    const plain = words.filter((w) => !w.startsWith('--'));
    return [{ sources: plain.slice(0, -1), dest: plain[plain.length - 1], stage: i.stage }];
  });
}

/** ARG defaults declared before the first FROM, substituted into FROM lines. */
function baseImages(): string[] {
  const args = new Map(ins().filter((i) => i.keyword === 'ARG' && i.stage === -1).map((i) => {
    const [k, v = ''] = i.args.split('=');
    return [k.trim(), v.trim()] as const;
  }));
  const stages = new Set<string>();
  return ins().filter((i) => i.keyword === 'FROM').flatMap((i) => {
    const [image, as, name] = i.args.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a, b) => args.get(a ?? b) ?? '').split(/\s+/);
    const isStage = stages.has(image);
    if (as?.toUpperCase() === 'AS' && name) stages.add(name);
    return isStage ? [] : [image];
  });
}

let packed: string[] = [];
beforeAll(() => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
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
    expect(copies().filter((c) => c.stage === finalStage()).flatMap((c) => c.sources)).not.toContain('package-lock.json');
  });

  it('installs only production dependencies, from the lock file', () => {
    expect(ins().some((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args) && /--omit=dev\b/.test(i.args))).toBe(true);
  });

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
    const copiedHere = copies().filter((c) => c.stage === finalStage()).some((c) => c.sources.some((s) => script === s || script.startsWith(`${s}/`)) && normalize(join(workdir, c.dest)).startsWith(workdir));
    expect(copiedHere).toBe(true);
  });

  it('the .dockerignore keeps node_modules, test/, .git, the editor and local files out of the build context', () => {
    for (const p of ['node_modules', 'node_modules/tsx/package.json', 'test', 'test/deploy/rbac.test.ts', '.git', '.git/HEAD', 'editor', '.ci', 'README.md', 'deploy/Dockerfile']) {
      expect(dockerignored(ignorePatterns(), p), p).toBe(true);
    }
  });

  it('every module the CLI loads is copied into the image or is a production dependency', () => {
    const copied = copies().filter((c) => c.stage === finalStage()).flatMap((c) => c.sources);
    const { dependencies = {} } = pkg();
    const { files, packages } = importClosure(join(ROOT, pkg().bin.kpol));
    expect(files.length).toBeGreaterThan(100);
    const missing = files.map((f) => relative(ROOT, f)).filter((f) => !copied.some((s) => f === s || f.startsWith(`${s}/`)));
    expect(missing).toEqual([]);
    const builtins = new Set(builtinModules);
    const notInstalled = [...packages].filter((p) => !builtins.has(p) && !p.startsWith('node:') && !(p in dependencies));
    expect(notInstalled).toEqual([]);
    expect(copied).toContain('package.json'); // "type": "module", read by Node and tsx
  });

  it('the CLI starts with the image\'s environment when the temp folder cannot be written', () => {
    const env = Object.fromEntries(inFinal('ENV').map((i) => {
      const m = /^(\w+)[=\s]+(.*)$/.exec(i.args.trim())!;
      return [m[1], m[2].replace(/^"|"$/g, '')];
    }));
    // A folder inside a file: not even root can create it.
    const unwritable = join(ROOT, 'package.json', 'tmp');
    const start = (extra: Record<string, string>) => spawnSync(process.execPath, [join(ROOT, 'src/cli/bin.mjs'), 'run', '--help'], {
      cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...extra, TMPDIR: unwritable }, timeout: 60_000,
    });
    const withImageEnv = start(env);
    expect(withImageEnv.stderr).toBe('');
    expect(withImageEnv.status).toBe(0);
    expect(withImageEnv.stdout).toContain('usage: kpol run');
    // Without it tsx would try to create its cache there: the environment is what makes it work.
    expect(start({}).status).not.toBe(0);
  }, 120_000);
});

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
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), `${base}.ts`, join(base, 'index.ts')];
  const hit = candidates.find((c) => existsSync(c) && statSync(c).isFile());
  if (!hit) throw new Error(`${relative(ROOT, from)}: cannot resolve ${spec}`);
  return hit;
}
