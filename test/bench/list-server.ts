// SPDX-License-Identifier: Apache-2.0
// For the informer line of peak-rss.ts: a process that answers the list and watch requests of
// kpol's informers with the generated cluster dressed as the API server returns it
// (api-objects.ts), so the controller's process holds only what its caches keep. It implements
// no more of the API than paged lists (`limit`/`continue`) and a watch that stays open and
// quiet; the 150,000 pods could not be stored in the real control plane on this machine.
// `node --import tsx list-server.ts NODES` prints the port, then serves until killed.
import { createServer } from 'node:http';
import { RESOURCES, resourcePath } from '../../src/edge/kube/api-resources.js';
import { asListed } from './api-objects.js';
import { generateCluster } from './generate.js';

const nodes = Number(process.argv[2]);
const objects = generateCluster({ pools: Math.max(1, Math.round(nodes / 50)), nodes, pods: nodes * 30 });
const byPath = new Map<string, KubeLike[]>();
type KubeLike = { kind: string };
for (const res of Object.values(RESOURCES)) byPath.set(resourcePath(res), []);
for (const o of objects) byPath.get(resourcePath(RESOURCES[o.kind as keyof typeof RESOURCES]))?.push(o);

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const items = byPath.get(url.pathname);
  if (req.method !== 'GET' || !items) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"kind":"Status","code":404}');
    return;
  }
  if (url.searchParams.get('watch')) {
    res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders(); // open and quiet until the client leaves
    return;
  }
  const limit = Number(url.searchParams.get('limit') ?? items.length);
  const from = Number(url.searchParams.get('continue') || 0);
  const page = asListed(items.slice(from, from + limit) as never, from);
  const next = from + limit < items.length ? String(from + limit) : undefined;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ metadata: { resourceVersion: '100000', continue: next }, items: page }));
});
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`${typeof addr === 'object' && addr ? addr.port : 0}\n`);
});
