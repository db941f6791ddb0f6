// SPDX-License-Identifier: Apache-2.0
// Structured logs: one JSON object per line, `level`, `time` (RFC 3339 from the injected
// clock, so simulated runs log simulated time), `msg`, then the fields. The sink is injected:
// stdout in the CLI, an array in tests.
import type { Clock } from '../clock.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFields = Record<string, unknown>;
export type LogSink = (line: string) => void;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line (the call's own fields win). */
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  clock: Clock;
  /** Receives one line without the trailing newline. */
  sink: LogSink;
  /** Lines below this level are dropped. Default `info`. */
  level?: LogLevel;
  fields?: LogFields;
}

const RESERVED = new Set(['level', 'time', 'msg']);

/** Errors serialise to `{}` by default; bigints and cycles would make JSON.stringify throw. */
function replacer(): (key: string, value: unknown) => unknown {
  const seen = new WeakSet<object>();
  return (_key, value) => {
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
    }
    return value;
  };
}

export function createLogger(options: LoggerOptions): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level ?? 'info');
  if (threshold < 0) throw new Error(`unknown log level "${options.level}"`);
  const base = options.fields ?? {};

  const write = (level: LogLevel, msg: string, fields: LogFields = {}): void => {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const line: LogFields = { level, time: new Date(options.clock.now()).toISOString(), msg };
    for (const [k, v] of Object.entries({ ...base, ...fields })) {
      // A field named like a reserved key must not overwrite it; keep it under a prefix.
      line[RESERVED.has(k) ? `fields.${k}` : k] = v;
    }
    options.sink(JSON.stringify(line, replacer()));
  };

  return {
    debug: (msg, fields) => write('debug', msg, fields),
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
    child: (fields) => createLogger({ ...options, fields: { ...base, ...fields } }),
  };
}
