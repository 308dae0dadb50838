// Security properties of the engine, proved on a real app with the real V8 inspector:
//
// - the inspector (which runs any code it is sent) binds to 127.0.0.1 only, on a port the OS
//   picks; inspector flags in NODE_OPTIONS or in runtimeArgs cannot widen it;
// - the engine talks to inspectors and loads HTTP servers on loopback only, and refuses other
//   hosts before it sends anything (a tripwire in this process blocks and records any attempt);
// - secrets of a load test (Authorization header, password in the body or the query, a token in
//   the app's env) are not in the run's files nor in the engine's own messages.
//
// Sockets, environments and command lines are read from /proc (test/helpers/security.ts), not
// from what src/ says about itself. Each test prints what it tried and what it saw.
// Needs `node esbuild.mjs` (the load runner is forked from dist/).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { AppProcess } from '../../src/core/app/launch.ts';
import { InspectorError, InspectorSession } from '../../src/core/inspector/session.ts';
import { isLoopback } from '../../src/core/common/loopback.ts';
import { LoadError, LoadRun } from '../../src/core/load/load-run.ts';
import { RunError, profileUnderLoad, type RunProgress } from '../../src/core/index.ts';
import { LOG_FILE } from '../../src/core/store/store.ts';
import {
  BAD_APPS,
  HELPER_MODULE as HELPER_MODULE_SRC,
  LOGIN_API as LOGIN_API_SRC,
  LeakGuard,
  RUN_TEST_TIMEOUT,
  SHORT_RUN,
  assertBuilt,
  descendantsOf,
  ensureLoginApiDeps,
  occupyPort,
  rejectionOf,
  removeTempDirs,
  tempDir,
} from '../helpers/integration.ts';
import {
  NetTripwire,
  argvOf,
  copyApp,
  describeSockets,
  environOf,
  filesUnder,
  isWildcard,
  listeningSockets,
  listeningSocketsOf,
  secretsIn,
  secretsInFiles,
  type ListeningSocket,
} from '../helpers/security.ts';

/** The ports the hostile flags ask for: nothing may listen there. */
const HOSTILE_PORTS = [9229, 9339];
const HOSTILE = {
  env: { NODE_OPTIONS: '--max-old-space-size=128 --inspect=0.0.0.0:9229' },
  runtimeArgs: ['--inspect=0.0.0.0:9339', '--no-warnings'],
};

let guard: LeakGuard | undefined;
let tripwire: NetTripwire | undefined;
// The apps run from copies: a run takes a lock in its app's folder, and other suites may be
// profiling the originals at the same time; the leak checks then see only this file's processes.
let HELPER_MODULE = '';
let LOGIN_API = '';
let EXITS_AT_ONCE = '';

before(() => {
  assertBuilt();
  ensureLoginApiDeps();
  HELPER_MODULE = copyApp(HELPER_MODULE_SRC, tempDir('hotline-sec-'));
  LOGIN_API = copyApp(LOGIN_API_SRC, tempDir('hotline-sec-'));
  EXITS_AT_ONCE = copyApp(path.join(BAD_APPS, 'exits-at-once'), tempDir('hotline-sec-'));
});

after(removeTempDirs);

afterEach(() => {
  tripwire?.dispose();
  tripwire = undefined;
  const g = guard;
  guard = undefined;
  g?.assertClean();
});

const addr = (s: ListeningSocket): string => `${s.family === 6 ? `[${s.address}]` : s.address}:${s.port}`;

/** Starts helper-module under the inspector (paused at its first line), runs `look`, stops it. */
async function withLaunchedApp<T>(
  extra: { env?: Record<string, string>; runtimeArgs?: string[] },
  look: (app: AppProcess, inspectorUrl: string) => T,
): Promise<T> {
  const { app, inspectorUrl } = await AppProcess.start({ cwd: HELPER_MODULE, entry: 'server.js', ...extra });
  try {
    return look(app, inspectorUrl);
  } finally {
    await app.stop();
  }
}

/** Settles `p` if it settles before the next macrotask (no I/O round trip can have happened). */
async function settledAtOnce<T>(p: Promise<T>): Promise<{ value?: T; error?: unknown; pending?: true }> {
  const pending = new Promise<{ pending: true }>((resolve) => setImmediate(() => resolve({ pending: true })));
  return Promise.race([
    p.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    pending,
  ]);
}

// ---- the inspector's socket -----------------------------------------------------------------

test(
  'the inspector listens on 127.0.0.1 only, on a port the OS picks, different for each launch',
  RUN_TEST_TIMEOUT,
  async (t) => {
    guard = new LeakGuard(HELPER_MODULE);
    const ports: number[] = [];
    for (const launch of [1, 2]) {
      await withLaunchedApp({}, (app, inspectorUrl) => {
        const sockets = listeningSocketsOf(app.pid);
        t.diagnostic(`launch ${launch}: ${app.command.join(' ')}`);
        t.diagnostic(
          `launch ${launch}: node printed ${inspectorUrl}; pid ${app.pid} listens on ${describeSockets(sockets)}`,
        );
        const url = new URL(inspectorUrl);
        assert.equal(url.hostname, '127.0.0.1', 'the inspector URL is on 127.0.0.1');
        // Paused at its first line, the app has opened nothing of its own: the one socket is the inspector's.
        assert.deepEqual(
          sockets.map(addr),
          [`127.0.0.1:${url.port}`],
          'one listening socket, the inspector, on 127.0.0.1 (not 0.0.0.0, not ::)',
        );
        assert.ok(!sockets.some((s) => isWildcard(s.address)), 'nothing on a wildcard address');
        assert.notEqual(Number(url.port), 9229, 'not the default inspector port');
        ports.push(Number(url.port));
      });
    }
    t.diagnostic(`inspector ports of the two launches: ${ports.join(', ')}`);
    assert.notEqual(ports[0], ports[1], 'the OS picked another port for the second launch');
  },
);

test(
  'inspector flags in NODE_OPTIONS and runtimeArgs are dropped: nothing on 0.0.0.0:9229/9339, the inspector stays on 127.0.0.1',
  RUN_TEST_TIMEOUT,
  async (t) => {
    guard = new LeakGuard(HELPER_MODULE);
    const variants = [
      HOSTILE,
      {
        env: { NODE_OPTIONS: '--inspect-brk=0.0.0.0:9229 --inspect-publish-uid=http' },
        runtimeArgs: ['--inspect-port=0.0.0.0:9339', '--inspect-brk=0.0.0.0:9339'],
      },
    ];
    for (const v of variants) {
      t.diagnostic(
        `tried: NODE_OPTIONS=${JSON.stringify(v.env.NODE_OPTIONS)} runtimeArgs=${JSON.stringify(v.runtimeArgs)}`,
      );
      await withLaunchedApp(v, (app, inspectorUrl) => {
        const argv = argvOf(app.pid);
        const nodeOptions = environOf(app.pid).NODE_OPTIONS;
        const sockets = listeningSocketsOf(app.pid);
        const onHostilePorts = listeningSockets().filter((s) => HOSTILE_PORTS.includes(s.port));
        t.diagnostic(`  saw: argv ${JSON.stringify(argv)}`);
        t.diagnostic(`  saw: the app's NODE_OPTIONS ${JSON.stringify(nodeOptions)}`);
        t.diagnostic(
          `  saw: pid ${app.pid} listens on ${describeSockets(sockets)}; anything on ports ${HOSTILE_PORTS.join('/')} machine-wide: ${describeSockets(onHostilePorts)}`,
        );

        assert.ok(
          !argv.some((a) => /^--(inspect|debug)/.test(a) && a !== '--inspect-brk=127.0.0.1:0'),
          "the only inspector flag on the command line is Hotline's",
        );
        assert.ok(argv.includes('--inspect-brk=127.0.0.1:0'));
        assert.ok(!/--(inspect|debug)/.test(nodeOptions ?? ''), 'no inspector flag left in NODE_OPTIONS');
        if (v === HOSTILE) {
          // The other flags stay: only the inspector's are taken out.
          assert.equal(nodeOptions, '--max-old-space-size=128');
          assert.ok(argv.includes('--no-warnings'));
        }
        assert.deepEqual(
          sockets.map(addr),
          [`127.0.0.1:${new URL(inspectorUrl).port}`],
          'the one listening socket is the inspector on 127.0.0.1',
        );
        assert.deepEqual(
          onHostilePorts.filter((s) => isWildcard(s.address)).map(addr),
          [],
          'nothing listens on 0.0.0.0 or :: at 9229/9339',
        );
        assert.ok(
          !onHostilePorts.some((s) => sockets.some((m) => m.inode === s.inode)),
          'the app has nothing on 9229/9339',
        );
      });
    }
  },
);

test(
  'during a whole run with those flags: the app listens on 127.0.0.1 only (inspector + its own server)',
  RUN_TEST_TIMEOUT,
  async (t) => {
    guard = new LeakGuard(HELPER_MODULE);
    const entry = path.join(HELPER_MODULE, 'server.js');
    let seen:
      { pid: number; sockets: ListeningSocket[]; nodeOptions?: string; onHostilePorts: ListeningSocket[] } | undefined;
    const onProgress = (p: RunProgress): void => {
      if (p.phase !== 'measuring' || seen) return;
      // The app is one of our children (the load runner is the other).
      const app = descendantsOf(process.pid).find((c) => c.argv.includes(entry));
      assert.ok(app, 'the app runs while measuring');
      seen = {
        pid: app.pid,
        sockets: listeningSocketsOf(app.pid),
        nodeOptions: environOf(app.pid).NODE_OPTIONS,
        onHostilePorts: listeningSockets().filter((s) => HOSTILE_PORTS.includes(s.port)),
      };
    };
    const { report } = await profileUnderLoad({
      target: { cwd: HELPER_MODULE, entry: 'server.js', ...HOSTILE },
      url: '/ok',
      ...SHORT_RUN,
      runsDir: tempDir(),
      onProgress,
    });
    assert.ok(seen, 'the run reached the measured window');
    const appPort = Number(new URL(report.app.url).port);
    t.diagnostic(
      `tried: NODE_OPTIONS=${JSON.stringify(HOSTILE.env.NODE_OPTIONS)} runtimeArgs=${JSON.stringify(HOSTILE.runtimeArgs)}, a 1+2+2 s run of helper-module GET /ok`,
    );
    t.diagnostic(
      `saw while measuring: app pid ${seen.pid} listens on ${describeSockets(seen.sockets)}; NODE_OPTIONS ${JSON.stringify(seen.nodeOptions)}; app server port (report.app.url) ${appPort}`,
    );
    t.diagnostic(`saw machine-wide on ${HOSTILE_PORTS.join('/')}: ${describeSockets(seen.onHostilePorts)}`);
    assert.equal(seen.sockets.length, 2, "two listening sockets: the inspector and the app's server");
    for (const s of seen.sockets) assert.equal(s.address, '127.0.0.1', `${addr(s)} is on 127.0.0.1`);
    assert.ok(
      seen.sockets.some((s) => s.port === appPort),
      "one is the app's own server",
    );
    assert.ok(!seen.sockets.some((s) => HOSTILE_PORTS.includes(s.port)), 'none on 9229/9339');
    assert.deepEqual(seen.onHostilePorts.filter((s) => isWildcard(s.address)).map(addr), []);
    // The user's options without the inspector flag, then Hotline's preload for child processes
    // (child-processes.ts: it opens a child's inspector on 127.0.0.1 at a port the OS picks).
    assert.match(
      seen.nodeOptions ?? '',
      /^--max-old-space-size=128 --require "[^"]*\/hotline-processes-[^"/]+\/hotline-child-preload\.cjs"$/,
    );
  },
);

// ---- loopback only, refused before any traffic ------------------------------------------------

test('InspectorSession.connect refuses a non-loopback inspector at once, without trying to connect', async (t) => {
  tripwire = new NetTripwire();
  const refused = [
    'ws://10.1.2.3:9229/x',
    'ws://example.com/x',
    'ws://127.0.0.1@10.1.2.3:9229/x', // user info that looks like a host
    'ws://127.0.0.1.nip.io:9229/x', // a DNS name that starts like one
    'ws://0.0.0.0:9229/x',
    'ws://[fe80::1]:9229/x',
  ];
  for (const url of refused) {
    const r = await settledAtOnce(InspectorSession.connect(url));
    const msg =
      r.error instanceof Error
        ? `${r.error.name}: ${r.error.message}`
        : r.pending
          ? 'still pending after one macrotask'
          : 'connected?!';
    t.diagnostic(`tried ${url} → ${msg}`);
    assert.ok(r.error instanceof InspectorError, `${url}: refused with an InspectorError before any I/O (${msg})`);
    assert.match(r.error.message, /only loopback/);
  }
  t.diagnostic(`connection attempts from this process: ${JSON.stringify(tripwire.attempts)}`);
  assert.deepEqual(tripwire.attempts, [], 'not one connection was attempted');
});

test('a loopback inspector URL passes the check (127.0.0.2 is loopback too)', async (t) => {
  tripwire = new NetTripwire();
  for (const host of ['127.0.0.1', '127.0.0.2', '127.255.0.9', 'localhost', '[::1]', '::1'])
    assert.ok(isLoopback(host), `isLoopback(${host})`);
  for (const host of [
    '10.1.2.3',
    'example.com',
    '0.0.0.0',
    '::',
    '128.0.0.1',
    '127.0.0.1.nip.io',
    'localhost.example.com',
  ])
    assert.ok(!isLoopback(host), `!isLoopback(${host})`);
  // A stand-in on 127.0.0.2 that hangs up: what matters is that the engine went there.
  const accepted: string[] = [];
  const server = net.createServer((socket) => {
    accepted.push(`${socket.remoteAddress}:${socket.remotePort} → ${socket.localAddress}:${socket.localPort}`);
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.2', () => resolve());
  });
  try {
    const url = `ws://127.0.0.2:${(server.address() as net.AddressInfo).port}/x`;
    const err = await rejectionOf(() => InspectorSession.connect(url));
    t.diagnostic(
      `tried ${url} → ${(err as Error).message} (the stand-in hung up); stand-in accepted ${JSON.stringify(accepted)}; attempts ${JSON.stringify(tripwire.attempts)}`,
    );
    assert.ok(
      !(err instanceof InspectorError && /only loopback/.test(err.message)),
      'not refused by the loopback check',
    );
    assert.ok(accepted.length >= 1, 'the connection reached 127.0.0.2');
    // The tripwire saw it too: its empty record in the refusals above means something.
    assert.ok(
      tripwire.attempts.length >= 1 && tripwire.attempts.every((a) => a.host === '127.0.0.2' && !a.blocked),
      JSON.stringify(tripwire.attempts),
    );
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a load URL on another host is refused before anything starts (RunError bad-options), and so is the load runner', async (t) => {
  guard = new LeakGuard(HELPER_MODULE);
  tripwire = new NetTripwire();
  const children = (): number[] => descendantsOf(process.pid).map((p) => p.pid);
  const before = children();
  for (const url of [
    'http://10.0.0.1/',
    'http://example.com/login',
    'http://127.0.0.1@10.0.0.1/',
    'http://[fe80::1]:8080/',
  ]) {
    const r = await settledAtOnce(
      profileUnderLoad({ target: { cwd: HELPER_MODULE, entry: 'server.js' }, url, ...SHORT_RUN, runsDir: tempDir() }),
    );
    const msg =
      r.error instanceof Error
        ? `${r.error.name} ${(r.error as RunError).kind}: ${r.error.message}`
        : r.pending
          ? 'still pending after one macrotask'
          : 'completed?!';
    t.diagnostic(`profileUnderLoad url ${url} → ${msg}`);
    assert.ok(r.error instanceof RunError && r.error.kind === 'bad-options', msg);
    assert.match(r.error.message, /not a loopback address/);
  }
  // The load generator on its own refuses too, before it forks its runner.
  for (const url of ['http://10.0.0.1/', 'http://example.com/']) {
    const err = await rejectionOf(() => LoadRun.start({ url }));
    t.diagnostic(`LoadRun.start url ${url} → ${(err as Error).message}`);
    assert.ok(err instanceof LoadError && err.code === 'bad-options', String(err));
  }
  const started = children().filter((pid) => !before.includes(pid));
  t.diagnostic(
    `processes started: ${JSON.stringify(started)}; connection attempts: ${JSON.stringify(tripwire.attempts)}`,
  );
  assert.deepEqual(started, [], 'no app, no load runner');
  assert.deepEqual(tripwire.attempts, [], 'no connection attempted, not even to 127.0.0.1');
});

// ---- secrets ----------------------------------------------------------------------------------

const SECRETS = ['s3cr3t-token', 'hunter2-pass', 'qwerty-pass', 'env-s3cret'] as const;
const SECRET_LOAD = {
  url: '/login?password=qwerty-pass&user=bob',
  method: 'POST',
  headers: { 'content-type': 'application/json', Authorization: 'Bearer s3cr3t-token' },
  // The right password (the app's source holds it), so the requests succeed and the run goes past
  // its probe; the secret to look for is a second one the app ignores.
  body: JSON.stringify({
    email: 'alice@example.com',
    password: 'correct horse battery staple',
    newPassword: 'hunter2-pass',
  }),
};
const SECRET_ENV = { API_TOKEN: 'env-s3cret' };

test(
  "secrets of a run (Authorization header, body and query passwords, env token) are in none of its files nor in the engine's messages",
  RUN_TEST_TIMEOUT,
  async (t) => {
    guard = new LeakGuard(LOGIN_API);
    const progress: string[] = [];
    const appOutput: string[] = [];
    const entry = path.join(LOGIN_API, 'server.js');
    let psView: { argv: string[][]; appHasToken: boolean } | undefined;
    const runsDir = tempDir();
    const { runDir, report } = await profileUnderLoad({
      target: { cwd: LOGIN_API, entry: 'server.js', env: SECRET_ENV },
      ...SECRET_LOAD,
      ...SHORT_RUN,
      runsDir,
      onProgress: (p) => {
        progress.push(JSON.stringify(p));
        if (p.phase === 'measuring' && !psView) {
          // What `ps` shows every user of the machine: the command lines of the app and the load runner.
          const kids = descendantsOf(process.pid);
          const app = kids.find((k) => k.argv.includes(entry));
          psView = {
            argv: kids.map((k) => k.argv),
            appHasToken: app !== undefined && environOf(app.pid).API_TOKEN === SECRET_ENV.API_TOKEN,
          };
        }
      },
      onOutput: (_stream, text) => appOutput.push(text),
    });
    t.diagnostic(
      `tried: POST ${SECRET_LOAD.url}, headers ${JSON.stringify(SECRET_LOAD.headers)}, body ${SECRET_LOAD.body}, env ${JSON.stringify(SECRET_ENV)}`,
    );
    t.diagnostic(
      `load: ${report.load?.requests.total} requests, status codes ${JSON.stringify(report.load?.statusCodes)}`,
    );

    // The run's files, every one but app.log.
    const files = filesUnder(runsDir);
    t.diagnostic(
      `run folder: ${files.map((f) => `${path.relative(runsDir, f)} (${fs.statSync(f).size} B)`).join(', ')}`,
    );
    for (const name of ['report.json', 'run.json', 'sources.json', 'stacks.json', 'profile.cpuprofile'])
      assert.ok(fs.existsSync(path.join(runDir, name)), `${name} was written`);
    const hits = secretsInFiles(runsDir, SECRETS, (f) => path.basename(f) === LOG_FILE);
    t.diagnostic(`secrets found in the run's files: ${hits.length === 0 ? 'none' : JSON.stringify(hits)}`);
    assert.deepEqual(hits, []);

    // What was recorded instead: the names stay, the values are replaced.
    const settings = JSON.parse(fs.readFileSync(path.join(runDir, 'run.json'), 'utf8')).settings as Record<
      string,
      unknown
    >;
    t.diagnostic(
      `run.json settings: url ${JSON.stringify(settings.url)}, headers ${JSON.stringify(settings.headers)}, body ${JSON.stringify(settings.body)}, env ${JSON.stringify(settings.env)}`,
    );
    t.diagnostic(`report.json app.url ${JSON.stringify(report.app.url)}`);
    assert.match(String(settings.url), /user=bob/, 'harmless query parameters are kept');
    assert.ok(
      (settings.headers as Record<string, string>)['content-type'] === 'application/json',
      'harmless headers are kept',
    );
    assert.ok(
      'Authorization' in (settings.headers as Record<string, string>),
      'the header name is kept, its value replaced',
    );
    assert.ok('API_TOKEN' in (settings.env as Record<string, string>), 'the env name is kept, its value replaced');

    // The engine's own messages.
    t.diagnostic(`progress messages: ${progress.length}, e.g. ${progress.slice(0, 3).join(' | ')}`);
    assert.deepEqual(secretsIn(progress.join('\n'), SECRETS), [], 'no secret in a progress message');

    // The secrets go where they must (the request, the app's env) and nowhere `ps` shows them.
    assert.ok(psView, 'the run reached the measured window');
    t.diagnostic(
      `command lines of the run's processes: ${JSON.stringify(psView.argv)}; the app's env has API_TOKEN: ${psView.appHasToken}`,
    );
    assert.deepEqual(secretsIn(JSON.stringify(psView.argv), SECRETS), [], 'no secret on a command line');
    assert.ok(psView.appHasToken, 'the env token did reach the app');

    // app.log is the app's own output (whatever it prints is the app's business, not Hotline's):
    // only check that Hotline added nothing of its own to it.
    const log = fs.readFileSync(path.join(runDir, LOG_FILE), 'utf8');
    assert.equal(log, appOutput.join(''), 'app.log holds exactly what the app printed');
    t.diagnostic(
      `app.log (${log.length} chars) is exactly the app's output; secrets in it (not asserted): ${JSON.stringify(secretsIn(log, SECRETS).map((h) => h.secret))}`,
    );
  },
);

test('secrets in the settings of a failing run are not in its error messages', RUN_TEST_TIMEOUT, async (t) => {
  const occupied = await occupyPort();
  try {
    const cases: Array<{ what: string; opts: Parameters<typeof profileUnderLoad>[0] }> = [
      {
        what: 'the app exits at once',
        opts: {
          target: { cwd: EXITS_AT_ONCE, entry: 'server.js', env: SECRET_ENV },
          ...SECRET_LOAD,
          ...SHORT_RUN,
          runsDir: tempDir(),
        },
      },
      {
        what: "the URL's port is taken",
        opts: {
          target: { cwd: HELPER_MODULE, entry: 'server.js', env: SECRET_ENV },
          ...SECRET_LOAD,
          url: `http://127.0.0.1:${occupied.port}/login?password=qwerty-pass`,
          ...SHORT_RUN,
          runsDir: tempDir(),
        },
      },
      {
        what: 'a password in the URL of another host',
        opts: {
          target: { cwd: HELPER_MODULE, entry: 'server.js' },
          ...SECRET_LOAD,
          url: 'http://bob:hunter2-pass@10.0.0.1/login?token=s3cr3t-token',
          ...SHORT_RUN,
          runsDir: tempDir(),
        },
      },
    ];
    for (const c of cases) {
      guard = new LeakGuard(c.opts.target.cwd);
      const progress: string[] = [];
      const err = (await rejectionOf(() =>
        profileUnderLoad({ ...c.opts, onProgress: (p) => progress.push(p.message) }),
      )) as RunError;
      guard.assertClean();
      guard = undefined;
      t.diagnostic(`${c.what} → ${err.name} ${err.kind}: ${err.message}`);
      assert.ok(err instanceof RunError, String(err));
      // err.output is the app's own output, not checked; the message and the stack are Hotline's.
      assert.deepEqual(
        secretsIn(`${err.message}\n${err.stack}\n${progress.join('\n')}`, SECRETS),
        [],
        `${c.what}: no secret in the error`,
      );
    }
  } finally {
    await occupied.close();
  }
});

test('a malformed URL holding a secret is not echoed in the error', {}, async (t) => {
  // A missing leading slash: the URL is neither a path nor a full http:// URL.
  const err = (await rejectionOf(() =>
    profileUnderLoad({
      target: { cwd: HELPER_MODULE, entry: 'server.js' },
      ...SECRET_LOAD,
      url: 'login?password=qwerty-pass&user=bob',
      runsDir: tempDir(),
    }),
  )) as RunError;
  t.diagnostic(`url "login?password=qwerty-pass&user=bob" → ${err.kind}: ${err.message}`);
  assert.equal(err.kind, 'bad-options');
  assert.deepEqual(secretsIn(err.message, SECRETS), [], 'the error names the problem without repeating the password');
});
