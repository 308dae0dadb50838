// The pure parts of attaching and of external load commands: what --attach accepts, how /proc's
// TCP tables read, which load commands are refused and what of them is recorded.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { parseAttachTarget, remoteHostOf } from '../../../src/core/app/attach.ts';
import { decodeAddress, listeningSockets, nodeProcessesIn, parseTcpTable } from '../../../src/core/app/proc-net.ts';
import { commandArgv, redactArgv } from '../../../src/core/load/external.ts';
import { LoadError } from '../../../src/core/load/load-run.ts';
import { RunError } from '../../../src/core/common/run-error.ts';

test('--attach takes a ws:// URL, a port, host:port, pid:N, or a bare number (port or pid, decided later)', () => {
  assert.deepEqual(parseAttachTarget('ws://127.0.0.1:9229/8a9f-11'), {
    kind: 'ws',
    url: 'ws://127.0.0.1:9229/8a9f-11',
    host: '127.0.0.1',
  });
  assert.deepEqual(parseAttachTarget('port:9230'), { kind: 'port', host: '127.0.0.1', port: 9230 });
  assert.deepEqual(parseAttachTarget('localhost:9229'), { kind: 'port', host: 'localhost', port: 9229 });
  assert.deepEqual(parseAttachTarget('[::1]:9229'), { kind: 'port', host: '::1', port: 9229 });
  assert.deepEqual(parseAttachTarget('http://10.0.0.5:9229/'), { kind: 'port', host: '10.0.0.5', port: 9229 });
  assert.deepEqual(parseAttachTarget(' pid:4242 '), { kind: 'pid', pid: 4242 });
  assert.deepEqual(parseAttachTarget('9229'), { kind: 'number', value: 9229 });
  for (const bad of ['', 'node', 'pid:', 'port:70000', '127.0.0.1:0', '-5', 'ws://']) {
    assert.throws(
      () => parseAttachTarget(bad),
      (e: unknown) => e instanceof RunError && e.kind === 'bad-options',
      bad,
    );
  }
});

test('only inspectors off this machine count as remote', () => {
  assert.equal(remoteHostOf(parseAttachTarget('ws://127.0.0.1:9229/x')), undefined);
  assert.equal(remoteHostOf(parseAttachTarget('[::1]:9229')), undefined);
  assert.equal(remoteHostOf(parseAttachTarget('localhost:9229')), undefined);
  assert.equal(remoteHostOf(parseAttachTarget('pid:1')), undefined);
  assert.equal(remoteHostOf(parseAttachTarget('ws://192.168.1.20:9229/x')), '192.168.1.20');
  assert.equal(remoteHostOf(parseAttachTarget('devbox:9229')), 'devbox');
});

test('/proc/net/tcp{,6} addresses: little-endian words, IPv4-mapped shown as such', () => {
  assert.equal(decodeAddress('0100007F'), '127.0.0.1');
  assert.equal(decodeAddress('00000000'), '0.0.0.0');
  assert.equal(decodeAddress('00000000000000000000000001000000'), '::1');
  assert.equal(decodeAddress('00000000000000000000000000000000'), '::');
  assert.equal(decodeAddress('0000000000000000FFFF00000100007F'), '::ffff:127.0.0.1');
  const table = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:A815 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 16805156 1 000000005f17e89f 100 0 0 10 0
   1: 0100007F:8499 0100007F:A815 01 00000000:00000000 00:00000000 00000000     0        0 16805093 1 000000004e5aed92 100 0 0 10 0`;
  assert.deepEqual(parseTcpTable(table), [
    { address: '127.0.0.1', port: 0xa815, state: '0A', inode: '16805156' },
    { address: '127.0.0.1', port: 0x8499, state: '01', inode: '16805093' },
  ]);
});

test(
  "listeningSockets finds this process's own listening port (and not others')",
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      const mine = listeningSockets(process.pid);
      assert.ok(
        mine?.some((s) => s.port === port && s.address === '127.0.0.1'),
        JSON.stringify(mine),
      );
      assert.equal(listeningSockets(1 << 30), undefined, 'no such process');
    } finally {
      server.close();
    }
  },
);

test('load commands: placeholders filled, URLs elsewhere than this machine refused', () => {
  assert.deepEqual(commandArgv('wrk -d5s http://127.0.0.1:{port}/a {url}', 'http://127.0.0.1:3000/login'), [
    'wrk',
    '-d5s',
    'http://127.0.0.1:3000/a',
    'http://127.0.0.1:3000/login',
  ]);
  assert.deepEqual(commandArgv('k6 run -e HOST={host} script.js', 'http://localhost:80/'), [
    'k6',
    'run',
    '-e',
    'HOST=localhost',
    'script.js',
  ]);
  for (const cmd of [
    'wrk http://example.com/',
    'ab -n 10 https://10.0.0.1:8443/',
    'artillery quick --target=http://192.168.0.2 x',
  ]) {
    assert.throws(
      () => commandArgv(cmd, 'http://127.0.0.1:3000/'),
      (e: unknown) => e instanceof LoadError && e.code === 'bad-options' && /only target this machine/.test(e.message),
      cmd,
    );
  }
});

test('the recorded command keeps its shape but not its secrets', () => {
  assert.deepEqual(
    redactArgv([
      'wrk',
      '-H',
      'Authorization: Bearer abc',
      '-H',
      'Accept: json',
      'http://127.0.0.1:1/x?token=s3cret&page=2',
      '-e',
      'API_KEY=k',
      'PAGE=2',
    ]),
    [
      'wrk',
      '-H',
      'Authorization: «redacted»',
      '-H',
      'Accept: json',
      'http://127.0.0.1:1/x?token=%C2%ABredacted%C2%BB&page=2',
      '-e',
      'API_KEY=«redacted»',
      'PAGE=2',
    ],
  );
});

test(
  "the Node processes running in a folder are found (the picker's list), others not",
  { skip: process.platform !== 'linux' && 'reads /proc' },
  async () => {
    const inside = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-procs-'));
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-procs-'));
    fs.mkdirSync(path.join(inside, 'sub'));
    const start = (cwd: string): ChildProcess =>
      spawn(process.execPath, ['-e', 'process.stdout.write("up"); setInterval(() => {}, 1000)'], {
        cwd,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    const children = [start(path.join(inside, 'sub')), start(elsewhere)];
    try {
      await Promise.all(children.map((c) => once(c.stdout!, 'data')));
      const found = nodeProcessesIn(inside).map((p) => p.pid);
      assert.ok(found.includes(children[0].pid!), 'the app in a subfolder is listed');
      assert.ok(!found.includes(children[1].pid!), 'the one elsewhere is not');
      assert.deepEqual(
        nodeProcessesIn(inside, new Set([children[0].pid!]))
          .map((p) => p.pid)
          .filter((p) => p === children[0].pid),
        [],
        'excluded pids are left out',
      );
      assert.equal(nodeProcessesIn(inside).find((p) => p.pid === children[0].pid)?.argv[0], process.execPath);
    } finally {
      for (const c of children) c.kill('SIGKILL');
      fs.rmSync(inside, { recursive: true, force: true });
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  },
);
