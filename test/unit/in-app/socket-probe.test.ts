// The data-store protocols the socket probe tells apart from a client's write, and the statement
// words it keeps (src/core/in-app/scripts/socket-probe.ts): the bytes are built as each protocol
// frames them, and writes of other protocols are none of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sniff, statementOf } from '../../../src/core/in-app/scripts/socket-probe.ts';

const pgMessage = (type: string, body: Buffer): Buffer => {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
};
const cstr = (s: string): Buffer => Buffer.from(`${s}\0`);

test('PostgreSQL: a simple query, and a Parse with the Bind/Execute/Sync that follow it in one write', () => {
  assert.deepEqual(sniff(pgMessage('Q', cstr("SELECT * FROM users WHERE email = 'a@b.c'"))), {
    kind: 'pg',
    statement: 'SELECT * FROM users WHERE email',
  });
  const parse = pgMessage('P', Buffer.concat([cstr(''), cstr('SELECT pg_sleep($1)'), Buffer.from([0, 0])]));
  const rest = Buffer.concat([pgMessage('B', Buffer.alloc(10)), pgMessage('S', Buffer.alloc(0))]);
  assert.deepEqual(sniff(Buffer.concat([parse, rest])), { kind: 'pg', statement: 'SELECT pg_sleep($1)' });
  assert.deepEqual(sniff(pgMessage('B', Buffer.alloc(12))), { kind: 'pg', statement: '' });
});

test('MySQL/MariaDB: COM_QUERY with its literals out; a packet that is not a command start is not one', () => {
  const payload = Buffer.concat([Buffer.from([0x03]), Buffer.from('SELECT SLEEP(0.05), name FROM t WHERE id = 42')]);
  const head = Buffer.from([payload.length & 0xff, (payload.length >> 8) & 0xff, payload.length >> 16, 0]);
  assert.deepEqual(sniff(Buffer.concat([head, payload])), {
    kind: 'mysql',
    statement: 'SELECT SLEEP(?), name FROM t WHERE',
  });
  const handshake = Buffer.concat([head.subarray(0, 3), Buffer.from([1]), payload]);
  assert.equal(sniff(handshake), undefined, 'sequence 1: the handshake, not a command');
});

test('Redis: the command name of a RESP array; MongoDB: the command of an OP_MSG', () => {
  assert.deepEqual(sniff(Buffer.from('*3\r\n$5\r\nBLPOP\r\n$5\r\nempty\r\n$4\r\n0.05\r\n')), {
    kind: 'redis',
    statement: 'BLPOP',
  });
  assert.deepEqual(sniff(Buffer.from('*1\r\n$4\r\nping\r\n')), { kind: 'redis', statement: 'PING' });
  const body = Buffer.concat([Buffer.from([0x02]), cstr('find'), Buffer.from('x')]);
  const doc = Buffer.concat([Buffer.alloc(4), body]);
  const msg = Buffer.alloc(21);
  msg.writeInt32LE(21 + doc.length, 0);
  msg.writeInt32LE(2013, 12);
  assert.deepEqual(sniff(Buffer.concat([msg, doc])), { kind: 'mongodb', statement: 'find' });
});

test('other protocols are none of these: HTTP, TLS, text lines, short writes', () => {
  for (const write of [
    Buffer.from('POST /login HTTP/1.1\r\nHost: x\r\n\r\n'),
    Buffer.from('GET / HTTP/1.1\r\n\r\n'),
    Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc]),
    Buffer.from('PING\r\n'),
    Buffer.from('Q'),
  ])
    assert.equal(sniff(write), undefined, JSON.stringify(write.toString('latin1')));
});

test('statement words: strings and numbers out, parameters and identifiers kept, cut short', () => {
  assert.equal(statementOf("UPDATE t SET a = 'it''s', b = 3.5 WHERE c2 = $1"), 'UPDATE t SET a = ?,');
  assert.equal(statementOf('SELECT   *\n  FROM orders'), 'SELECT * FROM orders');
  assert.ok(statementOf(`SELECT ${'verylongcolumnname, '.repeat(10)}`).length <= 48);
});
