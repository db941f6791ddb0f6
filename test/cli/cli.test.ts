// SPDX-License-Identifier: Apache-2.0
// The CLI contract: exit 0 ok, 1 findings, 2 usage or unreadable input; located errors and
// never a stack trace; `eval --output json` prints exactly one JSON object of the agreed shape.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';
import { seq } from '../support/regex.js';
import { COMMANDS } from '../../src/edge/cli/commands/index.js';

const tmp = mkdtempSync(join(tmpdir(), 'kpol-cli-'));
const file = (name: string, text: string) => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const DOCS = new URL('../fixtures/snapshots/docs-example.yaml', import.meta.url).pathname;
const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at .+:\d+:\d+/);

describe('help', () => {
  // Help is read in an 80–100 column terminal: a wrapped line there splits a flag from its value.
  it.each(['', ...Object.keys(COMMANDS)])('`kpol %s --help` prints no line over 100 columns', async (command) => {
    const r = await runCli(...(command ? [command] : []), '--help');
    const text = r.stdout + r.stderr;
    expect(text).toMatch(/usage: kpol/);
    expect(text.split('\n').filter((l) => l.length > 100)).toEqual([]);
  });
});

describe('exit codes and errors', () => {
  it('no command and unknown commands are usage errors (2)', async () => {
    expect((await runCli()).code).toBe(2);
    const r = await runCli('frobnicate');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command `frobnicate`\n');
  });
  it('a mistyped command is a usage error that names the command meant', async () => {
    const r = await runCli('chek', 'x.kpol');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('kpol: unknown command `chek`; did you mean `check`?');
  });
  it('an unknown flag is a usage error with the usage text', async () => {
    const r = await runCli('check', '--nope', 'x.kpol');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/usage: kpol check/);
  });
  it('a mistyped flag names the flag meant; a short one is not guessed', async () => {
    const r = await runCli('check', '--strct', 'x.kpol');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('kpol check: unknown option `--strct`; did you mean `--strict`?\n');
    const short = await runCli('eval', '-x');
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('kpol eval: unknown option `-x`\n');
    // With an inline value, and after a flag the command does take: the unknown one is named.
    const inline = await runCli('check', '--strict', '--formt=json', 'x.kpol');
    expect(inline.code).toBe(2);
    expect(inline.stderr).toContain('kpol check: unknown option `--formt`; did you mean `--format`?\n');
  });
  it('a missing file is exit 2 with its name', async () => {
    const r = await runCli('check', join(tmp, 'missing.kpol'));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('missing.kpol: no such file');
    noStack(r.stderr);
  });
  it('check: errors are located file:line:col with code, and exit 1', async () => {
    const p = file('bad.kpol', 'policy a for nodepool x {\n  budget 5 for Drifed\n}\n');
    const r = await runCli('check', p);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${p}:2:16: error KPOL2001`);
    expect(r.stderr).toContain('Drifted');
    noStack(r.stderr);
  });
  it('check --format json is machine readable', async () => {
    const p = file('bad2.kpol', 'policy a for nodepool x {\n  budget 0 during "0 9 * * 7" for 1h\n}\n');
    const r = await runCli('check', '--format', 'json', p);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.ok).toBe(false);
    expect(j.files[0].diagnostics[0]).toMatchObject({ code: 'KPOL2006', severity: 'error' });
  });
  it('a clean policy checks with exit 0', async () => {
    const r = await runCli('check', file('ok.kpol', 'policy a for nodepool x {\n  budget 10%\n}\n'));
    expect(r.code).toBe(0);
  });
  it('a garbage snapshot is a located error, not a crash', async () => {
    const r = await runCli('eval', '--cluster', file('garbage.yaml', 'items: [\n  {kind: Node\n'));
    expect(r.code).toBe(1); // bad input, not a usage error (issue 13)
    expect(r.stderr).toMatch(/garbage\.yaml:\d+:\d+/);
    noStack(r.stderr);
  });
  it('a bad --at is a usage error', async () => {
    const r = await runCli('eval', '--cluster', DOCS, '--at', 'tomorrow');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('RFC 3339');
  });
  it('eval refuses to evaluate with a broken policy (exit 1) and shows the diagnostics', async () => {
    const r = await runCli(
      'eval',
      '--cluster',
      DOCS,
      '--policy',
      file('broken.kpol', 'policy a for nodepool default {\n  budget 200%\n}\n'),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('KPOL2004');
  });
});

describe('eval --output json', () => {
  it('prints exactly one JSON object with every NodePool and Node', async () => {
    const r = await runCli('eval', '--cluster', DOCS, '--at', '2026-08-20T12:00:00Z', '--output', 'json');
    expect(r.code).toBe(0);
    const o = JSON.parse(r.stdout);
    expect(Object.keys(o).sort()).toEqual(['at', 'decisions', 'nodePools', 'nodes', 'warnings']);
    expect(o.at).toBe('2026-08-20T12:00:00Z');
    expect(o.nodePools.default).toMatchObject({
      nodes: 19,
      disrupting: 0,
      budgets: { Empty: 4, Drifted: 4, Underutilized: 5 },
      allowed: { Empty: 4, Drifted: 4, Underutilized: 5 },
      errors: [],
    });
    expect(Object.keys(o.nodes)).toHaveLength(19);
    for (const n of Object.values(o.nodes) as { candidate: boolean; reasons: string[] }[])
      expect(n.candidate).toBe(n.reasons.length > 0);
  });
  it('unlimited reasons are null', async () => {
    const p = file('drift-only.kpol', 'policy a for nodepool default {\n  budget 0 for Drifted\n}\n');
    const r = await runCli(
      'eval',
      '--cluster',
      DOCS,
      '--policy',
      p,
      '--at',
      '2026-08-20T12:00:00Z',
      '--output',
      'json',
    );
    const o = JSON.parse(r.stdout);
    expect(o.nodePools.default.budgets).toEqual({ Empty: null, Drifted: 0, Underutilized: null });
  });
});

describe('fmt, compile, explain, import/export', () => {
  it('fmt --check flags non-canonical files and --write fixes them idempotently', async () => {
    const p = file('ugly.kpol', 'policy  a  for nodepool x {budget 5\n}');
    expect((await runCli('fmt', '--check', p)).code).toBe(1);
    expect((await runCli('fmt', '--write', p)).code).toBe(0);
    expect((await runCli('fmt', '--check', p)).code).toBe(0);
  });
  it('compile prints a rule graph with the built-in layer and the policy rules', async () => {
    const r = await runCli(
      'compile',
      file('c.kpol', 'policy a for nodepool x {\n  budget 3 for Drifted during "@daily" for 1h\n}\n'),
    );
    expect(r.code).toBe(0);
    const g = JSON.parse(r.stdout);
    expect(g.kind).toBe('RuleGraph');
    expect(g.poolRules.map((x: { name: string }) => x.name)).toEqual([
      'fail-closed',
      'budget:b0',
      // every graph carries the rules that read `kpol pause` (rules/README.md §4.8)
      'pause:Empty',
      'pause:Drifted',
      'pause:Underutilized',
      'pause:Expired',
    ]);
    expect(g.nodeRules.map((x: { name: string }) => x.name)).toContain('pod-do-not-disrupt');
  });
  it('explain shows fired rules with fact values', async () => {
    const r = await runCli(
      'explain',
      '--cluster',
      DOCS,
      '--node',
      'ip-10-124-0-1.us-west-2.compute.internal',
      '--at',
      '2026-08-21T00:05:00Z',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('candidate for: Underutilized');
    expect(r.stdout).toMatch(
      seq(
        /✔ fired\s+NodePool default spec\.disruption\.budgets\[2\] /,
        /\{nodes: 0, reasons: \[Underutilized\], schedule: "@daily", duration: 10m\} → budget/,
      ),
    );
    expect(r.stdout).toContain('Underutilized: allowed 0');
    expect(r.stdout).not.toMatch(/budget:b\d/);
  });
  it("explain names a .kpol policy's budgets and windows by their statements and file:line", async () => {
    const policy = file(
      'explained.kpol',
      'policy p for nodepool default {\n  budget 20% for Empty, Drifted\n  budget 0 for ' +
        'Underutilized during "@daily" for 10m\n}\n',
    );
    const r = await runCli(
      'explain',
      '--cluster',
      DOCS,
      '--policy',
      policy,
      '--node',
      'ip-10-124-0-1.us-west-2.compute.internal',
      '--at',
      '2026-08-21T00:05:00Z',
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`✔ fired  budget 20% for Empty, Drifted (${policy}:2) → budget`);
    expect(r.stdout).toContain(
      `✔ window open: budget 0 for Underutilized during "@daily" for 10m (${policy}:3) (now open)`,
    );
    expect(r.stdout).not.toMatch(/budget:b\d|window:b\d/);
    const json = JSON.parse(
      (
        await runCli(
          'explain',
          '--cluster',
          DOCS,
          '--policy',
          policy,
          '--node',
          'ip-10-124-0-1.us-west-2.compute.internal',
          '--at',
          '2026-08-21T00:05:00Z',
          '--output',
          'json',
        )
      ).stdout,
    );
    expect(json.poolRules.find((x: { rule: string }) => x.rule === 'budget:b0').statement).toBe(
      `budget 20% for Empty, Drifted (${policy}:2)`,
    );
  });
  it.each([
    ['a NodeClaim name', 'default-aaaa0'],
    ['a providerID', 'aws:///us-west-2a/i-0000000007c000000'],
    ['an instance id', 'i-0000000007c000000'],
  ])('explain finds the node by %s', async (_what, query) => {
    const r = await runCli('explain', '--cluster', DOCS, '--node', query, '--at', '2026-08-21T00:05:00Z');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(
      'node ip-10-124-0-1.us-west-2.compute.internal (NodeClaim default-aaaa0, ' +
        'aws:///us-west-2a/i-0000000007c000000; NodePool default, policy nodepool/default)',
    );
  });
  it('explain of an unknown node is exit 2, saying what --node takes and which nodes there are', async () => {
    const r = await runCli('explain', '--cluster', DOCS, '--node', 'nope');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no Node, NodeClaim, providerID or instance id `nope`');
    expect(r.stderr).toContain('its nodes: ip-10-124-0-1.us-west-2.compute.internal');
  });
  it('import then export reproduces the NodePool budgets', async () => {
    const imp = await runCli('import', DOCS);
    expect(imp.code).toBe(0);
    const exp = await runCli('export', file('imported.kpol', imp.stdout));
    expect(exp.code).toBe(0);
    expect(exp.stdout).toContain('schedule: "@daily"');
    expect(exp.stdout).toContain('nodes: 20%');
  });
  it(
    'export without --base warns on stderr that the NodePool has no nodeClassRef or ' + 'requirements (exit 0)',
    async () => {
      const p = file('plain.kpol', 'policy a for nodepool web, batch {\n  budget 5\n}\n');
      const r = await runCli('export', p);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('name: web');
      for (const pool of ['web', 'batch']) {
        expect(r.stderr).toContain(
          `kpol export: warning: NodePool ${pool} has no spec.template.spec.nodeClassRef and ` +
            `spec.template.spec.requirements, which the NodePool CRD requires`,
        );
      }
      expect(r.stderr).toContain('pass --base NODEPOOL.yaml');
      const base = file(
        'base.yaml',
        'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: { name: web }\nspec:\n  ' +
          'template:\n    spec:\n      nodeClassRef: { group: karpenter.k8s.aws, kind: EC2NodeClass, ' +
          'name: default }\n      requirements: []\n',
      );
      const withBase = await runCli('export', '--base', base, p);
      expect(withBase.code).toBe(0);
      expect(withBase.stderr).not.toContain('warning');
      const selector = await runCli(
        'export',
        file('sel.kpol', 'policy a for nodepools where team = "x" {\n  budget 5\n}\n'),
      );
      expect(selector.code).toBe(0);
      expect(selector.stderr).toContain(
        'warning: it selects NodePools by label, so there is no NodePool to write without --base',
      );
    },
  );
  it('export reports what Karpenter cannot express, and --strict fails on it', async () => {
    const p = file(
      'tz.kpol',
      'policy a for nodepool x {\n  allow 3 Drifted only during "0 1 * * *" for 4h in "Europe/Berlin"\n}\n',
    );
    const r = await runCli('export', p);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/daylight saving/);
    expect((await runCli('export', '--strict', p)).code).toBe(1);
  });
});

describe('kpol test --coverage', () => {
  it('reports which rules fired across the fixtures, and which never did', async () => {
    const r = await runCli(
      'test',
      '--coverage',
      new URL('../../rules/examples/zone-freeze.test.yaml', import.meta.url).pathname,
    );
    expect(r.code).toBe(0);
    const m = /rule coverage: (\d+)\/(\d+) rules fired/.exec(r.stdout);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThan(0);
    expect(Number(m![1])).toBeLessThan(Number(m![2]));
    // the fixture exercises its maintenance windows…
    expect(r.stdout).not.toMatch(/never fired: zone-freeze:maintenance:/);
    expect(r.stdout).toMatch(/never fired: zone-freeze:queued/); // …and the queue rule cannot without a reconciler
    expect(r.stdout.trimEnd().split('\n').pop()).toMatch(/^\d+ passed, 0 failed$/);
  });
});
