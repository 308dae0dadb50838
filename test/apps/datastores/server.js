'use strict';
// An HTTP API over real PostgreSQL, Redis and MariaDB servers (their ports in PG_PORT, REDIS_PORT,
// MARIADB_PORT). Each route waits a known time on a marked line, so a probe's answer follows from
// construction:
//   /pg       one query that sleeps WAIT_MS on the server  (PG LINE)
//   /redis    one BLPOP on an empty list, timing out after WAIT_MS  (REDIS LINE)
//   /mariadb  one SELECT SLEEP(WAIT_MS)  (MARIADB LINE)
//   /knex     the /pg sleep through Knex, a query builder with a pool of its own  (KNEX LINE)
//   /knexpool the same on a Knex pool of 2 connections  (KNEX POOL LINE)
//   /n1       8 queries one after another from one line (an N+1 loop)  (N1 LINE)
//   /pool     one query that sleeps WAIT_MS on a pool of 2 connections  (POOL LINE)
//   /serial   a pg then a MariaDB sleep, independent, awaited one after another  (SERIAL A/B LINE)
//   /parallel the same two, together (Promise.all)  (PARALLEL A/B LINE)
const http = require('node:http');
const { Pool } = require('pg');
const Redis = require('ioredis');
const mysql = require('mysql2/promise');
const knex = require('knex');

const WAIT_MS = Number(process.env.WAIT_MS || 20);
const seconds = WAIT_MS / 1000;
const pg = new Pool({ host: '127.0.0.1', port: Number(process.env.PG_PORT), user: 'hotline', database: 'postgres', max: 16 });
const small = new Pool({ host: '127.0.0.1', port: Number(process.env.PG_PORT), user: 'hotline', database: 'postgres', max: 2 });
// A blocking command holds its connection: each request takes one of 16 made at the start.
const redisFree = Array.from({ length: 16 }, () => new Redis({ host: '127.0.0.1', port: Number(process.env.REDIS_PORT) }));
const redisWaiting = [];
const takeRedis = () => (redisFree.length > 0 ? Promise.resolve(redisFree.pop()) : new Promise((r) => redisWaiting.push(r)));
const giveRedis = (conn) => (redisWaiting.length > 0 ? redisWaiting.shift()(conn) : redisFree.push(conn));
const maria = mysql.createPool({
  host: '127.0.0.1',
  port: Number(process.env.MARIADB_PORT),
  user: 'hotline',
  password: 'hotline',
  connectionLimit: 16,
});

// Knex over pg, a query builder: the query is written from Knex's own async code, after its pool
// (tarn) hands over a connection.
const knexOf = (max) =>
  knex({
    client: 'pg',
    connection: { host: '127.0.0.1', port: Number(process.env.PG_PORT), user: 'hotline', database: 'postgres' },
    pool: { min: 0, max },
  });
const db = knexOf(16);
const dbSmall = knexOf(2);

const routes = {
  async '/pg'() {
    await pg.query('SELECT pg_sleep($1)', [seconds]); // PG LINE
  },
  async '/redis'() {
    // An empty list: the BLPOP is answered by its timeout.
    const conn = await takeRedis();
    try {
      await conn.blpop(`empty:${process.pid}`, seconds); // REDIS LINE
    } finally {
      giveRedis(conn);
    }
  },
  async '/mariadb'() {
    await maria.query('SELECT SLEEP(?)', [seconds]); // MARIADB LINE
  },
  async '/knex'() {
    await db.select(db.raw('pg_sleep(?)', [seconds])); // KNEX LINE
  },
  async '/knexpool'() {
    await dbSmall.select(dbSmall.raw('pg_sleep(?)', [seconds])); // KNEX POOL LINE
  },
  async '/n1'() {
    for (let i = 0; i < 8; i++) await pg.query('SELECT $1::int AS n', [i]); // N1 LINE
  },
  async '/pool'() {
    await small.query('SELECT pg_sleep($1)', [seconds]); // POOL LINE
  },
  async '/serial'() {
    const slept = await pg.query('SELECT pg_sleep($1)', [seconds]); // SERIAL A LINE
    const [rows] = await maria.query('SELECT SLEEP(?)', [seconds]); // SERIAL B LINE
    return [slept.rowCount, rows.length];
  },
  async '/parallel'() {
    // Two statements, as /serial's, but both sent before either is awaited.
    const slept = pg.query('SELECT pg_sleep($1)', [seconds]); // PARALLEL A LINE
    const rows = maria.query('SELECT SLEEP(?)', [seconds]); // PARALLEL B LINE
    await Promise.all([slept, rows]);
  },
};

const server = http.createServer((req, res) => {
  const route = routes[req.url];
  if (!route) {
    res.statusCode = 404;
    return res.end('no such route\n');
  }
  route().then(
    () => res.end('ok\n'),
    (err) => {
      res.statusCode = 500;
      res.end(`${err.message}\n`);
    },
  );
});
server.listen(Number(process.env.PORT || 0), '127.0.0.1', () => {
  console.log(`listening on ${server.address().port}`);
});
