// SPDX-License-Identifier: Apache-2.0
// Decoding watch streams: lines split across chunks, and every kind of bad line reported as
// MALFORMED instead of thrown.
import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/edge/kube/api-resources.js';
import { decodeEvent, lines } from '../../src/edge/kube/watch-events.js';

const streamOf = (chunks: string[]): ReadableStream<Uint8Array> => {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const x of chunks) c.enqueue(enc.encode(x));
      c.close();
    },
  });
};

const collect = async (s: ReadableStream<Uint8Array>): Promise<string[]> => {
  const out: string[] = [];
  for await (const l of lines(s)) out.push(l);
  return out;
};

describe('lines', () => {
  it(
    'joins a line split across chunks, splits chunks holding several lines, keeps a last line ' + 'without newline',
    async () => {
      expect(await collect(streamOf(['{"a":', '1}\n{"b":2}\n\n{"c"', ':3}']))).toEqual([
        '{"a":1}',
        '{"b":2}',
        '{"c":3}',
      ]);
    },
  );

  it('decodes a multi-byte character split between chunks', async () => {
    const bytes = new TextEncoder().encode('"é"\n');
    const s = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, 2));
        c.enqueue(bytes.slice(2));
        c.close();
      },
    });
    expect(await collect(s)).toEqual(['"é"']);
  });
});

describe('decodeEvent', () => {
  const pod = RESOURCES.Pod;
  const meta = { name: 'web-1', namespace: 'default', resourceVersion: '42' };

  it('fills in apiVersion and kind, which the server leaves out of built-in watch objects', () => {
    const e = decodeEvent(JSON.stringify({ type: 'MODIFIED', object: { metadata: meta, spec: {} } }), pod);
    expect(e).toEqual({ type: 'MODIFIED', object: { apiVersion: 'v1', kind: 'Pod', metadata: meta, spec: {} } });
  });

  it('reads bookmarks and errors', () => {
    expect(decodeEvent('{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"77"}}}', pod)).toEqual({
      type: 'BOOKMARK',
      resourceVersion: '77',
    });
    expect(
      decodeEvent(
        '{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too ' +
          'old resource version: 1 (2)"}}',
        pod,
      ),
    ).toEqual({
      type: 'ERROR',
      status: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 1 (2)' },
    });
  });

  it.each([
    ['{"type":"ADDED","object":{"metadata":', 'not JSON'],
    ['[1,2]', 'not a watch event'],
    ['{"type":"ADDED"}', 'not a watch event'],
    ['{"type":"ADDED","object":{"metadata":{"name":"x"}}}', 'object without metadata.name or metadata.resourceVersion'],
    ['{"type":"ADDED","object":{"spec":{}}}', 'object without metadata.name or metadata.resourceVersion'],
    ['{"type":"BOOKMARK","object":{}}', 'bookmark without resourceVersion'],
    ['{"type":"RENAMED","object":{"metadata":{"name":"x","resourceVersion":"1"}}}', 'unknown event type `RENAMED`'],
  ])('%s is MALFORMED (%s)', (line, problem) => {
    expect(decodeEvent(line, pod)).toEqual({ type: 'MALFORMED', line, problem });
  });
});
