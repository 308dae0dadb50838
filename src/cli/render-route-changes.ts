// A request mix compared per route (verdicts/route-compare.ts): the CLI's table of each route's
// time per request (its median request's main-thread time), CPU per request from the profile,
// req/s and p99, each with its verdict (`hotline compare`, `--baseline`), and the gate's lines
// per route (`hotline gate`, `--fail-if-slower`): which route got slower, named, and which stayed
// within noise.
import {
  type Comparison,
  type Delta,
  type GateVerdict,
  intervalPct,
  type RouteChange,
  type RouteGateCheck,
  signedPct,
  tooShortText,
} from '../core/index.ts';
import { num } from '../format.ts';
import { column } from './render-parts.ts';

/** The verdict of one route's figure: "+11% [+6%, +16%] worse", "−1% within noise", "no spread". */
function cell(d: Delta | undefined, inferred?: RouteChange['inferred']): string {
  if (!d) return '–';
  const pct = d.noise?.changePct ?? d.changePct;
  const change = pct !== undefined ? signedPct(pct) : '';
  const n = d.noise ?? inferred;
  if (!n) return `${change} (no spread)`;
  if (n.verdict === 'too short' && d.noise) return `${change} ${tooShortText(d.noise)}`;
  const interval = n.lowPct !== undefined && n.highPct !== undefined ? ` ${intervalPct(n.lowPct, n.highPct, 0)}` : '';
  const word = n.verdict === 'within noise' ? '~noise' : n.verdict;
  return `${change}${interval} ${word}${!d.noise && inferred ? ' (inferred)' : ''}`;
}

/** `hotline compare`: one row per route, its figures with their verdicts; added and gone routes last. */
export function renderRouteChanges(c: Pick<Comparison, 'routes'>): string[] {
  const routes = c.routes;
  if (!routes || routes.length === 0) return [];
  const both = routes.filter((r) => r.presence === 'both');
  const withCpu = both.some((r) => r.cpuPerRequestMs);
  const out = [
    '',
    'Routes (base → now; each against its own noise: its value per sub-window on both sides)',
    `  ${column('route', 28)}  ${column('time/request (median, thread)', 34)}  ${withCpu ? `${column('CPU/request (profile)', 34)}  ` : ''}${column('req/s', 30)}  p99`,
  ];
  for (const r of both) {
    const ms = (d: Delta | undefined, inferred?: RouteChange['inferred']): string =>
      d ? `${num(d.base)} → ${num(d.current)} ms ${cell(d, inferred)}` : '–';
    const cpu = `${ms(r.threadMs).padEnd(34)}  ${withCpu ? `${ms(r.cpuPerRequestMs, r.inferred).padEnd(34)}  ` : ''}`;
    const rps = r.requestsPerSecond
      ? `${num(r.requestsPerSecond.base)} → ${num(r.requestsPerSecond.current)} ${cell(r.requestsPerSecond)}`
      : '–';
    const p99 = r.latencyP99Ms
      ? `${num(r.latencyP99Ms.base)} → ${num(r.latencyP99Ms.current)} ms ${cell(r.latencyP99Ms)}`
      : '–';
    out.push(`  ${column(`${r.method} ${r.route}`, 28)}  ${cpu}${rps.padEnd(30)}  ${p99}`);
  }
  for (const r of routes.filter((x) => x.presence !== 'both'))
    out.push(
      `  ${column(`${r.method} ${r.route}`, 28)}  ${r.presence === 'added' ? 'added: only now' : 'gone: only in the base'}`,
    );
  const why = [...new Set(both.map((r) => r.noVerdict).filter((x): x is string => x !== undefined))];
  for (const w of why) out.push(`  (no verdict where: ${w})`);
  return out;
}

/** "GET /orders/{n} time/request +11% [+6%, +16%]". */
const named = (r: RouteGateCheck): string =>
  `${r.method} ${r.route} time/request ${signedPct(r.changePct)}${r.lowPct !== undefined && r.highPct !== undefined ? ` ${intervalPct(r.lowPct, r.highPct, 0)}` : ''}`;

/**
 * The gate's lines per route: each route's time per request (its median request's, on the main
 * thread) against the threshold, then who got slower (named) and who stayed within noise.
 */
export function routeGateLines(v: GateVerdict): string[] {
  if (!v.decided || !v.routes || v.routes.length === 0) return [];
  const out = v.routes.map((r) => {
    const outcome =
      r.outcome === 'regressed'
        ? 'REGRESSED'
        : r.outcome === 'undecided'
          ? `cannot tell: could be up to ${signedPct(r.upToPct ?? 0)} slower`
          : r.verdict === 'within noise'
            ? 'ok, within noise'
            : 'ok';
    const interval = r.lowPct !== undefined && r.highPct !== undefined ? ` ${intervalPct(r.lowPct, r.highPct)}` : '';
    return `gate: route ${column(`${r.method} ${r.route}`, 24)} time/request ${num(r.base)} → ${num(r.current)} ms (${signedPct(r.changePct)}${interval}, limit +${v.thresholdPct}%)  ${outcome}`;
  });
  const slower = v.routes.filter((r) => r.outcome === 'regressed');
  const noise = v.routes.filter((r) => r.outcome === 'ok' && r.verdict === 'within noise');
  if (slower.length > 0) out.push(`gate: slower: ${slower.map(named).join('; ')}`);
  if (noise.length > 0) out.push(`gate: within noise: ${noise.map((r) => `${r.method} ${r.route}`).join(', ')}`);
  return out;
}

/** The routes that regressed, named, for the gate's last line; empty when none did. */
export function slowerRoutes(v: GateVerdict): string {
  if (!v.decided || !v.routes) return '';
  return v.routes
    .filter((r) => r.outcome === 'regressed')
    .map(named)
    .join('; ');
}
