// The Routes section of the terminal report: a mixed run's figures per route (report.routes),
// most CPU first when the app measured it, else most requests first, with the waits of each
// route's requests (and the line they waited on most) where the wait probe ran. Shown from two
// routes on.
import type { ReportV1, RouteFigures } from '../core/index.ts';
import { fmt, formatMs as ms, formatPct } from '../format.ts';
import { column, rel, type RenderOptions } from './render-parts.ts';

/** Routes listed one by one; the rest are counted. */
const LISTED = 15;

export function renderRoutes(r: ReportV1, o: RenderOptions): string[] {
  const routes = r.routes;
  if (!routes || routes.length < 2) return [];
  const bold = (s: string): string => (o.color ? `\x1b[1m${s}\x1b[22m` : s);
  const withCpu = routes.some((x) => x.cpuMsPerRequest !== undefined);
  const sorted = [...routes].sort(withCpu ? byCpu : (a, b) => b.requests - a.requests);
  const total = routes.reduce((s, x) => s + x.requests, 0);
  // A row of the app's time that served no request ("(no request)") is not a route of the mix.
  const served = routes.filter((x) => x.requests > 0).length;
  const cpuHead = withCpu ? `  ${'CPU/req'.padStart(8)}` : '';
  const withWaits = routes.some((x) => (x.waits?.length ?? 0) > 0);
  const waitsHead = withWaits ? `  ${'waits/req'.padStart(9)}` : '';
  const out = [
    `${bold('Routes')}  ${served} in the mix, ${withCpu ? 'most CPU' : 'most requests'} first (measured window)`,
    `  ${column('route', 32)}  ${'requests'.padStart(8)}  ${'share'.padStart(5)}  ${'req/s'.padStart(7)}  ${'p50'.padStart(7)}  ${'p99'.padStart(7)}  ${'errors'.padStart(6)}${cpuHead}${waitsHead}`,
  ];
  for (const x of sorted.slice(0, LISTED)) {
    const cpu = withCpu ? `  ${(x.cpuMsPerRequest !== undefined ? ms(x.cpuMsPerRequest) : '–').padStart(8)}` : '';
    const waited = x.waits?.reduce((t, w) => t + w.msPerRequest, 0);
    const waits = withWaits ? `  ${(waited !== undefined ? ms(waited) : '–').padStart(9)}` : '';
    out.push(
      `  ${column(`${x.method} ${x.route}`, 32)}  ${String(x.requests).padStart(8)}  ${formatPct(total > 0 ? (100 * x.requests) / total : 0).padStart(5)}  ${fmt(x.reqPerSec).padStart(7)}  ${(x.latencyMs ? ms(x.latencyMs.p50) : '–').padStart(7)}  ${(x.latencyMs ? ms(x.latencyMs.p99) : '–').padStart(7)}  ${String(x.errors).padStart(6)}${cpu}${waits}`,
    );
    // Where its requests waited most: the awaiting line, as the Waits section names it.
    const top = x.waits?.[0];
    if (top)
      out.push(
        `      waits most on ${rel(top.file, o.cwd)}:${top.line} (${top.kind}): ${ms(top.msPerRequest)}/request`,
      );
  }
  if (routes.length > LISTED) out.push(`  … and ${routes.length - LISTED} more (all in report.json)`);
  return out;
}

/** Total CPU (per request × requests), most first; routes without it last. */
function byCpu(a: RouteFigures, b: RouteFigures): number {
  const cpu = (x: RouteFigures): number => (x.cpuMsPerRequest ?? -1) * x.requests;
  return cpu(b) - cpu(a) || b.requests - a.requests;
}
