// Issue 20, item 4: does a CPU-bound neighbour stretch the long call of two `pbkdf2Sync` calls of
// 2:1 beyond its share, with no Hotline attached? The app times each call itself (wall:
// process.hrtime; CPU: process.cpuUsage, the process's, which is the main thread's here: the
// calls run there and nothing else is busy) and keeps the sums; autocannon in this process loads
// it (8 connections). Runs alternate quiet / beside one CPU-bound process. Prints, per run, the
// long call's share of the two calls' wall time and of their CPU time.
//
//   node --import tsx bench/call-stretch.ts        (HOTLINE_BENCH_QUICK=1: 2 runs a side, else 5)
import { fork } from 'node:child_process';
import autocannon from 'autocannon';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PAIRS, burner, mean, round, tmpDir } from './common.ts';

const WARM_S = 2;
const MEASURE_S = 15;
const CONNECTIONS = 8;

/** The app: two calls of 20000 and 10000 iterations per request, each timed by the app itself. */
const APP = `
const http = require('node:http');
const crypto = require('node:crypto');
const sums = { wallLong: 0, wallShort: 0, cpuLong: 0, cpuShort: 0, requests: 0 };
const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };
function check(password) {
  const t0 = process.hrtime.bigint(), c0 = cpu();
  const strong = crypto.pbkdf2Sync(password, 'salt', 20000, 64, 'sha512');
  const t1 = process.hrtime.bigint(), c1 = cpu();
  const weak = crypto.pbkdf2Sync(password, 'salt', 10000, 64, 'sha512');
  const t2 = process.hrtime.bigint(), c2 = cpu();
  sums.wallLong += Number(t1 - t0); sums.wallShort += Number(t2 - t1);
  sums.cpuLong += c1 - c0; sums.cpuShort += c2 - c1;
  sums.requests++;
  return strong[0] ^ weak[0];
}
const server = http.createServer((req, res) => res.end(String(check('pw'))));
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'reset') for (const k of Object.keys(sums)) sums[k] = 0;
  if (m === 'report') process.send({ sums });
});
`;

interface Shares {
  wallPct: number;
  cpuPct: number;
  requests: number;
}

async function oneRun(appFile: string): Promise<Shares> {
  const app = fork(appFile, [], { stdio: 'ignore' });
  // Bounded: a run that does not report in time is killed, never waited on forever.
  const guard = setTimeout(() => app.kill('SIGKILL'), (WARM_S + MEASURE_S + 30) * 1000);
  try {
    const port = await new Promise<number>((resolve, reject) => {
      app.once('message', (m: { port: number }) => resolve(m.port));
      app.once('exit', () => reject(new Error('the app exited before listening')));
    });
    const url = `http://127.0.0.1:${port}/`;
    await autocannon({ url, connections: CONNECTIONS, duration: WARM_S });
    app.send('reset');
    await autocannon({ url, connections: CONNECTIONS, duration: MEASURE_S });
    const { sums } = await new Promise<{ sums: Record<string, number> }>((resolve, reject) => {
      app.on('message', (m: { sums?: Record<string, number> }) => m.sums && resolve({ sums: m.sums }));
      app.once('exit', () => reject(new Error('the app exited before it reported')));
      app.send('report');
    });
    return {
      wallPct: (100 * sums.wallLong) / (sums.wallLong + sums.wallShort),
      cpuPct: (100 * sums.cpuLong) / (sums.cpuLong + sums.cpuShort),
      requests: sums.requests,
    };
  } finally {
    clearTimeout(guard);
    app.kill('SIGKILL');
  }
}

async function main(): Promise<void> {
  const dir = tmpDir('hotline-call-stretch-');
  const appFile = path.join(dir, 'app.js');
  fs.writeFileSync(appFile, APP);
  const runs: Record<'quiet' | 'burner', Shares[]> = { quiet: [], burner: [] };
  try {
    for (let i = 0; i < PAIRS; i++) {
      for (const side of ['quiet', 'burner'] as const) {
        const stopBurner = side === 'burner' ? burner() : undefined;
        try {
          const s = await oneRun(appFile);
          runs[side].push(s);
          console.log(
            `${side.padEnd(6)} run ${i + 1}: long call ${round(s.wallPct, 2)}% of the wall time, ${round(s.cpuPct, 2)}% of the CPU (${s.requests} requests)`,
          );
        } finally {
          stopBurner?.();
        }
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  for (const side of ['quiet', 'burner'] as const) {
    const r = runs[side];
    console.log(
      `${side}: wall ${round(mean(r.map((s) => s.wallPct)), 2)}% (${round(Math.min(...r.map((s) => s.wallPct)), 2)}–${round(Math.max(...r.map((s) => s.wallPct)), 2)}), CPU ${round(mean(r.map((s) => s.cpuPct)), 2)}% (${round(Math.min(...r.map((s) => s.cpuPct)), 2)}–${round(Math.max(...r.map((s) => s.cpuPct)), 2)})`,
    );
  }
}

void main();
