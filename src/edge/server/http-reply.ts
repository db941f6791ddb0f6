// SPDX-License-Identifier: Apache-2.0
// Small HTTP helpers for the editor's routes: JSON replies, bounded JSON bodies, the bearer
// token and the Origin check every write goes through.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const MAX_BODY = 1 << 20; // a policy is text of a few kB; a megabyte is generous

export function reply(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...extra,
  });
  res.end(text);
}

/** A client error with the HTTP status it answers with. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
    throw new RequestError(415, 'the body must be application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new RequestError(413, 'the body is larger than 1 MiB');
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new RequestError(400, 'the body is not valid JSON');
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** `Authorization: Bearer <token>`, compared in constant time. */
export function hasToken(req: IncomingMessage, token: string): boolean {
  const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

/**
 * A browser always sends Origin on a cross-origin or non-GET fetch; a page elsewhere must not
 * be able to write even if it learnt the token. Clients without Origin (curl) rely on the token.
 */
export function originAllowed(req: IncomingMessage, origins: ReadonlySet<string>): boolean {
  const origin = req.headers.origin;
  return origin === undefined || origins.has(origin.toLowerCase());
}
