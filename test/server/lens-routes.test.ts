// Which routes a hot line serves (src/server/lens-text.ts): from report.routes, each route's own
// lines measured in the app; named on the line's lens and in its hover.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extrasMarkdown, hasExtras, routeSharesOf, routesLensText } from '../../src/server/lens-text.ts';
import type { RouteFigures } from '../../src/core/report/schema.ts';

const line = (l: number, ownMs: number) => ({ file: '/app/server.js', line: l, function: 'unit', ownMs, ownPct: 50 });
const route = (method: string, name: string, requests: number, lines: RouteFigures['lines']): RouteFigures => ({
  method,
  route: name,
  source: 'load',
  requests,
  reqPerSec: requests / 4,
  errors: 0,
  lines,
});

const ROUTES: RouteFigures[] = [
  route('GET', '/heavy/{n}', 86, [line(12, 2181), line(20, 13)]),
  route('GET', '/light/{n}', 175, [line(12, 1583), line(22, 19)]),
  route('GET', '/wait', 90, [line(37, 5)]),
  route('', '(no request)', 0, [line(12, 106)]),
];

test("a line's own time by the routes it served, most first, small parts left out", () => {
  const shares = routeSharesOf(ROUTES, '/app/server.js', 12);
  assert.deepEqual(
    shares.map((s) => [s.route, Math.round(s.pct)]),
    [
      ['GET /heavy/{n}', 56],
      ['GET /light/{n}', 41],
    ],
    'the (no request) row is 2.7%: under the 5% a route needs to be named',
  );
  assert.equal(routesLensText(shares), 'serves GET /heavy/{n} 56% · GET /light/{n} 41%');
  assert.deepEqual(
    routeSharesOf(ROUTES, '/app/server.js', 37).map((s) => s.route),
    ['GET /wait'],
  );
  assert.deepEqual(routeSharesOf(ROUTES, '/app/other.js', 12), [], 'another file');
});

test('no route lens for a run of one route, or without routes', () => {
  assert.deepEqual(routeSharesOf(undefined, '/app/server.js', 12), []);
  assert.deepEqual(routeSharesOf([ROUTES[0], ROUTES[3]], '/app/server.js', 12), []);
});

test('more than three routes: the rest counted', () => {
  const many = ['a', 'b', 'c', 'd', 'e'].map((r) => route('GET', `/${r}`, 10, [line(12, 100)]));
  assert.equal(
    routesLensText(routeSharesOf(many, '/app/server.js', 12)),
    'serves GET /a 20% · GET /b 20% · GET /c 20% · +2 more',
  );
});

test('the hover says it too', () => {
  const x = { waits: [], routes: routeSharesOf(ROUTES, '/app/server.js', 12) };
  assert.ok(hasExtras(x));
  const md = extrasMarkdown(x, { nonIdleMs: 100, underLoad: true, root: '/app', capacity: { wallMs: 2000 } }).join(
    '\n',
  );
  assert.match(md, /\*\*Routes:\*\* serves GET \/heavy\/\{n\} 56% · GET \/light\/\{n\} 41%/);
});
