// One bundle (not minified) with a source map: one helper from another module called from two
// lines of a handler with 2:1 rounds.
import * as http from 'node:http';
import { digest } from './digest';

function handle(user: string): number {
  const strong = digest(user, 40000); // truth total 2
  const weak = digest(user, 20000); // truth total 1
  return strong[0] ^ weak[0];
}

http.createServer((req, res) => res.end(String(handle(req.url ?? '/')))).listen(process.env.PORT);
