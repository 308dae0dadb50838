// The preload that makes an app's child processes open their inspectors (child-processes.ts), run
// in a real process tree: a parent started the way Hotline starts an app (its own inspector open)
// forks a child, spawns another `node` and starts a worker thread; each child process reports a loopback address, and none inherits
// the parent's inspector flags.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { type ChildInspector, ChildInspectors, parseReport } from '../../../src/core/app/child-processes.ts';
import { type AppMark, between } from '../../../src/core/inspector/loop-probe.ts';
import { waitFor } from '../../helpers/waits.ts';

test('parseReport keeps only what the preload writes, with a loopback address', () => {
  const good = { pid: 12, ppid: 11, kind: 'cluster', url: 'ws://127.0.0.1:4567/abc', argv: ['/app/server.js'] };
  assert.deepEqual(parseReport(JSON.stringify(good)), good);
  assert.equal(parseReport(JSON.stringify({ ...good, url: 'ws://0.0.0.0:4567/abc' })), undefined);
  assert.equal(parseReport(JSON.stringify({ ...good, url: 'ws://10.0.0.2:4567/abc' })), undefined);
  assert.equal(parseReport(JSON.stringify({ ...good, pid: '12' })), undefined);
  assert.equal(parseReport('{"pid": 1'), undefined);
  assert.equal(parseReport(JSON.stringify({ ...good, kind: 'other' }))?.kind, 'spawn');
});

test('env puts the preload after the app’s own NODE_OPTIONS, quoted', () => {
  const children = ChildInspectors.create();
  try {
    const env = children.env('--max-old-space-size=256');
    assert.match(env.NODE_OPTIONS, /^--max-old-space-size=256 --require ".*hotline-child-preload\.cjs"$/);
    assert.equal(env.HOTLINE_PROCESS_DIR, children.dir);
    assert.match(children.env(undefined).NODE_OPTIONS, /^--require "/);
  } finally {
    children.dispose();
  }
});

test(
  'a forked and a spawned child each report a loopback inspector; neither inherits the parent’s inspector flag',
  { timeout: 30_000 },
  async () => {
    const children = ChildInspectors.create();
    // The parent forks one child and spawns another node; each prints its execArgv and waits to be killed.
    const scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-child-test-'));
    const child = path.join(scripts, 'child.js');
    fs.writeFileSync(child, 'console.log(JSON.stringify(process.execArgv)); setTimeout(() => {}, 20000);\n');
    const parent = `
      const { fork, spawn } = require('node:child_process');
      fork(${JSON.stringify(child)});
      spawn(process.execPath, [${JSON.stringify(child)}], { stdio: 'inherit' });
      const worker = new (require('node:worker_threads').Worker)(
        "require('node:worker_threads').parentPort.postMessage('up'); setTimeout(() => {}, 20000)",
        { eval: true },
      );
      worker.once('message', () => console.log('worker up'));
      setTimeout(() => {}, 20000);`;
    const app = spawn(process.execPath, ['--inspect=127.0.0.1:0', '-e', parent], {
      env: { ...process.env, ...children.env(undefined) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    app.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const reports: ChildInspector[] = [];
    try {
      // The worker thread's preload ran before its script said 'up': a report of its would be
      // on disk by then (written synchronously), so its absence is decided, not waited out.
      await waitFor('both children reported and the worker thread is up', () => {
        reports.push(...children.newReports());
        return reports.length >= 2 && out.includes('worker up');
      });
      reports.push(...children.newReports());
      assert.equal(reports.length, 2, `two children reported, the worker thread did not: ${JSON.stringify(reports)}`);
      assert.deepEqual(reports.map((r) => r.kind).sort(), ['fork', 'spawn']);
      for (const r of reports) {
        assert.match(r.url, /^ws:\/\/127\.0\.0\.1:\d+\//);
        assert.notEqual(r.pid, app.pid, 'the parent (whose inspector is open) does not report');
      }
      assert.equal(new Set(reports.map((r) => new URL(r.url).port)).size, 2, 'each child has a port of its own');
      await waitFor(
        'both children printed their execArgv',
        () => out.split('\n').filter((l) => l.startsWith('[')).length >= 2,
      );
      for (const line of out.split('\n').filter((l) => l.startsWith('[')))
        assert.ok(!/--inspect/.test(line), `a child's execArgv: ${line}`);
    } finally {
      try {
        process.kill(-app.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      children.dispose();
      fs.rmSync(scripts, { recursive: true, force: true });
    }
  },
);

test("between: a sub-window's CPU adds each child's, counting only children marked at both edges", () => {
  const mark = (cpuUs: number, wallUs: number, children?: Record<number, number>): AppMark => ({
    cpuUs,
    idleMs: 0,
    activeMs: 0,
    wallUs,
    ...(children ? { children } : {}),
  });
  const a = mark(1_000_000, 0, { 11: 5_000_000, 12: 7_000_000, 13: 1_000_000 });
  // 12 is gone at the second edge, 14 was born in between: neither counts.
  const b = mark(1_100_000, 2_000_000, { 11: 6_000_000, 13: 1_500_000, 14: 9_000_000 });
  assert.equal(between(a, b).cpuS, 0.1 + 1 + 0.5);
  assert.equal(between(a, b).cpu, 1.6 / 2);
  assert.equal(between(mark(0, 0), mark(200_000, 1_000_000)).cpuS, 0.2, 'a single process as before');
});

test(
  'under a start command, only a process that listens opens an inspector; what it starts after that reports at once',
  { timeout: 30_000 },
  async () => {
    const children = ChildInspectors.create();
    const scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-command-test-'));
    const grandchild = path.join(scripts, 'grandchild.js');
    fs.writeFileSync(grandchild, 'setTimeout(() => {}, 20000);\n');
    // The server: listens, then forks a worker process (its child, started after it listened).
    const server = path.join(scripts, 'server.js');
    fs.writeFileSync(
      server,
      `require('node:http').createServer().listen(0, '127.0.0.1', () => {
        require('node:child_process').fork(${JSON.stringify(grandchild)});
        console.log('listening');
      });
      setTimeout(() => {}, 20000);\n`,
    );
    // The tool (a watcher, npm): starts the server, never listens; once the server listens it
    // prints whether it has an inspector open itself.
    const tool = `
      const child = require('node:child_process').spawn(process.execPath, [${JSON.stringify(server)}], { stdio: ['ignore', 'pipe', 'inherit'] });
      child.stdout.on('data', (d) => { if (String(d).includes('listening')) console.log('tool inspector: ' + JSON.stringify(require('node:inspector').url() ?? null)); });
      setTimeout(() => {}, 20000);`;
    const app = spawn(process.execPath, ['-e', tool], {
      env: { ...process.env, ...children.env(undefined, { command: true }) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    app.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    const reports: ChildInspector[] = [];
    try {
      const deadline = Date.now() + 20_000;
      while ((reports.length < 2 || !out.includes('tool inspector:')) && Date.now() < deadline) {
        reports.push(...children.newReports());
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.match(out, /tool inspector: null/, 'the tool that never listened has no inspector');
      assert.equal(reports.length, 2, JSON.stringify(reports));
      const listener = reports.find((r) => r.listening);
      assert.ok(listener, 'the server reported its port');
      assert.equal(listener.listening?.[0].address, '127.0.0.1');
      assert.equal(listener.ppid, app.pid);
      const later = reports.find((r) => r !== listener);
      assert.equal(later?.kind, 'fork');
      assert.equal(later?.ppid, listener.pid, 'the server’s child reports without listening');
      assert.equal(later?.listening, undefined);
      assert.ok(!reports.some((r) => r.pid === app.pid), 'the tool does not report');
    } finally {
      try {
        process.kill(-app.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      children.dispose();
      fs.rmSync(scripts, { recursive: true, force: true });
    }
  },
);
