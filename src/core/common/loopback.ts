// Which hosts are this machine. The inspector, the load and attach talk only to these unless the
// user allows otherwise: whoever reaches an inspector can run any code in the app.
import { isIP } from 'node:net';

/** Where a server listens, as Node's server.address() gives it. */
export interface ListenAddress {
  address: string;
  family: string;
  port: number;
}

/**
 * `localhost`, an IPv4 address in 127.0.0.0/8 or `::1`, with or without brackets. Only real
 * addresses count: `127.0.0.300` or `127.evil.com` are not loopback. Compressed IPv6 forms
 * (`0:0:0:0:0:0:0:1`) are what a URL parser has already turned into `::1`; they are refused here.
 */
export function isLoopback(host: string): boolean {
  const h = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (h.toLowerCase() === 'localhost') return true;
  if (isIP(h) === 4) return h.split('.')[0] === '127';
  return isIP(h) === 6 && h === '::1';
}
