// Real database servers for tests: PostgreSQL, Redis and MariaDB from Debian's packages (installed
// by scripts/e2e-setup.sh), each started on 127.0.0.1 at a free port, in a throw-away data folder,
// as its own system user when the tests run as root (setpriv: the server is the process itself, so
// a signal reaches it), and stopped with its folder removed. Nothing is left running: `stop` ends
// them, and this process's exit kills any that are still up. Every step has a time limit, so a
// set-up that fails says why instead of hanging.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type DatastoreKind = 'postgres' | 'redis' | 'mariadb';

export interface Datastore {
  kind: DatastoreKind;
  port: number;
  /** Its process (the server itself). */
  pid: number;
  /** Its data folder (removed at stop). */
  dir: string;
}

export interface Datastores {
  servers: Record<DatastoreKind, Datastore>;
  /** The app's environment: PG_PORT, REDIS_PORT, MARIADB_PORT. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** How long a server may take to answer after it started. */
const READY_TIMEOUT_MS = 60_000;
/** How long a server may take to stop after SIGTERM before SIGKILL. */
const STOP_TIMEOUT_MS = 10_000;
/** The user each server runs as, when the tests run as root (Debian's packages make them). */
const USERS: Record<DatastoreKind, string> = { postgres: 'postgres', redis: 'redis', mariadb: 'mysql' };

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Starts the three servers side by side; if one cannot start, those that did are stopped. */
export async function startDatastores(): Promise<Datastores> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-datastores-'));
  // The servers' own users must reach their folders inside it.
  fs.chmodSync(root, 0o755);
  const started = await Promise.allSettled([startPostgres(root), startRedis(root), startMariadb(root)]);
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const stopAll = async (): Promise<void> => {
    await Promise.all(servers.map((s) => s.stop()));
    fs.rmSync(root, { recursive: true, force: true });
  };
  const failed = started.flatMap((s) => (s.status === 'rejected' ? [(s.reason as Error).message] : []));
  if (failed.length > 0) {
    await stopAll();
    throw new Error(`database servers did not start: ${failed.join('; ')}`);
  }
  const byKind = Object.fromEntries(servers.map((s) => [s.info.kind, s.info])) as Record<DatastoreKind, Datastore>;
  return {
    servers: byKind,
    env: {
      PG_PORT: String(byKind.postgres.port),
      REDIS_PORT: String(byKind.redis.port),
      MARIADB_PORT: String(byKind.mariadb.port),
    },
    stop: stopAll,
  };
}

interface Started {
  info: Datastore;
  stop(): Promise<void>;
}

async function startPostgres(root: string): Promise<Started> {
  const bin = postgresBin();
  const dir = ownedDir(root, 'postgres');
  await run(
    ...asUser('postgres', path.join(bin, 'initdb'), ['-D', dir, '-U', 'hotline', '--auth=trust', '-E', 'UTF8', '-N']),
    {
      timeout: 60_000,
    },
  );
  const port = await freePort();
  const child = startServer('postgres', path.join(bin, 'postgres'), [
    '-D',
    dir,
    '-p',
    String(port),
    '-h',
    '127.0.0.1',
    '-k',
    dir,
    '-F',
  ]);
  const ready = () =>
    run(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'hotline'], { timeout: 5000 });
  return serving('postgres', child, port, dir, ready);
}

async function startRedis(root: string): Promise<Started> {
  const dir = ownedDir(root, 'redis');
  const port = await freePort();
  // hz 500: blocking commands' timeouts are checked every 2 ms (at the default 10, every 100 ms).
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--hz',
    '500',
  ];
  const child = startServer('redis', 'redis-server', args);
  const ready = async () => {
    const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'ping'], { timeout: 5000 });
    if (!stdout.includes('PONG')) throw new Error(`redis answered ${stdout.trim()}`);
  };
  return serving('redis', child, port, dir, ready);
}

async function startMariadb(root: string): Promise<Started> {
  const dir = ownedDir(root, 'mariadb');
  const data = path.join(dir, 'data');
  const socket = path.join(dir, 'mysqld.sock');
  await run(
    'mariadb-install-db',
    [
      '--no-defaults',
      `--datadir=${data}`,
      `--user=${currentOr(USERS.mariadb)}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ],
    { timeout: 120_000 },
  );
  if (isRoot()) await run('chown', ['-R', `${USERS.mariadb}:`, dir], { timeout: 10_000 });
  const port = await freePort();
  const child = startServer('mariadb', '/usr/sbin/mariadbd', [
    '--no-defaults',
    `--datadir=${data}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    `--socket=${socket}`,
    `--pid-file=${path.join(dir, 'mariadbd.pid')}`,
    '--skip-log-bin',
    '--innodb-buffer-pool-size=16M',
  ]);
  const ready = async () => {
    await run('mariadb-admin', ['--no-defaults', '-S', socket, '-u', 'root', 'ping'], { timeout: 5000 });
  };
  const started = await serving('mariadb', child, port, dir, ready);
  // The app's user, reached over TCP (root is for the socket only).
  const sql = "CREATE USER 'hotline'@'%' IDENTIFIED BY 'hotline'; GRANT ALL ON *.* TO 'hotline'@'%';";
  await run('mariadb', ['--no-defaults', '-S', socket, '-u', 'root', '-e', sql], { timeout: 10_000 }).catch(
    async (err: Error) => {
      await started.stop();
      throw new Error(`mariadb: creating its user failed: ${err.message}`);
    },
  );
  return started;
}

/** The newest PostgreSQL's binaries (Debian keeps them under /usr/lib/postgresql/<major>/bin). */
function postgresBin(): string {
  const base = '/usr/lib/postgresql';
  const majors = fs.existsSync(base) ? fs.readdirSync(base).filter((v) => /^\d+$/.test(v)) : [];
  if (majors.length === 0) throw new Error(`postgres: no server under ${base} (npm run setup:test installs it)`);
  return path.join(base, majors.sort((a, b) => Number(b) - Number(a))[0], 'bin');
}

const isRoot = (): boolean => process.getuid?.() === 0;
const currentOr = (user: string): string => (isRoot() ? user : os.userInfo().username);

/** A folder the server's user owns. */
function ownedDir(root: string, kind: DatastoreKind): string {
  const dir = path.join(root, kind);
  fs.mkdirSync(dir, { mode: 0o700 });
  if (isRoot()) {
    const { uid, gid } = idsOf(USERS[kind]);
    fs.chownSync(dir, uid, gid);
  }
  return dir;
}

function idsOf(user: string): { uid: number; gid: number } {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`));
  if (!line) throw new Error(`no user ${user} (its Debian package makes it: npm run setup:test)`);
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** The command run as `user` when we are root (setpriv execs it: the pid is the server's). */
function asUser(kind: DatastoreKind | string, file: string, args: string[]): [string, string[]] {
  const user = kind in USERS ? USERS[kind as DatastoreKind] : kind;
  if (!isRoot()) return [file, args];
  return ['setpriv', [`--reuid=${user}`, `--regid=${user}`, '--init-groups', '--', file, ...args]];
}

function startServer(kind: DatastoreKind, file: string, args: string[]): ChildProcess {
  const [cmd, argv] = asUser(kind, file, args);
  const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Waits until `ready` passes (or the server exits, or time runs out) and returns its handle. */
async function serving(
  kind: DatastoreKind,
  child: ChildProcess,
  port: number,
  dir: string,
  ready: () => Promise<unknown>,
): Promise<Started> {
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${kind} exited with ${child.exitCode}: ${output.trim().slice(-800)}`);
    try {
      await ready();
      return { info: { kind, port, pid: child.pid!, dir }, stop };
    } catch (err) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`${kind} did not answer within ${READY_TIMEOUT_MS / 1000} s: ${(err as Error).message}`);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
