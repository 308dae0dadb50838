// A server in TypeScript: its time must land on src/check.ts's lines, never on line 1.
import * as http from 'node:http';
import { check } from './check.ts';

interface Reply {
  value: number;
}

const server = http.createServer((_req, res) => {
  const reply: Reply = { value: check('pw') };
  res.end(JSON.stringify(reply));
});
server.listen(Number(process.env.PORT ?? 3000));
