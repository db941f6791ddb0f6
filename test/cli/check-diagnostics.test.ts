// SPDX-License-Identifier: Apache-2.0
// `kpol check` for people and for CI: an unknown zone fails the check, --strict fails on
// warnings, diagnostics come in source order, in colour only on a terminal without NO_COLOR.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/edge/cli/main.js';
import { colorFor } from '../../src/edge/cli/shared/io.js';

const tmp = mkdtempSync(join(tmpdir(), 'kpol-check-'));
const file = (name: string, text: string) => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};

async function check(argv: string[], errColor = false) {
  let stdout = '';
  let stderr = '';
  const code = await main(['check', ...argv], {
    out: (t) => {
      stdout += `${t}\n`;
    },
    err: (t) => {
      stderr += `${t}\n`;
    },
    isTTY: errColor,
    errColor,
  });
  return { code, stdout, stderr };
}

const ESC = '\x1b[';
const WARNING_ONLY = 'policy a for nodepool x {\n  budget 0 for Drifted\n}\n'; // KPOL3004 twice

describe('kpol check', () => {
  it('fails on an unknown time zone: its windows could never be computed', async () => {
    const r = await check([file('zone.kpol', 'policy a for nodepool x {\n  timezone "Europe/Berln"\n  budget 1\n}\n')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'zone.kpol:2:12: error KPOL2026: unknown time zone `Europe/Berln`, so its windows can ' +
        'never be computed and fail closed',
    );
    expect(r.stderr).toContain('help: did you mean `Europe/Berlin`?');
  });

  it('passes warnings by default; --strict and --deny-warnings fail on them', async () => {
    const p = file('warn.kpol', WARNING_ONLY);
    expect((await check([p])).code).toBe(0);
    const strict = await check(['--strict', p]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('1 file(s): 0 error(s), 2 warning(s); warnings fail the check (--strict)');
    expect((await check(['--deny-warnings', p])).code).toBe(1);
    expect((await check(['--strict', '--format', 'json', p])).code).toBe(1);
    expect((await check(['--strict', file('clean.kpol', 'policy a for nodepool x {\n  budget 10%\n}\n')])).code).toBe(
      0,
    );
  });

  it('prints a file’s syntax errors and checker reports together, in source order', async () => {
    const r = await check([
      file('order.kpol', 'policy a for nodepool x {\n  budget 5 for Drifed\n  budjet 1\n  budget 2 for Empyt\n}\n'),
    ]);
    const headers = r.stderr
      .split('\n')
      .filter((l) => l.startsWith(tmp))
      .map((l) => l.slice(tmp.length + 1).split(': ')[0]);
    expect(headers).toEqual(['order.kpol:2:16', 'order.kpol:3:3', 'order.kpol:4:16']);
  });

  it('colours diagnostics only when asked to, and never in JSON', async () => {
    const p = file('colour.kpol', 'policy a for nodepool x {\n  budget 5 for Drifed\n}\n');
    const coloured = await check([p], true);
    expect(coloured.stderr).toContain(`${ESC}1;31merror KPOL2001:`);
    expect(coloured.stderr).toContain(`${ESC}1;36mhelp:`);
    expect((await check([p], false)).stderr).not.toContain(ESC);
    const json = await check(['--format', 'json', p], true);
    expect(json.stdout).not.toContain(ESC);
    expect(json.stderr).toBe('');
  });
});

describe('colorFor', () => {
  it.each([
    [true, {}, true],
    [false, {}, false],
    [undefined, {}, false],
    [true, { NO_COLOR: '1' }, false],
    [true, { NO_COLOR: '' }, true], // no-color.org: only a non-empty value turns colour off
  ])('isTTY %s, env %j → %s', (isTTY, env, expected) => {
    expect(colorFor({ isTTY }, env)).toBe(expected);
  });
});
