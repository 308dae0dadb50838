// Whether a second awaited line uses the first's result, read from the source
// (src/core/analysis/attribution/await-dependence.ts): names assigned on the first line, followed
// through the statements between, read on the second or by a test that decides whether it runs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { awaitDependence } from '../../../../src/core/analysis/attribution/await-dependence.ts';

/** The 1-based line of the first line holding `mark`. */
const lineOf = (text: string, mark: string): number => text.split('\n').findIndex((l) => l.includes(mark)) + 1;
const kindOf = (text: string): string => awaitDependence(text, lineOf(text, '// A'), lineOf(text, '// B')).kind;

test('independent: two awaits that share no name, whatever the first assigns', () => {
  assert.equal(
    kindOf(`async function h(id) {
  const user = await pg.query('SELECT * FROM users WHERE id = $1', [id]); // A
  const orders = await maria.query('SELECT * FROM orders WHERE user_id = ?', [id]); // B
  return { user, orders };
}`),
    'independent',
  );
  assert.equal(
    kindOf(`const routes = {
  async '/serial'() {
    await pg.query('SELECT pg_sleep($1)', [seconds]); // A
    await maria.query('SELECT SLEEP(?)', [seconds]); // B
  },
};`),
    'independent',
  );
  // A property of the same name is not the variable.
  assert.equal(
    kindOf(`async function h() {
  const rows = await pg.query('SELECT 1'); // A
  await redis.get(cache.rows, { rows: 1 }); // B
}`),
    'independent',
  );
});

test('dependent: the second reads what the first assigned, directly, destructured or through a statement between', () => {
  const direct = `async function h() {
  const rows = await pg.query('SELECT id FROM t'); // A
  await redis.get(rows[0].id); // B
}`;
  assert.deepEqual(awaitDependence(direct, 2, 3), { kind: 'dependent', names: ['rows'] });
  assert.equal(
    kindOf(`async function h() {
  const { rows: [first] } = await pg.query('SELECT id FROM t'); // A
  const v = await redis.get(first.id); // B
}`),
    'dependent',
  );
  assert.equal(
    kindOf(`async function h() {
  const res = await fetch(url); // A
  const id = res.headers.get('x-id');
  const key = 'k:' + id;
  await redis.get(key); // B
}`),
    'dependent',
  );
  assert.equal(
    kindOf(`async function h() {
  let user;
  user = await pg.query('SELECT 1'); // A
  await maria.query('SELECT ?', [user]); // B
}`),
    'dependent',
  );
  // A shorthand property is a read.
  assert.equal(
    kindOf(`async function h() {
  const id = await pg.query('SELECT 1'); // A
  await send({ id }); // B
}`),
    'dependent',
  );
});

test('dependent: a test on the first result decides whether the second runs', () => {
  assert.equal(
    kindOf(`async function h() {
  const rows = await pg.query('SELECT 1'); // A
  if (rows.length === 0) return null;
  await redis.get('x'); // B
}`),
    'dependent',
  );
  assert.equal(
    kindOf(`async function h() {
  const rows = await pg.query('SELECT 1'); // A
  if (rows.length > 0) {
    await redis.get('x'); // B
  }
}`),
    'dependent',
  );
});

test('unknown: different functions, the wrong order, one statement, code that does not parse', () => {
  assert.equal(
    kindOf(`async function f() {
  await pg.query('SELECT 1'); // A
}
async function g() {
  await redis.get('x'); // B
}`),
    'unknown',
  );
  assert.equal(
    kindOf(`async function h() {
  await redis.get('x'); // B
  await pg.query('SELECT 1'); // A
}`),
    'unknown',
  );
  assert.equal(
    kindOf(`async function h() {
  const [a, b] = await Promise.all([pg.query('SELECT 1'), // A
    redis.get('x')]); // B
}`),
    'unknown',
  );
  assert.equal(kindOf(`async function h( {\n await a(); // A\n await b(); // B\n`), 'unknown');
});
