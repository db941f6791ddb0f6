// SPDX-License-Identifier: Apache-2.0
// Decoding a watch response: newline-delimited JSON events. A line that is not a well-formed
// event is reported and skipped — one bad line from a proxy or a buggy server must never end
// the watch or the process (client-node's own informer throws on such lines).
import type { KubeObject } from '../../core/cluster/types.js';
import { typed, type Resource } from './api-resources.js';

export type DecodedEvent =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject }
  | { type: 'BOOKMARK'; resourceVersion: string }
  | { type: 'ERROR'; status: { code?: number; reason?: string; message?: string } }
  | { type: 'MALFORMED'; line: string; problem: string };

/** The lines of a streamed body, split on newlines as they arrive. */
export async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = '';
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (line) yield line;
      }
    }
    const rest = (buffered + decoder.decode()).trim();
    if (rest) yield rest;
  } finally {
    reader.releaseLock();
  }
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** One watch line as an event, or MALFORMED with what is wrong with it. */
export function decodeEvent(line: string, res: Resource): DecodedEvent {
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch {
    return { type: 'MALFORMED', line, problem: 'not JSON' };
  }
  if (!isRecord(data) || typeof data.type !== 'string' || !isRecord(data.object))
    return { type: 'MALFORMED', line, problem: 'not a watch event' };
  const obj = data.object;
  const meta = isRecord(obj.metadata) ? obj.metadata : undefined;
  switch (data.type) {
    case 'ERROR':
      return { type: 'ERROR', status: obj as { code?: number; reason?: string; message?: string } };
    case 'BOOKMARK':
      if (typeof meta?.resourceVersion !== 'string')
        return { type: 'MALFORMED', line, problem: 'bookmark without resourceVersion' };
      return { type: 'BOOKMARK', resourceVersion: meta.resourceVersion };
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      if (typeof meta?.name !== 'string' || typeof meta.resourceVersion !== 'string')
        return { type: 'MALFORMED', line, problem: 'object without metadata.name or metadata.resourceVersion' };
      return { type: data.type, object: typed<KubeObject>(obj, res) };
    default:
      return { type: 'MALFORMED', line, problem: `unknown event type \`${data.type}\`` };
  }
}
