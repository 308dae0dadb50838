// The load tools' outputs (test/fixtures/load-output/: wrk, ab, autocannon and Locust captured
// from real runs on this machine; artillery and k6 transcribed from their documented formats, see the
// README there) read into figures; and the command-line splitter the external load runs on.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  parseDurationMs,
  parseLoadOutput,
  sniffTool,
  toolOfCommand,
  type ParsedLoad,
} from '../../../src/core/load/parsers.ts';
import { CommandLineError, splitCommandLine } from '../../../src/core/load/argv.ts';

const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'load-output');
const fixture = (name: string): string => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

/** Parses a fixture by sniffing only (no command name), and checks every figure given. */
function check(name: string, expected: Partial<ParsedLoad> & Pick<ParsedLoad, 'tool'>): void {
  const text = fixture(name);
  const parsed = parseLoadOutput(text);
  assert.ok(parsed, `${name} parsed`);
  for (const [key, value] of Object.entries(expected)) {
    assert.deepEqual(parsed[key as keyof ParsedLoad], value, `${name}: ${key}`);
  }
}

test('wrk: req/s, total, mean and max latency; no percentiles without --latency', () => {
  check('wrk-plain.txt', {
    tool: 'wrk',
    total: 2491,
    perSecond: 812.06,
    durationS: 3.07,
    latencyMs: { mean: 28.16, max: 228.37 },
    errors: 0,
    timeouts: 0,
    non2xx: 0,
  });
});

test('wrk --latency: p50/p90/p99 from the distribution, and non-2xx responses', () => {
  check('wrk-latency-non2xx.txt', {
    tool: 'wrk',
    total: 1660,
    perSecond: 538.32,
    latencyMs: { mean: 46.6, p50: 27.98, p90: 96.93, p99: 276.66, max: 499.57 },
    non2xx: 165,
    errors: 0,
  });
});

test('wrk where every request timed out: socket errors counted, no latency made up from 0.00us', () => {
  check('wrk-timeouts.txt', { tool: 'wrk', perSecond: 3.29, latencyMs: {}, errors: 10, timeouts: 10 });
});

test('ab: percentiles (100% is the max), mean time per request, totals', () => {
  check('ab-plain.txt', {
    tool: 'ab',
    total: 2000,
    perSecond: 746.53,
    durationS: 2.679,
    latencyMs: { mean: 26.791, p50: 22, p90: 40, p99: 137, max: 141 },
    errors: 0,
    non2xx: 0,
  });
  check('ab-timed.txt', { tool: 'ab', total: 2285, perSecond: 761.29, durationS: 3.001 });
});

test('ab: "Length" failures of a dynamic page are not errors; Non-2xx responses are counted', () => {
  check('ab-non2xx.txt', {
    tool: 'ab',
    total: 1000,
    perSecond: 709.85,
    latencyMs: { mean: 14.087, p50: 11, p90: 24, p99: 40, max: 48 },
    errors: 0,
    non2xx: 100,
  });
});

test('autocannon CLI table: the exact total from the 2xx/non-2xx line, Avg req/s, no p90 (not in the table)', () => {
  check('autocannon-text.txt', {
    tool: 'autocannon',
    total: 3014,
    perSecond: 1004.67,
    durationS: 3.03,
    latencyMs: { mean: 9.49, p50: 9, p99: 33, max: 50 },
    errors: 0,
    non2xx: 302,
  });
});

test('autocannon CLI with only timeouts: errors and timeouts, and no latency from its zero table', () => {
  check('autocannon-timeouts.txt', {
    tool: 'autocannon',
    total: 15,
    perSecond: 0,
    latencyMs: {},
    errors: 10,
    timeouts: 10,
  });
});

test('autocannon --json: everything, p90 included, and status codes', () => {
  check('autocannon-json.json', {
    tool: 'autocannon',
    total: 2582,
    perSecond: 860.67,
    durationS: 3.01,
    latencyMs: { mean: 11.12, p50: 10, p90: 16, p99: 23, max: 31 },
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    statusCodes: { 200: 2582 },
  });
});

test('artillery 2: the last summary report (not the periodic ones), codes, ETIMEDOUT as timeouts', () => {
  check('artillery-v2.txt', {
    tool: 'artillery',
    total: 497,
    perSecond: 50,
    latencyMs: { mean: 7.4, p50: 4, p99: 51.9, max: 87 },
    errors: 3,
    timeouts: 3,
    non2xx: 36,
    statusCodes: { 200: 461, 500: 36 },
  });
});

test('artillery 1: sections of the summary report', () => {
  check('artillery-v1.txt', {
    tool: 'artillery',
    total: 194,
    perSecond: 19.61,
    latencyMs: { p50: 3.4, p99: 30.5, max: 48.2 },
    errors: 6,
    timeouts: 2,
    non2xx: 4,
    statusCodes: { 200: 190, 404: 4 },
  });
});

test('k6 legacy summary: http_req_duration (not its expected_response line), http_reqs, failed (✓ count)', () => {
  check('k6-legacy.txt', {
    tool: 'k6',
    total: 4796,
    perSecond: 478.612,
    latencyMs: { mean: 41.37, p50: 35.9, p90: 78.64, max: 1020 },
    errors: 59,
  });
});

test('k6 1.x summary: p(99) when asked for, Go durations (1m2s), "N out of M" failures', () => {
  check('k6-v1.txt', {
    tool: 'k6',
    total: 5421,
    perSecond: 541.937,
    latencyMs: { mean: 18.2, p50: 14.03, p90: 33.48, p99: 88.15, max: 62000 },
    errors: 20,
  });
});

test("k6 --summary-export JSON: a Rate metric's passes are the failed requests", () => {
  check('k6-summary-export.json', {
    tool: 'k6',
    total: 4796,
    perSecond: 478.612,
    latencyMs: { mean: 41.37, p50: 35.9, p90: 78.64, max: 1020.3 },
    errors: 59,
  });
});

test('Locust: the last stats table (not the periodic ones), percentiles, 404s as non-2xx; exit 1 is not fatal', () => {
  check('locust-failures.txt', {
    tool: 'locust',
    total: 1180,
    perSecond: 275.14,
    latencyMs: { mean: 10, p50: 8, p90: 18, p99: 62, max: 146 },
    errors: 0,
    timeouts: 0,
    non2xx: 299,
  });
});

test('Locust: refused connections are errors, not non-2xx', () => {
  check('locust-refused.txt', { tool: 'locust', total: 1618, perSecond: 988.4, errors: 1618, non2xx: 0 });
});

test("Locust master with two workers (sh -c): the master's summary among the workers' log lines", () => {
  check('locust-distributed.txt', {
    tool: 'locust',
    total: 186,
    perSecond: 62.23,
    latencyMs: { mean: 59, p50: 52, p90: 110, p99: 180, max: 209 },
    errors: 0,
    timeouts: 0,
    non2xx: 0,
  });
});

test('Locust --csv PREFIX_stats.csv: the Aggregated row, failures not split by kind', () => {
  check('locust-stats.csv', {
    tool: 'locust',
    total: 1137,
    perSecond: 286.095,
    latencyMs: { mean: 9.808, p50: 7, p90: 17, p99: 62, max: 146.035 },
    errors: 283,
  });
  assert.equal(parseLoadOutput(fixture('locust-stats.csv'))?.non2xx, undefined);
});

test('an unknown format is not parsed, and a known tool whose output has no figures is not either', () => {
  assert.equal(parseLoadOutput('hey, 200 requests done\n'), undefined);
  assert.equal(sniffTool('hey, 200 requests done\n'), undefined);
  assert.equal(parseLoadOutput('wrk: invalid URL\n', ['wrk', 'nope']), undefined);
});

test('the tool is named by the command first (npx and node wrappers too), then sniffed', () => {
  assert.equal(toolOfCommand(['wrk', '-t2', 'http://127.0.0.1:1/']), 'wrk');
  assert.equal(toolOfCommand(['/usr/bin/ab', '-n', '10']), 'ab');
  assert.equal(toolOfCommand(['npx', 'autocannon', '-c', '10']), 'autocannon');
  assert.equal(toolOfCommand(['node', 'node_modules/.bin/autocannon']), 'autocannon');
  assert.equal(toolOfCommand(['k6', 'run', 'x.js']), 'k6');
  assert.equal(toolOfCommand(['hey', '-n', '10']), undefined);
  assert.equal(toolOfCommand(['python3', '-m', 'locust', '-f', 'x.py']), 'locust');
  // A Locust master and its workers: one shell line, several processes.
  const master = 'locust -f l.py --worker & locust -f l.py --worker & locust -f l.py --master --headless; wait';
  assert.equal(toolOfCommand(['sh', '-c', master]), 'locust');
  assert.equal(toolOfCommand(['/bin/bash', '-c', 'sleep 1; wrk -d1s http://127.0.0.1:1/']), 'wrk');
  assert.equal(toolOfCommand(['sh', '-c', 'echo hi']), undefined);
  // autocannon's table also starts with "Running 3s test @", like wrk's: sniffing tells them apart.
  assert.equal(sniffTool(fixture('autocannon-text.txt')), 'autocannon');
  assert.equal(sniffTool(fixture('wrk-plain.txt')), 'wrk');
  for (const name of fs.readdirSync(FIXTURES).filter((f) => f !== 'README.md')) {
    assert.equal(sniffTool(fixture(name)), name.split('-')[0], name);
  }
});

test('durations in every unit the tools print', () => {
  assert.equal(parseDurationMs('28.16ms'), 28.16);
  assert.equal(parseDurationMs('812.5us'), 0.813);
  assert.equal(parseDurationMs('7µs'), 0.007);
  assert.equal(parseDurationMs('1.02s'), 1020);
  assert.equal(parseDurationMs('1m2.5s'), 62500);
  assert.equal(parseDurationMs('5 ms'), 5);
  assert.equal(parseDurationMs('2.00m'), 120000);
  assert.equal(parseDurationMs('-nan%'), undefined);
  assert.equal(parseDurationMs('12'), undefined);
});

test('command lines split like a shell would for quotes and escapes, without a shell', () => {
  assert.deepEqual(splitCommandLine('wrk -t2 -c50 -d10s http://127.0.0.1:{port}/login'), [
    'wrk',
    '-t2',
    '-c50',
    '-d10s',
    'http://127.0.0.1:{port}/login',
  ]);
  assert.deepEqual(splitCommandLine(`ab -p body.json -T 'application/json' -H "Authorization: Bearer x" {url}`), [
    'ab',
    '-p',
    'body.json',
    '-T',
    'application/json',
    '-H',
    'Authorization: Bearer x',
    '{url}',
  ]);
  assert.deepEqual(splitCommandLine(`  a\\ b "c\\"d" 'e"f' ""  `), ['a b', 'c"d', 'e"f', '']);
  assert.deepEqual(splitCommandLine('x "it\'s" a\tb'), ['x', "it's", 'a', 'b']);
  for (const bad of [
    'wrk url | tee out',
    'wrk $URL',
    'ab > log',
    'wrk "unclosed',
    "ab 'x",
    'wrk "$(id)"',
    'a; b',
    'x \\',
    '   ',
  ]) {
    assert.throws(() => splitCommandLine(bad), CommandLineError, bad);
  }
});
