// Ports and addresses on this machine: which port a run loads, and whether something answers.
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

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
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
