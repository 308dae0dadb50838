// ScriptIndex (callsites.ts): the function at a V8 call-frame position, the calls directly in it,
// the call a callback is passed to, the names a profile frame may be called by, and the local
// bindings (aliases, required modules) that connect a call to the code it reaches.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import {
  ScriptIndex,
  callNamesFor,
  fileIsModule,
  type FunctionScope,
} from '../../../../src/core/analysis/attribution/callsites.ts';
import { FIXTURES_DIR } from '../../../helpers/fixtures.ts';

function parse(text: string): ScriptIndex {
  const index = ScriptIndex.parse(text);
  assert.ok(index, 'parses');
  return index;
}

const callNames = (scope: FunctionScope): string[] => scope.calls.map((c) => c.calleeText);

describe('functionAt with the positions V8 reports', () => {
  // Positions measured with the inspector's profiler on Node 20.20 (0-based line, column): V8
  // puts a function at its parameter list's "(", a bare arrow at its parameter, an async arrow
  // at `async`.
  const KINDS = [
    "'use strict';",
    'function spin(ms) { const end = Date.now() + ms; let x = 0; while (Date.now() < end) x++; return x; }',
    'class Box {',
    '  get size() { return spin(30); }',
    '  method(a) { return spin(30); }',
    '  static make() { return spin(30); }',
    '}',
    'const obj = {',
    '  short(b) { return spin(30); },',
    '  arrow: (c) => spin(30),',
    '  bare: c => spin(30),',
    '  asyncArrow: async (d) => spin(30),',
    '};',
    'const expr = function named(e) { return spin(30); };',
    'function* gen() { yield spin(30); }',
    'module.exports = () => {',
    '  const b = new Box();',
    '  b.size; b.method(1); Box.make(); obj.short(1); obj.arrow(1); obj.bare(1); obj.asyncArrow(1); expr(1); gen().next();',
    '};',
    '',
  ].join('\n');
  const V8_POSITIONS: Array<[string, number, number]> = [
    ['get size', 3, 10],
    ['method', 4, 8],
    ['make', 5, 13],
    ['short', 8, 7],
    ['arrow', 9, 9],
    ['bare', 10, 8],
    ['asyncArrow', 11, 14],
    ['named', 13, 27],
    ['gen', 14, 13],
  ];

  for (const [name, line0, col0] of V8_POSITIONS) {
    test(`${name} at ${line0}:${col0} is the function on line ${line0 + 1}, whose only call is spin(30)`, () => {
      const scope = parse(KINDS).functionAt(line0, col0);
      assert.equal(scope.isProgram, false);
      assert.equal(scope.startLine, line0 + 1);
      assert.equal(scope.endLine, line0 + 1);
      assert.deepEqual(callNames(scope), ['spin']);
      assert.deepEqual(scope.calls[0].names, ['spin']);
      assert.equal(scope.calls[0].line, line0 + 1);
    });
  }

  test('spin at 1:13 and module.exports at 15:17', () => {
    const index = parse(KINDS);
    const spin = index.functionAt(1, 13);
    assert.deepEqual([spin.startLine, spin.endLine], [2, 2]);
    assert.deepEqual(callNames(spin), ['Date.now', 'Date.now']);
    const main = index.functionAt(15, 17);
    assert.deepEqual([main.startLine, main.endLine], [16, 19]);
  });

  test('scopes carry the name the source gives them; functionAtLine finds the innermost function of a line', () => {
    const index = parse(KINDS);
    const names = V8_POSITIONS.map(([, line0, col0]) => index.functionAt(line0, col0).name);
    assert.deepEqual(names, ['size', 'method', 'make', 'short', 'arrow', 'bare', 'asyncArrow', 'named', 'gen']);
    assert.equal(index.functionAt(15, 17).name, 'exports', '`module.exports = () => …`');
    assert.equal(index.functionAtLine(2)?.name, 'spin');
    assert.equal(index.functionAtLine(17)?.name, 'exports');
    assert.equal(index.functionAtLine(8), undefined, '`const obj = {` is top-level code');
    assert.equal(index.functionAtLine(1), undefined);
  });

  test('calls directly in a function, not those of functions nested in it', () => {
    const main = parse(KINDS).functionAt(15, 17);
    assert.deepEqual(callNames(main), [
      'Box',
      'b.method',
      'Box.make',
      'obj.short',
      'obj.arrow',
      'obj.bare',
      'obj.asyncArrow',
      'expr',
      'gen().next',
      'gen',
    ]);
    assert.ok(!main.calls.some((c) => c.names.includes('spin')));
    assert.ok(main.calls.every((c) => c.line === 17 || c.line === 18));
  });

  test('a file that is one function and nothing else (no final newline) still has that function', {}, () => {
    const scope = parse('function f() { g(); }').functionAt(0, 10);
    assert.equal(scope.isProgram, false);
    assert.deepEqual(callNames(scope), ['g']);
  });

  test('a position outside every function is the top level', () => {
    const index = parse(KINDS);
    const top = index.functionAt(0, 0);
    assert.equal(top.isProgram, true);
    assert.equal(top.startLine, 1);
    assert.deepEqual(callNames(top), []);
    assert.equal(index.functionAt(7, 0).isProgram, true, 'the `const obj = {` line');
    assert.equal(index.functionAt(500, 0).isProgram, true, 'past the end');
  });

  test('positions in the real login-api server.js: checkPassword and its two crypto calls', () => {
    const text = fs.readFileSync(path.join(FIXTURES_DIR, 'login-api', 'server.js'), 'utf8');
    const check = parse(text).functionAt(33, 22);
    assert.deepEqual([check.startLine, check.endLine], [34, 37]);
    assert.deepEqual(
      check.calls.map((c) => [c.calleeText, c.line]),
      [
        ['crypto.pbkdf2Sync', 35],
        ['crypto.timingSafeEqual', 36],
      ],
    );
    assert.equal(
      check.calls[0].column,
      text.split('\n')[34].indexOf('pbkdf2Sync'),
      'column of the callee’s name, 0-based',
    );
  });
});

describe('callbacks', () => {
  const SRC = [
    'function outer(list) {',
    '  const doubled = list.map((x) => x * 2);',
    "  app.post('/login', async (req, res) => {",
    '    res.json(doubled);',
    '  });',
    '  setTimeout(function tick() { inner(); }, 10);',
    '}',
    '',
  ].join('\n');

  test('receivingCallOf: the call in the outer function a nested function is passed to', () => {
    const index = parse(SRC);
    const outer = index.functionAt(0, 14);
    const mapper = index.functionAt(1, SRC.split('\n')[1].indexOf('(x)'));
    assert.equal(index.receivingCallOf(outer, mapper)?.calleeText, 'list.map');
    const route = index.functionAt(2, SRC.split('\n')[2].indexOf('async'));
    assert.equal(index.receivingCallOf(outer, route)?.calleeText, 'app.post');
    assert.equal(index.receivingCallOf(outer, route)?.line, 3);
    const tick = index.functionAt(5, SRC.split('\n')[5].indexOf('()'));
    assert.equal(index.receivingCallOf(outer, tick)?.calleeText, 'setTimeout');
    assert.equal(index.receivingCallOf(mapper, tick), undefined, 'not nested in it');
  });

  test('anonymousName: the call it is passed to, with a short string first argument', () => {
    const index = parse(SRC);
    assert.equal(index.anonymousName(index.functionAt(1, SRC.split('\n')[1].indexOf('(x)'))), 'list.map callback');
    assert.equal(
      index.anonymousName(index.functionAt(2, SRC.split('\n')[2].indexOf('async'))),
      "app.post('/login') callback",
    );
    assert.equal(index.anonymousName(index.functionAt(0, 14)), undefined, 'a declaration is passed to nothing');
  });

  test('the outer function’s calls do not include those inside its callbacks', () => {
    const outer = parse(SRC).functionAt(0, 14);
    assert.deepEqual(callNames(outer), ['list.map', 'app.post', 'setTimeout']);
    assert.equal(outer.calls[1].firstArg, '/login');
    assert.equal(outer.calls[0].firstArg, undefined);
  });
});

describe('call expressions', () => {
  test('names: member calls, fn.call/apply, optional calls, new, tagged templates, super, (0, fn)() as fn', () => {
    const SRC = [
      'class A extends B {',
      '  constructor() {',
      '    super();',
      '    a.b.c();',
      '    handler.call(this, 1);',
      '    obj.run.apply(null, []);',
      '    maybe?.go();',
      '    new Thing();',
      '    html`<p>`;',
      "    obj['computed']();",
      '    (0, fn)();',
      '  }',
      '}',
      '',
    ].join('\n');
    const ctor = parse(SRC).functionAt(1, 13);
    assert.deepEqual(
      ctor.calls.map((c) => c.names),
      [['super'], ['c'], ['call', 'handler'], ['apply', 'run'], ['go'], ['Thing'], ['html'], ['computed'], ['fn']],
    );
  });

  test('calleeText is shortened past 60 characters, keeping the end', () => {
    const long = `a${'.segment'.repeat(10)}.finallyTheMethod`;
    const scope = parse(`function f() { ${long}(); }\n`).functionAt(0, 10);
    assert.ok(scope.calls[0].calleeText.length <= 60);
    assert.ok(scope.calls[0].calleeText.startsWith('…'));
    assert.ok(scope.calls[0].calleeText.endsWith('.finallyTheMethod'));
  });

  test('a long string first argument is not kept', () => {
    const scope = parse(`function f() { g('${'x'.repeat(41)}'); g('short'); }\n`).functionAt(0, 10);
    assert.deepEqual(
      scope.calls.map((c) => c.firstArg),
      [undefined, 'short'],
    );
  });
});

describe('callNamesFor', () => {
  test('the last part of a qualified name', () => {
    assert.deepEqual(callNamesFor('Socket._writeGeneric'), ['_writeGeneric']);
    assert.deepEqual(callNamesFor('checkPassword'), ['checkPassword']);
  });

  test('accessor, bound and async prefixes are dropped', () => {
    assert.deepEqual(callNamesFor('get foo'), ['foo']);
    assert.deepEqual(callNamesFor('set foo'), ['foo']);
    assert.deepEqual(callNamesFor('bound bar'), ['bar']);
    assert.deepEqual(callNamesFor('bound get baz'), ['baz']);
    assert.deepEqual(callNamesFor('async qux'), ['qux']);
  });

  test('zlib’s shared wrappers alias every convenience method', () => {
    const sync = callNamesFor('syncBufferWrapper');
    assert.equal(sync[0], 'syncBufferWrapper');
    for (const m of ['gzipSync', 'gunzipSync', 'deflateSync', 'inflateSync', 'brotliCompressSync', 'unzipSync'])
      assert.ok(sync.includes(m), m);
    assert.ok(!sync.includes('gzip'));
    assert.ok(callNamesFor('zlibBufferSync').includes('gzipSync'));
    const async = callNamesFor('asyncBufferWrapper');
    assert.ok(async.includes('gzip') && async.includes('brotliCompress') && !async.includes('gzipSync'));
  });

  test('names of Object.prototype methods are plain names, not table entries', () => {
    assert.deepEqual(callNamesFor('toString'), ['toString']);
    assert.deepEqual(callNamesFor('Foo.constructor'), ['constructor']);
    assert.deepEqual(callNamesFor('hasOwnProperty'), ['hasOwnProperty']);
    assert.deepEqual(callNamesFor('__proto__'), ['__proto__']);
  });

  test('an anonymous frame has no name to match', () => {
    assert.deepEqual(callNamesFor(''), []);
    assert.deepEqual(callNamesFor('   '), []);
  });
});

describe('bindings', () => {
  test('a local alias: `const verify = cond ? checkPasswordAsync : checkPassword` makes verify() reach both', () => {
    const SRC = [
      "const verify = mode === 'async' ? checkPasswordAsync : checkPassword;",
      'const pick = a || b;',
      'const m = obj.method;',
      'function route() { verify(); pick(); m(); }',
      '',
    ].join('\n');
    const route = parse(SRC).functionAt(3, 14);
    assert.deepEqual(
      route.calls.map((c) => c.names),
      [
        ['verify', 'checkPasswordAsync', 'checkPassword'],
        ['pick', 'a', 'b'],
        ['m', 'method'],
      ],
    );
  });

  test('modules: require, member of a required module, destructuring with rename, ESM import', () => {
    const CJS = [
      "const jwt = require('jsonwebtoken');",
      "const { sign: signToken, verify } = require('jsonwebtoken');",
      "const gz = require('node:zlib').gzipSync;",
      'function f() { jwt.sign(); signToken(); verify(); gz(); other(); }',
      '',
    ].join('\n');
    const f = parse(CJS).functionAt(3, 10);
    assert.deepEqual(
      f.calls.map((c) => [c.calleeText, c.module]),
      [
        ['jwt.sign', 'jsonwebtoken'],
        ['signToken', 'jsonwebtoken'],
        ['verify', 'jsonwebtoken'],
        ['gz', 'node:zlib'],
        ['other', undefined],
      ],
    );
    assert.deepEqual(f.calls[1].names, ['signToken', 'sign']);

    const ESM = [
      "import { gzipSync as gz } from 'node:zlib';",
      "import express from 'express';",
      'export function f() { gz(); express(); }',
      '',
    ].join('\n');
    const g = parse(ESM).functionAt(2, 17);
    assert.deepEqual(
      g.calls.map((c) => [c.names, c.module]),
      [
        [['gz', 'gzipSync'], 'node:zlib'],
        [['express'], 'express'],
      ],
    );
  });

  test('fileIsModule: which frames belong to the module a call names', () => {
    assert.equal(fileIsModule('/app/node_modules/jsonwebtoken/sign.js', 'jsonwebtoken'), true);
    assert.equal(fileIsModule('/app/node_modules/jsonwebtoken-extra/sign.js', 'jsonwebtoken'), false);
    assert.equal(fileIsModule('/app/node_modules/@scope/pkg/lib/x.js', '@scope/pkg/sub'), true);
    assert.equal(fileIsModule('node:internal/crypto/pbkdf2', 'node:crypto'), true);
    assert.equal(fileIsModule('node:zlib', 'zlib'), true);
    assert.equal(fileIsModule('node:internal/fs/utils', 'node:zlib'), false);
    assert.equal(fileIsModule('/app/lib/compress.js', './lib/compress'), false);
  });
});

describe('parse', () => {
  test('CommonJS, ESM (import/export, top-level await), a hashbang; not TypeScript', () => {
    assert.ok(ScriptIndex.parse("#!/usr/bin/env node\nconst x = require('x');\nwith (x) { y(); }\n"), 'sloppy script');
    assert.ok(ScriptIndex.parse("import x from 'x';\nawait x();\nexport const y = 1;\n"), 'module');
    assert.equal(ScriptIndex.parse('function f(a: number): string { return a; }'), undefined);
    assert.equal(ScriptIndex.parse('}}} not code'), undefined);
  });

  test('lineText: 1-based, without the line break; "" past the end', () => {
    const index = parse('const a = 1;\r\nconst b = 2;\nconst c = 3;');
    assert.equal(index.lineText(1), 'const a = 1;');
    assert.equal(index.lineText(2), 'const b = 2;');
    assert.equal(index.lineText(3), 'const c = 3;');
    assert.equal(index.lineText(4), '');
    assert.equal(index.lineText(0), '');
  });
});

test('(0, x.fn)(…), as tsc and esbuild call an import, is a call of fn', () => {
  const index = ScriptIndex.parse(
    ['function handle() {', '  const a = (0, hash_1.hot)(20000);', '  return (0, import_hash.hot)(1);', '}', ''].join(
      '\n',
    ),
  )!;
  const scope = index.functionAt(0, 15);
  assert.deepEqual(
    scope.calls.map((c) => [c.line, c.names, c.calleeText]),
    [
      [2, ['hot'], 'hash_1.hot'],
      [3, ['hot'], 'import_hash.hot'],
    ],
  );
});
