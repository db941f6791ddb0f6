// SPDX-License-Identifier: Apache-2.0
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { createLogger, type LogLevel } from '../../src/core/observe/logger.js';

const T0 = Date.UTC(2026, 2, 29, 1, 30, 0, 250);

function setup(level?: LogLevel) {
  const lines: string[] = [];
  const clock = new FakeClock(T0);
  return { lines, clock, log: createLogger({ clock, sink: (l) => lines.push(l), level }) };
}

describe('logger', () => {
  it('writes one JSON object per line with level, time, msg first', () => {
    const { lines, log } = setup();
    log.info('reconciled', { nodes: 3, pool: 'default' });
    expect(lines).toEqual([
      '{"level":"info","time":"2026-03-29T01:30:00.250Z","msg":"reconciled","nodes":3,"pool":"default"}',
    ]);
    expect(lines[0]).not.toContain('\n');
  });

  it('takes time from the injected clock', () => {
    const { lines, clock, log } = setup();
    clock.advance(3_600_000);
    log.warn('later');
    expect(JSON.parse(lines[0]).time).toBe('2026-03-29T02:30:00.250Z');
    expect(JSON.parse(lines[0]).time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
  });

  it.each([
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['info', ['info', 'warn', 'error']],
    ['warn', ['warn', 'error']],
    ['error', ['error']],
  ] as const)('level %s keeps %j', (level, kept) => {
    const { lines, log } = setup(level);
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    expect(lines.map((l) => JSON.parse(l).level)).toEqual(kept);
  });

  it('child loggers add fields; call fields win; reserved keys are not overwritten', () => {
    const { lines, log } = setup();
    log.child({ controller: 'disruption', pool: 'a' }).info('x', { pool: 'b', msg: 'sneaky', level: 'error' });
    expect(JSON.parse(lines[0])).toEqual({
      level: 'info',
      time: '2026-03-29T01:30:00.250Z',
      msg: 'x',
      controller: 'disruption',
      pool: 'b',
      'fields.msg': 'sneaky',
      'fields.level': 'error',
    });
  });

  it('serialises errors, bigints, newlines and cycles without throwing', () => {
    const { lines, log } = setup();
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    log.error('failed\nbadly', { err: new Error('boom'), big: 10n, cyclic });
    expect(lines).toHaveLength(1);
    const o = JSON.parse(lines[0]);
    expect(o.msg).toBe('failed\nbadly');
    expect(o.err.message).toBe('boom');
    expect(o.big).toBe('10');
    expect(o.cyclic.self).toBe('[Circular]');
  });
});
