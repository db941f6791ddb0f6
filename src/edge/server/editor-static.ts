// SPDX-License-Identifier: Apache-2.0
// Serves the built editor (editor/dist, made by Vite) under /editor/. Only files inside the
// build folder, by exact relative path; hashed assets are cached, index.html never is.
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { ServerResponse } from 'node:http';
import { packagePath } from '../../core/package-root.js';

export const EDITOR_DIST = packagePath('editor/dist/');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.ttf': 'font/ttf',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};

// Monaco injects style elements and loads its codicon font; workers come from our own origin.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Answers `path` (below /editor/) from `dist`; false when there is no such file. */
export async function serveEditorFile(
  res: ServerResponse,
  path: string,
  head: boolean,
  dist = EDITOR_DIST,
): Promise<boolean> {
  const rel = path === '' ? 'index.html' : path;
  const full = normalize(join(dist, rel));
  if (!full.startsWith(normalize(dist).replace(/[\\/]?$/, sep))) return false;
  const type = TYPES[extname(full)];
  if (!type) return false;
  let body: Buffer;
  try {
    body = await readFile(full);
  } catch {
    if (rel === 'index.html') {
      const text =
        'the editor is not built: kpol builds it at start when it can (see what it printed there), ' +
        'or run `node editor/build.mjs`\n';
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
      res.end(head ? undefined : text);
      return true;
    }
    return false;
  }
  res.writeHead(200, {
    'Content-Type': type,
    'Content-Length': body.length,
    'Cache-Control': rel.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...(type.startsWith('text/html') && { 'Content-Security-Policy': CSP }),
    // Cross-origin isolation, so the page may share memory with its check worker
    // (editor/src/answer-slot.ts). Every file comes from this origin; the worker's script needs
    // the embedder policy too.
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Embedder-Policy': 'require-corp',
  });
  res.end(head ? undefined : body);
  return true;
}
