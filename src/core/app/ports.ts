// Ports and addresses on this machine: which port a run loads, and whether something answers.
import * as fs from 'node:fs';
import * as net from 'node:net';
import type { ListenAddress } from '../common/index.ts';

export function explicitPort(url: string): number | undefined {
  if (!/^https?:\/\//.test(url)) return undefined;
  const u = new URL(url);
  return u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
}

/** Where to reach a server on this machine: all interfaces or loopback; undefined for another address. */
export function loopbackHostOf(address: ListenAddress): string | undefined {
  const a = address.address;
  if (a === '::' || a === '0.0.0.0' || a === '::ffff:0.0.0.0' || /^(::ffff:)?127\./.test(a)) return '127.0.0.1';
  if (a === '::1') return '::1';
  return undefined;
}

/** A path is joined to the port the app opened; a full URL is used as it is. */
export function joinUrl(url: string, address: ListenAddress): string {
  if (/^https?:\/\//.test(url)) return url;
  const host = loopbackHostOf(address) === '::1' ? '[::1]' : '127.0.0.1';
  return `http://${host}:${address.port}${url}`;
}

/** Below this, ports are the well-known ones and the usual dev servers' (3000, 5173, 8080, 9229). */
const FIRST_PORT = 10_000;

/**
 * A port nothing uses now, for the app to listen on, chosen below the kernel's range of ephemeral
 * ports. A port from bind(0) lies in that range, where the machine's outgoing connections (the
 * load's among them) take their local ports: such a port can be taken between this choice and the
 * app's listen (seen once, EADDRINUSE: bench/JOURNAL.md, 2026-11-27). Outside Linux, or when no
 * port below the range is free in a few tries, bind(0).
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  const below =
    low !== undefined && low > FIRST_PORT + 1000
      ? Array.from({ length: 20 }, () => FIRST_PORT + Math.floor(Math.random() * (low - FIRST_PORT)))
      : [];
  return (await firstFree(below)) ?? listenAndClose(0);
}

/** The first of `ports` that can be listened on now (on 127.0.0.1), or undefined. */
export async function firstFree(ports: readonly number[]): Promise<number | undefined> {
  for (const port of ports) if ((await listenAndClose(port).catch(() => undefined)) === port) return port;
  return undefined;
}

/** The first port of the kernel's ephemeral range (Linux), or undefined. */
export function ephemeralLow(): number | undefined {
  try {
    const low = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : undefined;
  } catch {
    return undefined;
  }
}

function listenAndClose(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: opened } = server.address() as net.AddressInfo;
      server.close(() => resolve(opened));
    });
  });
}

/** One connection attempt: is something accepting on 127.0.0.1:port? */
export function accepts(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.setTimeout(2000);
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}
