// What /proc tells about other processes of this user (Linux only): the TCP ports a process
// listens on, and which Node processes run. Used to attach to an app Hotline did not start.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isWithin, type ListenAddress } from '../common/index.ts';

/** TCP state 0A is LISTEN (include/net/tcp_states.h). */
const LISTEN = '0A';

/**
 * The TCP sockets `pid` listens on: /proc/<pid>/net/tcp{,6} lists every socket of its network
 * namespace, so only those whose inode is one of the process's own file descriptors count.
 * Undefined when /proc cannot tell (not Linux, another user's process, the process is gone).
 */
export function listeningSockets(pid: number): ListenAddress[] | undefined {
  const inodes = socketInodes(pid);
  if (!inodes) return undefined;
  const out: ListenAddress[] = [];
  for (const [file, family] of [
    ['tcp', 'IPv4'],
    ['tcp6', 'IPv6'],
  ] as const) {
    let table: string;
    try {
      table = fs.readFileSync(`/proc/${pid}/net/${file}`, 'utf8');
    } catch {
      continue; // no IPv6 in this kernel, or the process just ended
    }
    for (const row of parseTcpTable(table)) {
      if (row.state === LISTEN && inodes.has(row.inode)) out.push({ address: row.address, family, port: row.port });
    }
  }
  // A dual-stack server shows once per family on the same port: keep one of each port.
  return out.filter((a, i) => out.findIndex((b) => b.port === a.port) === i);
}

function socketInodes(pid: number): Set<string> | undefined {
  let fds: string[];
  try {
    fds = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return undefined;
  }
  const inodes = new Set<string>();
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed while we looked
    }
  }
  return inodes;
}

export interface TcpRow {
  address: string;
  port: number;
  state: string;
  inode: string;
}

/** Rows of /proc/net/tcp or tcp6: `sl local_address rem_address st … uid timeout inode`. */
export function parseTcpTable(text: string): TcpRow[] {
  const rows: TcpRow[] = [];
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const [hexAddr, hexPort] = f[1].split(':');
    rows.push({ address: decodeAddress(hexAddr), port: parseInt(hexPort, 16), state: f[3], inode: f[9] });
  }
  return rows;
}

/** The kernel prints addresses as host-order 32-bit words in hex (little-endian here). */
export function decodeAddress(hex: string): string {
  const bytes = (word: string): number[] => [6, 4, 2, 0].map((i) => parseInt(word.slice(i, i + 2), 16));
  if (hex.length === 8) return bytes(hex).join('.');
  const all = [0, 8, 16, 24].flatMap((i) => bytes(hex.slice(i, i + 8)));
  // IPv4-mapped (::ffff:a.b.c.d) reads better as the IPv4 address it is.
  if (all.slice(0, 10).every((b) => b === 0) && all[10] === 0xff && all[11] === 0xff)
    return `::ffff:${all.slice(12).join('.')}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((all[i] << 8) | all[i + 1]).toString(16));
  const text = groups.join(':');
  if (text === '0:0:0:0:0:0:0:0') return '::';
  if (text === '0:0:0:0:0:0:0:1') return '::1';
  return text;
}

export interface NodeProcess {
  pid: number;
  cwd: string;
  argv: string[];
}

/** Is `pid` a Node.js process (its executable is node)? A SIGUSR1 would kill most others. */
export function isNodeProcess(pid: number): boolean {
  try {
    return /^node(js)?[\d.]*$/.test(path.basename(fs.readlinkSync(`/proc/${pid}/exe`)));
  } catch {
    return false;
  }
}

/** Node processes of this user (those whose /proc entries this user may read), but not this one. */
export function nodeProcesses(): NodeProcess[] {
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const out: NodeProcess[] = [];
  const uid = process.getuid?.();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid || !isNodeProcess(pid)) continue;
    try {
      if (uid !== undefined && fs.statSync(`/proc/${pid}`).uid !== uid) continue;
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
      const argv = fs
        .readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .filter((a) => a !== '');
      out.push({ pid, cwd, argv });
    } catch {
      // ended while we looked
    }
  }
  return out;
}

/** Node processes of this user running in `folder` (their cwd inside it), except `exclude`. */
export function nodeProcessesIn(folder: string, exclude: ReadonlySet<number> = new Set()): NodeProcess[] {
  // /proc gives resolved paths: compare with the folder's real path (it may sit behind a link).
  let real = folder;
  try {
    real = fs.realpathSync(folder);
  } catch {
    // a folder that does not exist has no processes in it: none will match
  }
  return nodeProcesses().filter((p) => !exclude.has(p.pid) && (isWithin(folder, p.cwd) || isWithin(real, p.cwd)));
}

/** The working directory of `pid`, if this user may read it. */
export function cwdOf(pid: number): string | undefined {
  try {
    return fs.readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}
