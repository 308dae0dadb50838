// The shapes of a request mix and the helpers its readers share (request-mix.ts, har.ts).
import { RunError } from '../common/index.ts';

/** One request of a mix, as the load generator sends it (to the app's host and port). */
export interface MixRequest {
  /** Upper case. */
  method: string;
  /** Path and query, from `/`. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Its share of the load against the other requests' weights, > 0. */
  weight: number;
}

export interface RequestMix {
  requests: MixRequest[];
  /** What was left out or changed (HAR: other hosts, secrets), one line each, for the run's notes. */
  notes: string[];
  /** `http://127.0.0.1:3000` when the file named the app's address: the run loads that one. */
  origin?: string;
}

export interface MixReadOptions {
  /** Keep cookie and authorization headers of a HAR (they are dropped by default: secrets). */
  keepSecrets?: boolean;
  /** The app's address when the user gave one (`--url http://127.0.0.1:3000/…`). */
  origin?: string;
}

// autocannon's methods less HEAD, CONNECT and TRACE: load-run.ts says why.
export const MIX_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
/** A header name as HTTP allows it (RFC 9110 token). */
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function bad(message: string): RunError {
  return new RunError('bad-options', message);
}

export function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
