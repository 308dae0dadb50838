// The end-of-run output of load tools people already use (wrk, ab, autocannon's CLI, artillery,
// k6, Locust) read into load figures. Pure: text in, figures out. Each tool reports a different
// subset (ab and wrk have no p90 without options, autocannon's table has no p90, artillery no
// p90, Locust rounds its percentiles): what a format lacks is left out, never made up.
// Fixtures: test/fixtures/load-output/.

export type LoadTool = 'wrk' | 'ab' | 'autocannon' | 'artillery' | 'k6' | 'locust';
export const LOAD_TOOLS: readonly LoadTool[] = ['wrk', 'ab', 'autocannon', 'artillery', 'k6', 'locust'];

export interface ParsedLoad {
  tool: LoadTool;
  /** Responses received (any status), when the tool says. */
  total?: number;
  perSecond?: number;
  durationS?: number;
  /** Milliseconds; only the statistics the tool printed. */
  latencyMs: { mean?: number; p50?: number; p90?: number; p99?: number; max?: number };
  /** Failed requests (socket errors, timeouts) as the tool counts them. */
  errors?: number;
  timeouts?: number;
  non2xx?: number;
  statusCodes?: Record<string, number>;
}

/**
 * Which tool a command runs: its program name, or the one after npx/node/yarn/pnpm/python -m;
 * for `sh -c SCRIPT` (a Locust master and its workers), the first of the script's commands that
 * names one.
 */
export function toolOfCommand(argv: readonly string[]): LoadTool | undefined {
  const script = shellScriptOf(argv);
  if (script !== undefined) {
    for (const command of script.split(/[;&|\n]+/)) {
      const tool = toolOfCommand(command.trim().split(/\s+/));
      if (tool) return tool;
    }
    return undefined;
  }
  for (const arg of argv.slice(0, 3)) {
    const name = (arg.split(/[\\/]/).pop() ?? '').replace(/\.(c?js|exe|cmd)$/i, '').toLowerCase();
    if (name === 'wrk' || name === 'wrk2') return 'wrk';
    if (name === 'ab' || name === 'ab2') return 'ab';
    if (name === 'autocannon' || name === 'artillery' || name === 'k6' || name === 'locust') return name;
    if (!['npx', 'node', 'yarn', 'pnpm', 'bunx', 'exec', 'run', 'python3', 'python', '-m'].includes(name))
      return undefined;
  }
  return undefined;
}

/** The script of `sh -c SCRIPT` (bash, dash too); undefined for any other command. */
export function shellScriptOf(argv: readonly string[]): string | undefined {
  const name = argv[0]?.split('/').pop();
  return ['sh', 'bash', 'dash'].includes(name ?? '') && argv[1] === '-c' ? argv[2] : undefined;
}

/** Which tool printed `text`, by marks each one's output always has. */
export function sniffTool(text: string): LoadTool | undefined {
  if (/This is ApacheBench/.test(text) || /^Requests per second:\s/m.test(text)) return 'ab';
  if (/^Running \S+ test @ /m.test(text) && /Requests\/sec:/.test(text)) return 'wrk';
  if (/Summary report @/.test(text)) return 'artillery';
  if (/http_req_duration[.\s]*:/.test(text) || /"http_req_duration"/.test(text)) return 'k6';
  if (LOCUST_STATS_HEADER.test(text) || LOCUST_CSV_HEADER.test(text)) return 'locust';
  if (/Req\/Sec/.test(text) && /requests in [\d.]+s/.test(text)) return 'autocannon';
  if (/"latency"\s*:\s*\{/.test(text) && /"requests"\s*:\s*\{/.test(text)) return 'autocannon';
  return undefined;
}

/**
 * Figures from a tool's output: the tool named by the command if it has one, else sniffed.
 * Undefined when the format is unknown or nothing usable (neither req/s nor a total) was found.
 */
export function parseLoadOutput(text: string, argv: readonly string[] = []): ParsedLoad | undefined {
  const tool = toolOfCommand(argv) ?? sniffTool(text);
  if (tool === undefined) return undefined;
  const parsed = PARSERS[tool](text);
  if (parsed === undefined || (parsed.perSecond === undefined && parsed.total === undefined)) return undefined;
  if (parsed.perSecond === undefined && parsed.total !== undefined && parsed.durationS)
    parsed.perSecond = round(parsed.total / parsed.durationS);
  return parsed;
}

const PARSERS: Record<LoadTool, (text: string) => ParsedLoad | undefined> = {
  wrk: parseWrk,
  ab: parseAb,
  autocannon: (text) => parseAutocannonJson(text) ?? parseAutocannonText(text),
  artillery: parseArtillery,
  k6: (text) => parseK6Json(text) ?? parseK6Text(text),
  locust: (text) => parseLocustText(text) ?? parseLocustCsv(text),
};

// ---- units -----------------------------------------------------------------------------------

const round = (v: number, digits = 3): number => Math.round(v * 10 ** digits) / 10 ** digits;

const TIME_UNITS_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `28.16ms`, `0.00us`, `1.02s`, `1m2.5s` (Go, k6), `3 ms` (autocannon) → ms; undefined if not a time. */
export function parseDurationMs(text: string): number | undefined {
  const t = text.trim().replace(/\s+/g, '');
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(t)) return undefined;
  let ms = 0;
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) ms += Number(m[1]) * TIME_UNITS_MS[m[2]];
  return round(ms);
}

/** `1,004.67`, `3k`, `0.92k`, `1.2M` → number. */
export function parseCount(text: string): number | undefined {
  const m = /^([\d,]+(?:\.\d+)?)([kKmM]?)$/.exec(text.trim());
  if (!m) return undefined;
  const scale = m[2] === '' ? 1 : m[2].toLowerCase() === 'k' ? 1e3 : 1e6;
  return round(Number(m[1].replace(/,/g, '')) * scale);
}

const num = (re: RegExp, text: string): number | undefined => {
  const m = re.exec(text);
  return m ? parseCount(m[1]) : undefined;
};

function definedOnly<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

// ---- wrk -------------------------------------------------------------------------------------

function parseWrk(text: string): ParsedLoad | undefined {
  const done = /^\s*(\d+) requests in ([\d.]+\w+),/m.exec(text);
  const latency = /^\s*Latency\s+(\S+)\s+\S+\s+(\S+)/m.exec(text);
  const pct = (p: string): number | undefined => {
    const m = new RegExp(`^\\s*${p}(?:\\.0+)?%\\s+(\\S+)\\s*$`, 'm').exec(text);
    return m ? parseDurationMs(m[1]) : undefined;
  };
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  // With no completed request wrk prints 0.00us and -nan%: there is no latency to report.
  const anyCompleted = latency !== null && !/nan/i.test(latency[0]) && parseDurationMs(latency[2]) !== 0;
  return {
    tool: 'wrk',
    total: done ? Number(done[1]) : undefined,
    durationS: done ? (parseDurationMs(done[2]) ?? 0) / 1000 || undefined : undefined,
    perSecond: num(/^Requests\/sec:\s+([\d.]+)/m, text),
    latencyMs: anyCompleted
      ? definedOnly({
          mean: parseDurationMs(latency[1]),
          p50: pct('50'),
          p90: pct('90'),
          p99: pct('99'),
          max: parseDurationMs(latency[2]),
        })
      : {},
    errors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    timeouts: socket ? Number(socket[4]) : 0,
    non2xx: num(/Non-2xx or 3xx responses:\s+(\d+)/, text) ?? 0,
  };
}

// ---- ab (ApacheBench) ------------------------------------------------------------------------

function parseAb(text: string): ParsedLoad | undefined {
  const pct = (p: string): number | undefined => num(new RegExp(`^\\s*${p}%\\s+(\\d+)`, 'm'), text);
  // "Failed requests" also counts responses whose length differs from the first one (any
  // dynamic page): only connect/receive/exception failures are errors.
  const kinds = /\(Connect: (\d+), Receive: (\d+), Length: \d+, Exceptions: (\d+)\)/.exec(text);
  const failed = num(/^Failed requests:\s+(\d+)/m, text);
  return {
    tool: 'ab',
    total: num(/^Complete requests:\s+(\d+)/m, text),
    durationS: num(/^Time taken for tests:\s+([\d.]+) seconds/m, text),
    perSecond: num(/^Requests per second:\s+([\d.]+)/m, text),
    latencyMs: definedOnly({
      mean: num(/^Time per request:\s+([\d.]+) \[ms\] \(mean\)$/m, text),
      p50: pct('50'),
      p90: pct('90'),
      p99: pct('99'),
      max: pct('100'),
    }),
    errors: kinds ? Number(kinds[1]) + Number(kinds[2]) + Number(kinds[3]) : failed === 0 ? 0 : undefined,
    non2xx: num(/^Non-2xx responses:\s+(\d+)/m, text) ?? 0,
  };
}

// ---- autocannon CLI --------------------------------------------------------------------------

/** The rows of autocannon's box-drawn tables, by their first cell, as header → value. */
function autocannonRows(text: string): Map<string, Record<string, string>> {
  const rows = new Map<string, Record<string, string>>();
  let header: string[] | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('│')) continue;
    const cells = line
      .split('│')
      .slice(1, -1)
      .map((c) => c.trim());
    if (cells[0] === 'Stat') header = cells;
    else if (header) rows.set(cells[0], Object.fromEntries(header.map((h, i) => [h, cells[i]])));
  }
  return rows;
}

function parseAutocannonText(text: string): ParsedLoad | undefined {
  const rows = autocannonRows(text);
  const latency = rows.get('Latency');
  const reqSec = rows.get('Req/Sec');
  if (!latency && !reqSec) return undefined;
  const ms = (cell: string | undefined): number | undefined => (cell === undefined ? undefined : parseDurationMs(cell));
  const perSecond = reqSec ? parseCount(reqSec.Avg) : undefined;
  const done = /^([\d.]+[kM]?) requests in ([\d.]+)s/m.exec(text);
  const codes = /^(\d+) 2xx responses, (\d+) non 2xx responses/m.exec(text);
  const samples = num(/^# of samples: (\d+)/m, text);
  // "3k requests": autocannon rounds the total; the per-second samples add up exactly.
  // (With no response at all its latency table is zeros: nothing was measured.)
  const total = codes
    ? Number(codes[1]) + Number(codes[2])
    : done && /^\d+$/.test(done[1])
      ? Number(done[1])
      : perSecond !== undefined && samples !== undefined
        ? Math.round(perSecond * samples)
        : undefined;
  const errors = /^(\d+) errors \((\d+) timeouts\)/m.exec(text);
  return {
    tool: 'autocannon',
    total,
    durationS: done ? Number(done[2]) : undefined,
    perSecond,
    latencyMs:
      total === 0 || perSecond === 0
        ? {}
        : definedOnly({
            mean: ms(latency?.Avg),
            p50: ms(latency?.['50%']),
            p99: ms(latency?.['99%']),
            max: ms(latency?.Max),
          }),
    errors: errors ? Number(errors[1]) : 0,
    timeouts: errors ? Number(errors[2]) : 0,
    non2xx: codes ? Number(codes[2]) : 0,
  };
}

function parseAutocannonJson(text: string): ParsedLoad | undefined {
  const r = jsonObjectIn(text) as
    | {
        requests?: Record<string, number>;
        latency?: Record<string, number>;
        duration?: number;
        errors?: number;
        timeouts?: number;
        non2xx?: number;
        statusCodeStats?: Record<string, { count: number }>;
      }
    | undefined;
  if (!r?.requests || !r.latency) return undefined;
  const completed = (r.latency.totalCount ?? r.requests.total) > 0;
  return {
    tool: 'autocannon',
    total: r.requests.total,
    durationS: r.duration,
    perSecond: r.requests.average,
    latencyMs: completed
      ? definedOnly({
          mean: r.latency.mean,
          p50: r.latency.p50,
          p90: r.latency.p90,
          p99: r.latency.p99,
          max: r.latency.max,
        })
      : {},
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    statusCodes: r.statusCodeStats
      ? Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count]))
      : undefined,
  };
}

/** The JSON object a tool printed on a line of its own, if any. */
function jsonObjectIn(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  for (const candidate of [text.slice(start), ...text.split('\n').filter((l) => l.trim().startsWith('{'))]) {
    try {
      const v = JSON.parse(candidate) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // not JSON: try the next candidate
    }
  }
  return undefined;
}

// ---- artillery -------------------------------------------------------------------------------

/** `name: ....... value` lines and indented blocks under `name:` of the last summary report. */
function artillerySummary(
  text: string,
): { values: Map<string, string>; blocks: Map<string, Map<string, string>> } | undefined {
  const at = text.lastIndexOf('Summary report @');
  if (at < 0) return undefined;
  const values = new Map<string, string>();
  const blocks = new Map<string, Map<string, string>>();
  let block: Map<string, string> | undefined;
  let blockIndent = -1;
  for (const line of text.slice(at).split('\n').slice(1)) {
    const m = /^(\s*)([^:]+?):\s*(?:\.+\s*)?(.*)$/.exec(line);
    if (!m || /^-+$/.test(line.trim())) continue;
    const indent = m[1].length;
    const [, , name, value] = m;
    if (block && indent > blockIndent) {
      block.set(name.trim(), value.trim());
      continue;
    }
    block = undefined;
    if (value.trim() === '') {
      block = new Map();
      blockIndent = indent;
      blocks.set(name.trim(), block);
    } else values.set(name.trim(), value.trim());
  }
  return { values, blocks };
}

function parseArtillery(text: string): ParsedLoad | undefined {
  const s = artillerySummary(text);
  if (!s) return undefined;
  const n = (v: string | undefined): number | undefined =>
    v === undefined ? undefined : parseCount(v.replace(/\/sec$/, '').split(/\s/)[0]);
  // Artillery 2 names metrics (http.codes.200, errors.ETIMEDOUT); Artillery 1 prints sections.
  const v2 = [...s.values.keys()].some((k) => k.startsWith('http.'));
  const codes: Record<string, number> = {};
  const errors: Record<string, number> = {};
  if (v2) {
    for (const [k, v] of s.values) {
      const code = /^http\.codes\.(\d{3})$/.exec(k);
      if (code) codes[code[1]] = n(v) ?? 0;
      if (k.startsWith('errors.')) errors[k.slice(7)] = n(v) ?? 0;
    }
  } else {
    for (const [k, v] of s.blocks.get('Codes') ?? []) codes[k] = n(v) ?? 0;
    for (const [k, v] of s.blocks.get('Errors') ?? []) errors[k] = n(v) ?? 0;
  }
  const rt = v2
    ? s.blocks.get('http.response_time')
    : (s.blocks.get('Response time (msec)') ?? s.blocks.get('Request latency'));
  const sum = (o: Record<string, number>, keep: (k: string) => boolean): number =>
    Object.entries(o)
      .filter(([k]) => keep(k))
      .reduce((t, [, c]) => t + c, 0);
  return {
    tool: 'artillery',
    total: v2 ? (n(s.values.get('http.responses')) ?? sum(codes, () => true)) : n(s.values.get('Requests completed')),
    perSecond: v2
      ? n(s.values.get('http.request_rate'))
      : n(s.values.get('Mean response/sec') ?? s.values.get('RPS sent')),
    latencyMs: definedOnly({
      mean: n(rt?.get('mean')),
      p50: n(rt?.get('median')),
      p99: n(rt?.get('p99')),
      max: n(rt?.get('max')),
    }),
    errors: sum(errors, () => true),
    timeouts: sum(errors, (k) => /ETIMEDOUT|ESOCKETTIMEDOUT|timeout/i.test(k)),
    non2xx: sum(codes, (k) => !k.startsWith('2')),
    statusCodes: codes,
  };
}

// ---- k6 --------------------------------------------------------------------------------------

function parseK6Text(text: string): ParsedLoad | undefined {
  // The first line of each metric: `{ expected_response:true }` sub-lines come after it.
  const metric = (name: string): string | undefined => new RegExp(`^\\s*${name}\\.*:\\s*(.*)$`, 'm').exec(text)?.[1];
  const duration = metric('http_req_duration');
  const reqs = metric('http_reqs');
  if (duration === undefined && reqs === undefined) return undefined;
  const stat = (key: string): number | undefined => {
    const m = duration ? new RegExp(`(?:^|\\s)${key.replace(/[()]/g, '\\$&')}=(\\S+)`).exec(duration) : null;
    return m ? parseDurationMs(m[1]) : undefined;
  };
  const counts = reqs ? /^(\d+)\s+([\d.]+)\/s/.exec(reqs) : null;
  // http_req_failed: legacy `1.23% ✓ 59 ✗ 4737` (✓ = failed), v1 `0.37% 20 out of 5421`.
  const failedLine = metric('http_req_failed') ?? '';
  const failed = /✓\s*(\d+)/.exec(failedLine)?.[1] ?? /(\d+) out of \d+/.exec(failedLine)?.[1];
  return {
    tool: 'k6',
    total: counts ? Number(counts[1]) : undefined,
    perSecond: counts ? round(Number(counts[2])) : undefined,
    latencyMs: definedOnly({
      mean: stat('avg'),
      p50: stat('med'),
      p90: stat('p(90)'),
      p99: stat('p(99)'),
      max: stat('max'),
    }),
    errors: failed !== undefined ? Number(failed) : undefined,
  };
}

/** k6 --summary-export (or handleSummary JSON): `metrics.http_req_duration` etc., values in ms. */
function parseK6Json(text: string): ParsedLoad | undefined {
  const metrics = jsonObjectIn(text)?.metrics as Record<string, Record<string, unknown>> | undefined;
  const d = metrics?.http_req_duration;
  const reqs = metrics?.http_reqs;
  if (!d && !reqs) return undefined;
  const get = (o: Record<string, unknown> | undefined, k: string): number | undefined =>
    typeof o?.[k] === 'number' ? (o[k] as number) : undefined;
  const failed = metrics?.http_req_failed;
  return {
    tool: 'k6',
    total: get(reqs, 'count'),
    perSecond: get(reqs, 'rate') === undefined ? undefined : round(get(reqs, 'rate')!),
    latencyMs: definedOnly({
      mean: get(d, 'avg'),
      p50: get(d, 'med'),
      p90: get(d, 'p(90)'),
      p99: get(d, 'p(99)'),
      max: get(d, 'max'),
    }),
    // A Rate metric's "passes" are its true values: for http_req_failed, the failed requests.
    errors: get(failed, 'passes'),
  };
}

// ---- Locust ----------------------------------------------------------------------------------

const LOCUST_STATS_HEADER = /^Type\s+Name\s+# reqs\s+# fails\s*\|/m;
const LOCUST_CSV_HEADER = /^Type,Name,Request Count,Failure Count,/m;

/**
 * Locust's console summary (headless; a master's, with or without --only-summary): the last
 * stats table's Aggregated row (requests, failures, avg/max, req/s), the percentiles table's
 * (50%/90%/99%: "approximated", rounded to 2 significant digits) and the error report, which tells HTTP status failures (non-2xx)
 * from the others (connection errors, timeouts). Locust counts a failed request in its # reqs.
 */
function parseLocustText(text: string): ParsedLoad | undefined {
  const headers = [...text.matchAll(new RegExp(LOCUST_STATS_HEADER.source, 'gm'))];
  if (headers.length === 0) return undefined;
  const last = text.slice(headers[headers.length - 1].index);
  const agg =
    /^\s+Aggregated\s+(\d+)\s*(\d+)\([\d.]+%\)\s*\|\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\|\s*([\d.]+)\s+([\d.]+)/m.exec(
      last,
    );
  if (!agg) return undefined;
  const [total, failures, avg, , max, median, perSecond] = agg.slice(1).map(Number);
  const pct: Record<string, number> = {};
  const at = text.lastIndexOf('Response time percentiles');
  if (at >= 0) {
    const lines = text.slice(at).split('\n');
    const header = lines.find((l) => /^Type\s+Name\s+50%/.test(l));
    const row = lines.find((l) => /^\s+Aggregated\s/.test(l));
    if (header && row) {
      const names = header.trim().split(/\s+/).slice(2); // 50% 66% … 100% # reqs
      const values = row.trim().split(/\s+/).slice(1);
      names.forEach((n, i) => {
        if (/^[\d.]+%$/.test(n) && /^\d+(\.\d+)?$/.test(values[i] ?? '')) pct[n] = Number(values[i]);
      });
    }
  }
  const kinds = locustErrorKinds(text, failures);
  return {
    tool: 'locust',
    total,
    perSecond,
    latencyMs:
      total === 0
        ? {}
        : definedOnly({
            mean: avg,
            p50: pct['50%'] ?? median,
            p90: pct['90%'],
            p99: pct['99%'],
            max, // the table's, exact to the ms (its 100% is rounded like its other percentiles)
          }),
    errors: kinds.errors,
    timeouts: kinds.timeouts,
    non2xx: kinds.non2xx,
  };
}

/** The error report's occurrences split: an HTTP status (non-2xx), a timeout, any other error. */
function locustErrorKinds(text: string, failures: number): { errors?: number; timeouts?: number; non2xx?: number } {
  if (failures === 0) return { errors: 0, timeouts: 0, non2xx: 0 };
  const at = text.lastIndexOf('\nError report\n');
  if (at < 0) return { errors: failures }; // failed, but no report says how
  let non2xx = 0;
  let timeouts = 0;
  let other = 0;
  for (const line of text
    .slice(at + 1)
    .split('\n')
    .slice(3)) {
    const m = /^(\d+)\s+(.*)$/.exec(line);
    if (!m) break; // the closing rule
    const n = Number(m[1]);
    // requests' HTTPError('404 Client Error: …'), FastHttpUser's BadStatusCode(…, code=404)
    if (/HTTPError\('\d{3} |BadStatusCode\(.*code=\d{3}/.test(m[2])) non2xx += n;
    else if (/timeout|timed out/i.test(m[2])) timeouts += n;
    else other += n;
  }
  return { errors: other + timeouts, timeouts, non2xx };
}

/** `--csv PREFIX`'s PREFIX_stats.csv: the Aggregated row (failures not split by kind there). */
function parseLocustCsv(text: string): ParsedLoad | undefined {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => LOCUST_CSV_HEADER.test(l));
  if (start < 0) return undefined;
  const names = lines[start].split(',');
  const row = lines.slice(start + 1).find((l) => l.split(',')[1] === 'Aggregated');
  if (!row) return undefined;
  const cells = row.split(',');
  const get = (name: string): number | undefined => {
    const v = cells[names.indexOf(name)];
    return v !== undefined && /^\d+(\.\d+)?$/.test(v) ? Number(v) : undefined;
  };
  const total = get('Request Count');
  const ms = (v: number | undefined): number | undefined => (v === undefined ? undefined : round(v));
  return {
    tool: 'locust',
    total,
    perSecond: ms(get('Requests/s')),
    latencyMs:
      total === 0
        ? {}
        : definedOnly({
            mean: ms(get('Average Response Time')),
            p50: get('50%') ?? ms(get('Median Response Time')),
            p90: get('90%'),
            p99: get('99%'),
            max: ms(get('Max Response Time')),
          }),
    errors: get('Failure Count'),
  };
}
