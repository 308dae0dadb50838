// The mechanical fix of a blocking call: offered only inside an async function, and the edited
// code still parses and awaits the promise form.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as acorn from 'acorn';
import { asyncFixOf, type TextEdit } from '../../src/server/async-fix.ts';

function apply(text: string, edits: TextEdit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start || b.end - a.end))
    out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}

const lineOf = (text: string, needle: string): number => text.split('\n').findIndex((l) => l.includes(needle));

const COMMONJS = `'use strict';
const crypto = require('node:crypto');
const util = require('node:util');

async function verify(user, password) {
  const hash = crypto.pbkdf2Sync(password, user.salt, 10000, 64, 'sha512');
  return hash.equals(user.hash);
}

function plain(password) {
  return crypto.pbkdf2Sync(password, 's', 1, 64, 'sha512');
}
`;

test('pbkdf2Sync in an async function: await pbkdf2, declared once with util.promisify after the requires', () => {
  const fix = asyncFixOf(COMMONJS, lineOf(COMMONJS, 'const hash'), 'crypto.pbkdf2Sync');
  assert.ok(fix);
  assert.equal(fix.title, 'Use await pbkdf2(…) (util.promisify) instead of crypto.pbkdf2Sync');
  const out = apply(COMMONJS, fix.edits);
  assert.match(out, /const util = require\('node:util'\);\nconst pbkdf2 = util\.promisify\(crypto\.pbkdf2\);\n/);
  assert.match(out, /const hash = await pbkdf2\(password, user\.salt, 10000, 64, 'sha512'\);/);
  assert.match(out, /return crypto\.pbkdf2Sync\(password, 's'/, 'the other call is untouched');
  acorn.parse(out, { ecmaVersion: 'latest', sourceType: 'script' });
});

test('no edit outside an async function, for an unknown API, or in code acorn cannot read', () => {
  assert.equal(asyncFixOf(COMMONJS, lineOf(COMMONJS, 'return crypto.pbkdf2Sync'), 'crypto.pbkdf2Sync'), undefined);
  assert.equal(asyncFixOf(COMMONJS, lineOf(COMMONJS, 'const hash'), 'JSON.stringify'), undefined);
  assert.equal(
    asyncFixOf('async function f(x: string) { return crypto.pbkdf2Sync(x) }', 0, 'crypto.pbkdf2Sync'),
    undefined,
  );
  // A callback inside the async function is not async itself.
  const nested =
    "const crypto = require('crypto');\nasync function f(list) {\n  return list.map((p) => crypto.scryptSync(p, 's', 64));\n}\n";
  assert.equal(asyncFixOf(nested, 2, 'crypto.scryptSync'), undefined);
});

test('a promisified function already declared is reused; a call used as an object is wrapped', () => {
  const text =
    "const crypto = require('crypto');\nconst { promisify } = require('util');\nconst scrypt = promisify(crypto.scrypt);\nconst f = async (p) => crypto.scryptSync(p, 's', 64).toString('hex');\n";
  const fix = asyncFixOf(text, 3, 'crypto.scryptSync');
  assert.ok(fix);
  const out = apply(text, fix.edits);
  assert.equal(out.match(/promisify\(crypto\.scrypt\)/g)?.length, 1);
  assert.match(out, /async \(p\) => \(await scrypt\(p, 's', 64\)\)\.toString\('hex'\);/);
});

test('fs.readFileSync → await fs.promises.readFile; ES modules get an import of promisify', () => {
  const fsText =
    "import fs from 'node:fs';\nexport async function load(f) {\n  return JSON.parse(fs.readFileSync(f, 'utf8'));\n}\n";
  const fsFix = asyncFixOf(fsText, 2, 'fs.readFileSync');
  assert.ok(fsFix);
  assert.match(apply(fsText, fsFix.edits), /JSON\.parse\(await fs\.promises\.readFile\(f, 'utf8'\)\)/);
  const esm = "import zlib from 'node:zlib';\nexport async function pack(b) {\n  return zlib.gzipSync(b);\n}\n";
  const z = asyncFixOf(esm, 2, 'zlib.gzipSync');
  assert.ok(z);
  const out = apply(esm, z.edits);
  assert.match(
    out,
    /^import zlib from 'node:zlib';\nimport \{ promisify as promisify_ \} from 'node:util';\nconst gzip = promisify_\(zlib\.gzip\);\n/,
  );
  assert.match(out, /return await gzip\(b\);/);
  acorn.parse(out, { ecmaVersion: 'latest', sourceType: 'module' });
});
