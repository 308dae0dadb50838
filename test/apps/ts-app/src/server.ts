// ts-app: a TypeScript HTTP server, compiled by esbuild to dist/ with
// external source maps. Routes:
//   GET /work  -> pure-JS checksum loop in src/hot.ts (CPU heavy)
//   GET /json  -> JSON.stringify of a ~2 MB catalog built at startup
//   GET /ok    -> cheap

import * as http from 'node:http';
import { buildCatalog, doWork, type CatalogItem } from './hot';

type Handler = (res: http.ServerResponse) => void;

const PORT: number = Number(process.env.PORT) || 3000;

const catalog: CatalogItem[] = buildCatalog(15_000);

function sendJson(res: http.ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
}

const routes: Record<string, Handler> = {
  '/work': (res) => sendJson(res, JSON.stringify(doWork())),
  '/json': (res) => sendJson(res, JSON.stringify(catalog)),
  '/ok': (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  },
};

const server = http.createServer((req, res) => {
  const { pathname } = new URL(req.url ?? '/', 'http://localhost');
  const handler = routes[pathname];
  if (req.method !== 'GET' || !handler) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found\n');
    return;
  }
  handler(res);
});

server.listen(PORT, () => {
  console.log(`ts-app listening on http://127.0.0.1:${PORT}`);
});
