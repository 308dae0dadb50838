// A few requests before the warm-up: a run whose every request fails (a typo in --url: 56 770
// responses, all 404) measures the app's error handler, not the code the user asked about, and
// must stop at once rather than pass after its full duration. A mix of statuses still runs.
import * as http from 'node:http';
import * as https from 'node:https';
import type { LoadOptions } from './load-run.ts';

export interface ProbeOutcome {
  /** At least one answer below 400. */
  ok: boolean;
  /** The last failing answer's status, or the error that stood for one. */
  status?: number;
  statusText?: string;
  error?: string;
}

/**
 * Requests until one is answered below 400, at most `tries`: a route that fails now and then
 * (a 429, a cache miss) is not refused on one unlucky answer. Each is bounded by the load's
 * timeout.
 */
export async function probe(
  o: Pick<LoadOptions, 'url' | 'method' | 'headers' | 'body' | 'timeoutS'>,
  tries = 3,
): Promise<ProbeOutcome> {
  let last: ProbeOutcome = { ok: false };
  for (let i = 0; i < tries; i++) {
    last = await once(o);
    if (last.ok) return last;
  }
  return last;
}

function once(o: Pick<LoadOptions, 'url' | 'method' | 'headers' | 'body' | 'timeoutS'>): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const body = o.body !== undefined && o.body !== '' ? Buffer.from(o.body) : undefined;
    const timeoutS = o.timeoutS ?? 10;
    // The load is on a loopback host (load-run.ts), whose certificate is the app's own.
    const request = o.url.startsWith('https:') ? https.request : http.request;
    const req = request(
      o.url,
      {
        method: o.method ?? 'GET',
        headers: { ...o.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        timeout: timeoutS * 1000,
        rejectUnauthorized: false,
        // A connection of its own: nothing kept open into the warm-up.
        agent: false,
      },
      (res) => {
        res.resume(); // the body does not matter, only that it came
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          resolve(status < 400 ? { ok: true, status } : { ok: false, status, statusText: res.statusMessage });
        });
        res.on('error', (err) => resolve({ ok: false, error: err.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within the ${timeoutS} s timeout`)));
    req.on('error', (err) => resolve({ ok: false, error: err.message }));
    req.end(body);
  });
}

/** The one line a refused run prints: "every request failed: POST /logn answered 404 Not Found …". */
export function probeFailureLine(o: Pick<LoadOptions, 'url' | 'method'>, p: ProbeOutcome): string {
  const what =
    p.status !== undefined
      ? `answered ${p.status}${p.statusText ? ` ${p.statusText}` : ''}`
      : `failed (${p.error ?? 'no answer'})`;
  return `Every request failed before the warm-up: ${(o.method ?? 'GET').toUpperCase()} ${o.url} ${what}; nothing was measured (check --url, --method, --body and --header).`;
}
