// The wait probe: an async_hooks hook inside the app, on only in the profiled sub-windows, that
// notes every request the app hands to libuv's threadpool (crypto, zlib, fs, dns.lookup) and every
// outgoing HTTP call, with the calling line of the user's code (its code, which runs in the app:
// in-app/scripts/wait-probe.ts). What the pool did in between is not visible from JavaScript: the
// analysis infers it (analysis/time/threadpool-waits.ts). `takeWaitTrace` turns it off and removes
// it; the app is left as it was found.
import { inAppCall, inAppUrl, type TakenWaits } from '../in-app/index.ts';
import type { Evaluate } from './loop-probe.ts';

/** What the probe noted over one sub-window. */
export interface WaitTrace {
  /** UV_THREADPOOL_SIZE as the app sees it (libuv's default 4, at most 1024). */
  poolSize: number;
  /** Cores the app may use (os.availableParallelism). */
  cores: number;
  /** Calling lines: [file, line, column, function]. */
  sites: Array<[string, number, number, string]>;
  /**
   * Resource types (PBKDF2REQUEST, FSREQCALLBACK, …), or outgoing calls: `http:METHOD host:port`,
   * `fetch:METHOD host:port`, `pg:host:port STATEMENT` (likewise mysql, redis, mongodb).
   */
  types: string[];
  /** Per request: [site index or -1 (no line of the user's code), type index, µs made, µs its callback ran]. */
  requests: Array<[number, number, number, number]>;
  /**
   * Requests still waiting when the probe was taken: [site, type, µs made, µs taken]. Their wait
   * is unknown (not counted), but they held threads until then and count per HTTP request.
   */
  pending: Array<[number, number, number, number]>;
  /**
   * Data-store exchanges that first waited for a pool's connection: [index in `requests`, µs
   * queued (part of its wait), the pool's size] (in-app/scripts/pool-probe.ts).
   */
  queued?: Array<[number, number, number]>;
  /** Requests not noted because the probe's buffer was full. */
  dropped: number;
  /** How long the probe was on, µs (all sub-windows together). */
  activeUs: number;
  /** Client sockets whose protocol was not recognised as a data store's (not timed). */
  unpairedSockets?: number;
  /** HTTP requests the app's servers began while the probe was on. */
  served?: number;
  /**
   * Per request (as `requests`): the id of the HTTP request the app served when it was made (the
   * route probe's; 0: none; -1: not recorded), where the route probe ran too (capture/extras/wait-labels.ts).
   */
  labels?: number[];
}

/** Its code shows in the profile under this name: the analysis counts it as Hotline's own. */
export const WAIT_PROBE_URL = inAppUrl('wait-probe');

/** `loadedPath`: the requests calls are counted against (all the app serves, without it). */
export async function startWaitProbe(evaluate: Evaluate, loadedPath?: string): Promise<void> {
  await evaluate(inAppCall('wait-probe', 'start', loadedPath ?? null));
}

/** Disables and removes the probe; what it noted, or undefined when none was installed. */
export async function takeWaitTrace(evaluate: Evaluate): Promise<WaitTrace | undefined> {
  const json = await evaluate(inAppCall('wait-probe', 'take'));
  if (!json) return undefined;
  const raw = JSON.parse(String(json)) as TakenWaits;
  return { ...raw, requests: quads(raw.requests), pending: quads(raw.pending), queued: triples(raw.queued ?? []) };
}

function triples(flat: number[]): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  for (let i = 0; i + 2 < flat.length; i += 3) out.push([flat[i], flat[i + 1], flat[i + 2]]);
  return out;
}

function quads(flat: number[]): Array<[number, number, number, number]> {
  const out: Array<[number, number, number, number]> = [];
  for (let i = 0; i + 3 < flat.length; i += 4) out.push([flat[i], flat[i + 1], flat[i + 2], flat[i + 3]]);
  return out;
}
