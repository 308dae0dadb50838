// esbuild, file by file to CommonJS: calls of imports become `(0, import_hash.hot)(…)`.
import * as http from 'node:http';
import { hot } from './hash';

function handle(): number {
  const a = hot(20000); // truth total 2
  const b = hot(10000); // truth total 1
  return a[0] ^ b[0];
}

http.createServer((_req, res) => res.end(String(handle()))).listen(process.env.PORT);
