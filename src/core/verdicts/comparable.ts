// Can two runs be compared at all? A verdict on two different requests (another URL, another
// body, another app) says nothing about a change of the code, so those differences refuse it;
// smaller ones (how long it ran, the sampling interval) are named beside the verdict. Pure and
// browser-safe: two reports in, the differences out.
import type { ReportV1 } from '../report/index.ts';

export interface Comparability {
  /** What was loaded differs: no verdict unless forced. Each names the difference, base vs current. */
  refusals: string[];
  /** Differences the verdict can live with, named beside it. */
  notes: string[];
}

/** Thrown where a comparison was asked for runs that differ in what was loaded. */
export class IncomparableError extends Error {
  constructor(readonly refusals: string[]) {
    super(refusalLine(refusals));
    this.name = 'IncomparableError';
  }
}

/** The one line a refused comparison prints. */
export function refusalLine(refusals: string[]): string {
  return `the runs are not comparable: ${refusals.join('; ')} (--force compares them anyway)`;
}

export function comparabilityOf(base: ReportV1, current: ReportV1): Comparability {
  const refusals: string[] = [];
  const notes: string[] = [];
  const differ = (
    list: string[],
    what: string,
    b: unknown,
    c: unknown,
    show: (v: unknown) => string = String,
  ): void => {
    if (b === undefined || c === undefined || same(b, c)) return;
    list.push(`${what} ${show(b)} vs ${show(c)}`);
  };
  const bs = base.settings;
  const cs = current.settings;
  differ(refusals, 'app', appOf(base), appOf(current));
  differ(refusals, 'method', bs.method.toUpperCase(), cs.method.toUpperCase());
  differ(refusals, 'URL', pathAndQuery(bs.url), pathAndQuery(cs.url));
  if ((bs.body ?? '') !== (cs.body ?? '')) refusals.push(`body ${bodyText(bs.body)} vs ${bodyText(cs.body)}`);
  // Another mix is another load, though its first request (the URL above) is the same.
  if (JSON.stringify(bs.requests ?? null) !== JSON.stringify(cs.requests ?? null))
    refusals.push(`request mix ${mixText(bs.requests)} vs ${mixText(cs.requests)}`);
  differ(refusals, 'connections', bs.connections, cs.connections);
  differ(refusals, 'pipelining', bs.pipelining, cs.pipelining);
  differ(refusals, 'Node', base.app.node, current.app.node);
  differ(refusals, 'load', loadToolOf(base), loadToolOf(current));
  differ(notes, 'duration', bs.durationS, cs.durationS, (v) => `${String(v)} s`);
  differ(notes, 'sampling interval', bs.samplingIntervalUs, cs.samplingIntervalUs, (v) => `${String(v)} µs`);
  differ(notes, 'warm-up', bs.warmupS, cs.warmupS, (v) => `${String(v)} s`);
  differ(notes, 'timeout', bs.timeoutS, cs.timeoutS, (v) => `${String(v)} s`);
  differ(notes, 'headers', headerText(bs.headers), headerText(cs.headers));
  differ(notes, 'environment', envText(bs.env), envText(cs.env));
  return { refusals, notes };
}

/** How the app was started: the entry and its arguments, the app attached to, or the command line. */
function appOf(r: ReportV1): string {
  const s = r.settings;
  if (s.attach) return `attached ${s.attach}`;
  if (s.entry) return [s.entry, ...(s.runtimeArgs ?? []), ...(s.args ?? [])].join(' ');
  return r.app.command.join(' ');
}

/** The path and query: the port is the run's own (a free one each time). */
export function pathAndQuery(url: string): string {
  try {
    const u = new URL(url, 'http://127.0.0.1');
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

function loadToolOf(r: ReportV1): string | undefined {
  if (!r.load) return undefined;
  return r.load.external ? `--load-command ${r.load.external.tool ?? 'external'}` : "Hotline's own";
}

function bodyText(body: string | undefined): string {
  if (body === undefined || body === '') return '(none)';
  return body.length > 40 ? `${JSON.stringify(body.slice(0, 37))}…` : JSON.stringify(body);
}

function mixText(mix: ReportV1['settings']['requests']): string {
  if (!mix) return '(none)';
  const shown = mix.slice(0, 2).map((r) => `${r.method} ${r.path} ×${r.weight}`);
  return `${mix.length} requests (${shown.join(', ')}${mix.length > 2 ? ', …' : ''})`;
}

const headerText = (h: Record<string, string> | undefined): string =>
  Object.entries(h ?? {})
    .map(([k, v]) => `${k.toLowerCase()}: ${v}`)
    .sort()
    .join(', ') || '(none)';

const envText = (e: Record<string, string> | undefined): string =>
  Object.entries(e ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join(' ') || '(none)';

const same = (a: unknown, b: unknown): boolean => a === b;
