// The real database servers the data-store tests need (test/helpers/datastores.ts) and the API
// over them (test/apps/datastores): each server starts on 127.0.0.1 as its own user, each route
// waits at least its constructed time on its server, and stopping leaves no server process and no
// data folder behind.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { test } from 'node:test';
import { startDatastores } from '../helpers/datastores.ts';
import { REPO_ROOT } from '../helpers/integration.ts';

const APP = path.join(REPO_ROOT, 'test', 'apps', 'datastores');
const WAIT_MS = 50;

function get(port: number, route: string): Promise<{ status: number; ms: number }> {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: route, timeout: 10_000 }, (res) => {
        res
          .resume()
          .on('end', () => resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - start) / 1e6 }));
      })
      .on('timeout', function (this: http.ClientRequest) {
        this.destroy(new Error(`${route}: no answer in 10 s`));
      })
      .on('error', reject);
  });
}

const running = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test(
  'PostgreSQL, Redis and MariaDB on 127.0.0.1: every route waits its time; stopped, nothing is left',
  { timeout: 240_000 },
  async () => {
    const stores = await startDatastores();
    const app = spawn(process.execPath, ['server.js'], {
      cwd: APP,
      env: { ...process.env, ...stores.env, PORT: '0', WAIT_MS: String(WAIT_MS) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        app.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on (\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        app.once('exit', (code) => reject(new Error(`the app exited with ${code}`)));
      });
      for (const s of Object.values(stores.servers)) {
        assert.ok(running(s.pid), `${s.kind} runs`);
        if (process.getuid?.() === 0) assert.notEqual(fs.statSync(`/proc/${s.pid}`).uid, 0, `${s.kind} is not root`);
      }
      for (const route of ['/pg', '/redis', '/mariadb', '/pool']) {
        const r = await get(port, route);
        assert.equal(r.status, 200, route);
        assert.ok(r.ms >= WAIT_MS * 0.95, `${route} took ${r.ms.toFixed(1)} ms, at least its ${WAIT_MS} ms wait`);
      }
      assert.equal((await get(port, '/n1')).status, 200);
      assert.equal((await get(port, '/nope')).status, 404);
    } finally {
      app.kill('SIGKILL');
      await stores.stop();
    }
    for (const s of Object.values(stores.servers)) {
      assert.equal(running(s.pid), false, `${s.kind} stopped`);
      assert.equal(fs.existsSync(s.dir), false, `${s.kind}'s folder removed`);
    }
  },
);
