// A minified bundle (everything on one line) of two pure-JS loops in two functions, 2:1 by their
// trips: V8's position ticks all say line 1; the lines must come back in src/.
import * as http from 'node:http';
import { long, short } from './loops.js';

http.createServer((_req, res) => res.end(String(long(7) ^ short(11)))).listen(process.env.PORT);
