// SPDX-License-Identifier: Apache-2.0
// Mounts the browser editor on the status server: the built page and assets under /editor/
// (public: they hold no cluster data) and the token-protected JSON API under /api/editor/.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EditorApi, type EditorApiOptions } from './editor-api.js';
import { serveEditorFile } from './editor-static.js';
import { reply } from './http-reply.js';
import type { ExtraRoutes } from './status-server.js';

export function editorRoutes(o: EditorApiOptions & { dist?: string }): ExtraRoutes {
  const api = new EditorApi(o);
  return async (req: IncomingMessage, res: ServerResponse, url: URL, origins: ReadonlySet<string>) => {
    if (url.pathname.startsWith('/api/editor/')) {
      await api.handle(req, res, url, origins);
      return true;
    }
    if (url.pathname === '/editor') {
      res.writeHead(308, { Location: '/editor/' });
      res.end();
      return true;
    }
    if (!url.pathname.startsWith('/editor/')) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    let path: string;
    try {
      path = decodeURIComponent(url.pathname.slice('/editor/'.length));
    } catch {
      // `%zz`, a lone `%`, a cut multi-byte sequence: the client's mistake, not a server error.
      reply(res, 400, { error: 'the path is not valid percent-encoding' });
      return true;
    }
    return serveEditorFile(res, path, req.method === 'HEAD', o.dist);
  };
}
