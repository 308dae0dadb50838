// readCpuProfileStream (cpuprofile-stream.ts through cpuprofile-reader.ts): a file read in windows
// of any size, down to a few bytes, gives the same profile and the same errors as
// parseCpuProfileText on its text: every value, number and node split across windows somewhere.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { parseCpuProfileText, ProfileFormatError, type CpuProfile } from '../../../src/core/profile/cpuprofile.ts';
import { MAX_STRING_BYTES, readCpuProfileStream } from '../../../src/core/profile/cpuprofile-reader.ts';
import { streamCpuProfileValue } from '../../../src/core/profile/cpuprofile-stream.ts';
import { FIXTURES_DIR } from '../../helpers/fixtures.ts';
import { outcome } from '../../helpers/profiles.ts';

/**
 * Reads `bytes` the way readProfileFile reads a file, in windows of `windowBytes`. `wholeRead`
 * false: the whole-file fallback must not be needed (the stream read it all).
 */
function streamed(bytes: Buffer, windowBytes: number, size = bytes.length, wholeRead = true): CpuProfile {
  const readAt = (into: Uint8Array, position: number): number => {
    const n = Math.max(0, Math.min(into.length, bytes.length - position));
    bytes.copy(into, 0, position, position + n);
    return n;
  };
  const load = (): Buffer => {
    if (!wholeRead) throw new Error('the stream gave up: a whole-file read was asked for');
    return Buffer.from(bytes);
  };
  return readCpuProfileStream(readAt, size, load, { windowBytes });
}

/** The same as `same`, and read by the stream alone. */
function streamedAlone(text: string): void {
  const want = same(text);
  for (const w of WINDOWS)
    assert.equal(
      outcome(() => streamed(Buffer.from(text, 'utf8'), w, text.length, false)),
      want,
      `window ${w}`,
    );
}

const WINDOWS = [16, 61, 64, 100, 257, 4096];

function same(text: string): string {
  const want = outcome(() => parseCpuProfileText(text));
  for (const w of WINDOWS)
    assert.equal(
      outcome(() => streamed(Buffer.from(text, 'utf8'), w)),
      want,
      `window of ${w} bytes: ${text.slice(0, 200)}`,
    );
  return want;
}

const profile = (extra: string): string =>
  `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},{"id":2,"callFrame":{"functionName":"f","scriptId":"1","url":"file:///a.js","lineNumber":0,"columnNumber":9},"positionTicks":[{"line":2,"ticks":3}]}],"startTime":0,"endTime":9${extra}}`;

test('real profiles: the same profile in any window, also pretty-printed', () => {
  for (const name of ['login-api', 'ts-app-work', 'file-server']) {
    const text = fs.readFileSync(path.join(FIXTURES_DIR, name, 'profile.cpuprofile'), 'utf8');
    streamedAlone(text);
    streamedAlone(JSON.stringify(JSON.parse(text), null, 2));
  }
});

test('layouts and numbers: BOM, spaces, key order, wrapper, fractions, exponents, negatives, big values', () => {
  const body = profile(',"samples":[2,2,2],"timeDeltas":[1,1,1]');
  streamedAlone(body);
  streamedAlone(`\ufeff${body}`);
  streamedAlone(`  ${profile(',"samples" : [ 2 , 2 ] ,"timeDeltas":[ 7 ,    8 ]')}  \n`);
  same(`{"profile":${body}}`);
  same(`{"samples":[2],"timeDeltas":[3],${body.slice(1)}`); // duplicate keys: JSON.parse keeps the last
  streamedAlone(profile(',"samples":[],"timeDeltas":[]'));
  streamedAlone(profile(''));
  streamedAlone(profile(',"samples":[2,2,2],"timeDeltas":[1.5,2e2,-3]'));
  streamedAlone(profile(',"samples":[2,2],"timeDeltas":[-0,0.0]'));
  same(profile(',"samples":[2],"timeDeltas":[12345678901234567890]')); // refused: the whole-file reader words it
  same(profile(',"samples":[2],"timeDeltas":[1e400]'));
  streamedAlone(profile(',"samples":[2],"timeDeltas":[3000000000]'));
  streamedAlone(profile(`,"samples":[${'2,'.repeat(3000)}2],"timeDeltas":[${'1000,'.repeat(3000)}1]`));
  streamedAlone(profile(`,"samples":[${'2,   \n'.repeat(300)}2],"timeDeltas":[${'1000 ,'.repeat(300)}1]`));
  streamedAlone(profile(',"title":"a \\"quoted\\" ] } string","meta":{"x":[1,{"y":"}"}]}'));
});

test('what JSON or the profile rules refuse: the same error', () => {
  for (const extra of [
    ',"samples":[2,2],"timeDeltas":[1]',
    ',"samples":[7],"timeDeltas":[1]',
    ',"samples":[2,],"timeDeltas":[1]',
    ',"samples":[02],"timeDeltas":[1]',
    ',"samples":["2"],"timeDeltas":[1]',
    ',"samples":[2],"samples":[2],"timeDeltas":[1]',
    ',"samples":[2] "timeDeltas":[1]',
    ',"__proto__":{"nodes":1}',
  ])
    same(profile(extra));
  const full = profile(',"samples":[2,2],"timeDeltas":[1,1]');
  for (const cut of [1, 2, 5, 12, 40, full.length - 3]) same(full.slice(0, full.length - cut));
  same('');
  same('[]');
  same('{}');
  same('{"nodes":[{"id":1,"callFrame":{}}],"startTime":0,"endTime":1}');
});

test('a file larger than a string gets the stream’s verdict, not a read it cannot do', () => {
  const text = profile(',"samples":[2],"timeDeltas":[1]');
  const big = MAX_STRING_BYTES + 1;
  // Readable by the stream: read, though `load` (a whole-file read) is never possible at this size.
  assert.equal(
    outcome(() => streamed(Buffer.from(text), 64, big)),
    outcome(() => parseCpuProfileText(text)),
  );
  // Not in V8's plain layout: one clear error, no attempt at a whole-file read.
  assert.throws(
    () => streamed(Buffer.from(`{"profile":${text}}`), 64, big),
    (e: Error) => e instanceof ProfileFormatError && /more than one JavaScript string holds/.test(e.message),
  );
});

test('nodes of one call frame share one frame object; frames that differ in anything, however their strings run, do not', () => {
  const frame = (fn: string, url: string, line = 3, scriptId = '7'): string =>
    `{"functionName":${JSON.stringify(fn)},"scriptId":"${scriptId}","url":${JSON.stringify(url)},"lineNumber":${line},"columnNumber":4}`;
  const frames = [
    frame('(root)', ''),
    frame('f', 'file:///a.js'),
    frame('f', 'file:///a.js'), // the same as node 2's
    frame('b f', 'file:///a.js '), // the same characters run together as node 5's
    frame(' f', 'file:///a.js b'),
    frame('f', 'file:///a.js', 30), // another line
    frame('f', 'file:///a.js', 3, '77'), // another script id
    `{"scriptId":"7","functionName":"f","url":"file:///a.js","lineNumber":3,"columnNumber":4}`, // keys in another order
  ];
  const ids = frames.map((_, i) => i + 1);
  const nodes = frames.map(
    (cf, i) => `{"id":${i + 1},"callFrame":${cf}${i === 0 ? `,"children":[${ids.slice(1).join(',')}]` : ''}}`,
  );
  const text = `{"nodes":[${nodes.join(',')}],"startTime":0,"endTime":9,"samples":[2,3,4],"timeDeltas":[1,1,1]}`;
  const want = same(text);
  const read = streamed(Buffer.from(text, 'utf8'), 4096, text.length, false);
  assert.equal(
    outcome(() => read),
    want,
  );
  const cf = read.nodes.map((n) => n.callFrame);
  assert.equal(cf[1], cf[2], 'one object for the same frame');
  const distinct = new Set([cf[0], cf[1], cf[3], cf[4], cf[5], cf[6], cf[7]]);
  assert.equal(distinct.size, 7, 'frames that differ are not merged');
  assert.deepEqual(cf[7], { functionName: 'f', scriptId: '7', url: 'file:///a.js', lineNumber: 3, columnNumber: 4 });
});

test('nodes read from their bytes are the values JSON.parse makes, key order and -0 too; any other node is JSON.parse’s', () => {
  const cf = (fn: string, url = 'file:///a.js', line = '3', col = '4'): string =>
    `{"functionName":${fn},"scriptId":"7","url":"${url}","lineNumber":${line},"columnNumber":${col}}`;
  const nodes = [
    `{"id":1,"callFrame":${cf('"(root)"', '', '-1', '-1')},"hitCount":0,"children":[2,3,4,5,6,7,8,9,10,11,12,13,14]}`,
    `{"id":2,"callFrame":${cf('"f"')},"hitCount":5,"positionTicks":[{"line":4,"ticks":2},{"line":5,"ticks":3}]}`,
    `{"id":3,"callFrame":${cf('"f"')}}`, // the frame of node 2, seen again
    `{"id":4,"callFrame":${cf('"é ü € 😀"')},"children":[],"positionTicks":[]}`, // non-ASCII
    `{"id":5,"callFrame":${cf('"a\\"b\\\\c\\u00e9"')}}`, // escapes: JSON.parse's
    `{"id":6,"callFrame":${cf('"g"', 'file:///a.js', '-0', '0')},"hitCount":-0}`,
    `{"id":7,"callFrame":${cf('"g"', 'file:///a.js', '123456789012345', '2147483648')}}`, // past int32
    `{"id":8,"callFrame":${cf('"g"', 'file:///a.js', '1234567890123456')}}`, // 16 digits: JSON.parse's
    `{"id":9,"callFrame":${cf('"g"', 'file:///a.js', '1.0')}}`,
    `{"id":10,"callFrame":${cf('"g"')},"codeType":"JS"}`, // another key
    `{"callFrame":${cf('"g"')},"id":11}`, // another order
    `{"id":12, "callFrame":${cf('"g"')}}`, // a space
    `{"id":13,"callFrame":${cf('"h"')},"children":[15,16]}`,
    `{"id":14,"callFrame":${cf('"h"')},"hitCount":1,"children":[17],"positionTicks":[{"line":1,"ticks":0}]}`,
    `{"id":15,"callFrame":${cf('"h"', 'file:///b.js')},"hitCount":-3}`, // refused later by the profile rules, as parsed
    `{"id":16,"callFrame":${cf('"h"')},"positionTicks":[{"ticks":1,"line":2}]}`,
    `{"id":17,"callFrame":${cf('"h"')},"hitCount":2}`,
  ];
  const text = `{"nodes":[${nodes.join(',')}],"startTime":0,"endTime":9,"samples":[2,3],"timeDeltas":[1,1]}`;
  const want = (JSON.parse(text) as { nodes: unknown[] }).nodes;
  for (const w of WINDOWS) {
    const bytes = Buffer.from(text, 'utf8');
    const got = streamCpuProfileValue(
      (into, at) => {
        const n = Math.max(0, Math.min(into.length, bytes.length - at));
        bytes.copy(into, 0, at, at + n);
        return n;
      },
      { windowBytes: w },
    )?.nodes;
    assert.deepStrictEqual(got, want, `window ${w}`);
    assert.equal(JSON.stringify(got), JSON.stringify(want), `key order, window ${w}`);
  }
  // Broken UTF-8 in a name decodes as the whole file's text does; a control character is JSON.parse's to refuse.
  const broken = Buffer.concat([
    Buffer.from(`{"nodes":[{"id":1,"callFrame":{"functionName":"a`),
    Buffer.from([0xe2, 0x82, 0xff]),
    Buffer.from(`b","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}],"startTime":0,"endTime":1}`),
  ]);
  assert.equal(
    outcome(() => streamed(broken, 64, broken.length, false)),
    outcome(() => parseCpuProfileText(broken.toString('utf8'))),
  );
  same(`{"nodes":[{"id":1,"callFrame":${cf('"a\tb"')}}],"startTime":0,"endTime":1}`);
});

test('number arrays read ahead on a second thread: used where they start at the keys the scan finds, else the scan’s own', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-ahead-'));
  try {
    const many = (n: number, f: (i: number) => string): string => Array.from({ length: n }, (_, i) => f(i)).join(',');
    const samples = `[${many(5000, (i) => String(2 + (i % 2)))}]`;
    const deltas = `[${many(5000, (i) => String((i * 7919) % 100000))}]`;
    const nodes =
      '[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},' +
      '{"id":2,"callFrame":{"functionName":"\\"samples\\":[9,9]","scriptId":"1","url":"file:///a.js","lineNumber":0,"columnNumber":9},"x":{"samples":[7,7]}},' +
      '{"id":3,"callFrame":{"functionName":"g","scriptId":"1","url":"file:///a.js","lineNumber":4,"columnNumber":2}}]';
    const plainNodes = nodes.replace(',"x":{"samples":[7,7]}', '');
    const layouts = [
      `{"nodes":${plainNodes},"startTime":0,"endTime":99999999,"samples":${samples},"timeDeltas":${deltas}}`,
      `{"nodes":${nodes},"startTime":0,"endTime":99999999,"samples":${samples},"timeDeltas":${deltas}}`,
      `{"nodes":${plainNodes},"startTime":0,"endTime":99999999,"timeDeltas":${deltas},"samples":${samples}}`,
      `{"nodes":${plainNodes},"startTime":0,"endTime":99999999,"samples":${samples},"timeDeltas":${deltas.replace(',7919,', ',7919.5,')}}`,
      `{"nodes":${plainNodes},"startTime":0,"endTime":99999999,"samples": ${samples},"timeDeltas":${deltas}}`,
      `{"nodes":${plainNodes},"startTime":0,"endTime":99999999,"samples":${samples},"timeDeltas":${deltas.replace(',7919,', ',-3,').replace('[0,', '[-0,')}}`,
      `{"nodes":${plainNodes},"startTime":0,"endTime":99999999,"samples":${samples},"timeDeltas":${deltas.replace(',7919,', ',1234567890,')}}`,
      `{"nodes":${plainNodes},"startTime":0,"endTime":99999999,"samples":${samples},"timeDeltas":${deltas.slice(0, -1)}`,
      // Nodes checked while the worker reads: their error, in its turn (after startTime's).
      `{"nodes":${plainNodes.replace('"lineNumber":4', '"lineNumber":4.5')},"startTime":0,"endTime":99999999,"samples":${samples},"timeDeltas":${deltas}}`,
      `{"nodes":${plainNodes.replace('"lineNumber":4', '"lineNumber":4.5')},"endTime":99999999,"samples":${samples},"timeDeltas":${deltas}}`,
      `{"nodes":${plainNodes.replace('"id":3', '"id":2')},"startTime":0,"endTime":99999999,"samples":${samples},"timeDeltas":${deltas}}`,
    ];
    for (const [n, text] of layouts.entries()) {
      const file = path.join(dir, `p${n}.cpuprofile`);
      fs.writeFileSync(file, text);
      const bytes = fs.readFileSync(file);
      const samplesFrom = text.indexOf(samples.slice(0, 40));
      let readInsideSamples = false;
      const readAt = (into: Uint8Array, position: number): number => {
        const n = Math.max(0, Math.min(into.length, bytes.length - position));
        if (position < samplesFrom + 5000 && position + n > samplesFrom + 5000) readInsideSamples = true;
        bytes.copy(into, 0, position, position + n);
        return n;
      };
      // The broken ones as if over 512 MiB: the stream's own verdict, no whole-file read to word it.
      const size = n >= 8 ? MAX_STRING_BYTES + 1 : bytes.length;
      for (const windowBytes of [64, 4096]) {
        readInsideSamples = false;
        const want = outcome(() => parseCpuProfileText(text));
        const got = outcome(() =>
          readCpuProfileStream(readAt, size, () => Buffer.from(bytes), { windowBytes, file, aheadFrom: 0 }),
        );
        assert.equal(got, want, `layout ${n}, window ${windowBytes}`);
        // V8's layout: the samples are the worker's, the scan skips them (a decoy key in a node, next, makes it read them).
        if (n === 0) assert.ok(!readInsideSamples, 'the plain layout’s samples were read by the worker, not the scan');
        if (n === 1) assert.ok(readInsideSamples, 'after a wrong guess the scan reads the samples itself');
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
