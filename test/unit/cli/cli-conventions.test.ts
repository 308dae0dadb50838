// The conventions every CLI keeps (src/cli/conventions.ts, args.ts, options.ts, progress.ts):
// `CMD --help` and `--version` answer before anything is checked, an unknown option points at the
// command's help, autocannon's short flags and `K=V` headers, and --verbose / DEBUG=hotline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { headersOf, parse, UsageError, wantsHelp, wantsVerbose } from '../../../src/cli/args.ts';
import { conventionalAnswer, packageVersion } from '../../../src/cli/conventions.ts';
import { COMMAND_OPTIONS, COMMON_OPTIONS, parseConfigOf, type CommandName } from '../../../src/cli/options.ts';
import { debugWants, isTick, progressPrinter, setVerbose } from '../../../src/cli/progress.ts';
import { usageOf } from '../../../src/cli/usage.ts';
import type { RunProgress } from '../../../src/core/index.ts';

const ROOT = path.resolve(__dirname, '../../..');
const COMMANDS = Object.keys(COMMAND_OPTIONS) as CommandName[];

/** What `fn` writes on stdout or stderr, and its result. */
function captured<T>(stream: 'stdout' | 'stderr', fn: () => T): { result: T; text: string } {
  const out = process[stream];
  const write = out.write;
  let text = '';
  out.write = ((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  }) as typeof out.write;
  try {
    return { result: fn(), text };
  } finally {
    out.write = write;
  }
}

for (const command of [...COMMANDS, 'lsp']) {
  for (const flag of ['--help', '-h']) {
    test(`hotline ${command} ${flag} prints that command's usage and exits 0, required options or not`, () => {
      const { result, text } = captured('stdout', () => conventionalAnswer(command, [flag]));
      assert.equal(result, 0);
      assert.ok(text.startsWith(`Usage:\n  hotline ${command} `), text.slice(0, 200));
      // Only its own section: no other command's synopsis.
      for (const other of [...COMMANDS, 'lsp'].filter((c) => c !== command))
        assert.ok(!text.includes(`\n  hotline ${other} `), `${command}'s help leaves out ${other}`);
      assert.match(text, /Exit codes: 0 done/);
    });
  }
}

test('hotline help CMD is CMD --help; hotline help alone is still the whole usage', () => {
  const { result, text } = captured('stdout', () => conventionalAnswer('help', ['gate']));
  assert.equal(result, 0);
  assert.ok(text.startsWith('Usage:\n  hotline gate '), text.slice(0, 100));
  assert.equal(conventionalAnswer('help', []), undefined);
  assert.equal(conventionalAnswer('help', ['nope']), undefined);
});

test('an argument after -- is the app\'s: "profile --url / -- --help" is no request for help', () => {
  assert.equal(wantsHelp(['--url', '/', '--', '--help']), false);
  assert.equal(wantsHelp(['--url', '/', '-h', '--', 'x']), true);
  assert.equal(conventionalAnswer('profile', ['--url', '/', '--', '-h']), undefined);
  assert.equal(wantsVerbose(['--', '--verbose']), false);
  assert.equal(wantsVerbose(['--verbose', '--url', '/']), true);
});

test("--version and -v print package.json's version", () => {
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  assert.equal(packageVersion(), version);
  for (const flag of ['--version', '-v']) {
    const { result, text } = captured('stdout', () => conventionalAnswer(flag, []));
    assert.equal(result, 0);
    assert.equal(text, `${version}\n`);
  }
});

test('an unknown option is a usage error that names the option (main.ts adds the help to see)', () => {
  for (const [args, option] of [
    [['--bogus'], '--bogus'],
    [['-x'], '-x'],
  ] as const) {
    assert.throws(
      () => parse([...args], parseConfigOf(COMMAND_OPTIONS.profile)),
      (err: unknown) =>
        err instanceof UsageError && err.unknownOption === option && err.message === `unknown option ${option}`,
    );
  }
});

test("autocannon's short flags: -c -d -m -H -b, and a negative value still gets its range message", () => {
  const { values } = parse(
    ['-c', '100', '-d', '3', '-m', 'POST', '-H', 'content-type=application/json', '-b', '{}', '--url', '/'],
    parseConfigOf(COMMAND_OPTIONS.profile),
  );
  assert.deepEqual(
    { c: values.connections, d: values.duration, m: values.method, h: values.header, b: values.body },
    { c: '100', d: '3', m: 'POST', h: ['content-type=application/json'], b: '{}' },
  );
  assert.equal(parse(['-d', '-1'], parseConfigOf(COMMAND_OPTIONS.gate)).values.duration, '-1');
});

test('no short flag is taken twice in a command, -h included', () => {
  for (const command of COMMANDS) {
    const shorts = [...COMMAND_OPTIONS[command], ...COMMON_OPTIONS].flatMap((o) => (o.short ? [o.short] : []));
    assert.equal(new Set(shorts).size, shorts.length, `${command}: ${shorts.join(' ')}`);
  }
});

test("each command's options are in its help, with their short flags", () => {
  for (const command of COMMANDS) {
    const usage = usageOf(command) ?? '';
    // gate's help names the options it shares with profile in one list: "--warmup, …: as for profile".
    const help = command === 'gate' ? `${usage}\n${usageOf('profile') ?? ''}` : usage;
    for (const o of COMMAND_OPTIONS[command]) {
      assert.ok(usage.includes(`--${o.name}`), `${command} --help names --${o.name}`);
      if (o.short) assert.ok(help.includes(`-${o.short}, --${o.name}`), `${command} --help shows -${o.short}`);
    }
  }
});

test("--header takes K:V and autocannon's K=V, split where the first of them is", () => {
  assert.deepEqual(headersOf(['a:b', 'c=d', 'authorization:Basic YWxhZGRpbg==', 'cookie=x=1; y=2', 'x-t: 1:2']), {
    a: 'b',
    c: 'd',
    authorization: 'Basic YWxhZGRpbg==',
    cookie: 'x=1; y=2',
    'x-t': '1:2',
  });
  assert.throws(() => headersOf(['no-separator']), /--header takes NAME:VALUE or NAME=VALUE/);
  assert.throws(() => headersOf([':x']), UsageError);
});

test('DEBUG=hotline, as the debug package reads DEBUG', () => {
  for (const on of ['hotline', 'express,hotline', 'express hotline', '*', 'hot*']) assert.ok(debugWants(on), on);
  for (const off of [undefined, '', 'express', 'hotline:x', '-hotline', 'hotlines']) assert.ok(!debugWants(off), off);
});

const events: RunProgress[] = [
  { phase: 'starting', message: 'running npm start' },
  { phase: 'starting', message: 'the app is process 12 (node server.js), listening on port 3000' },
  { phase: 'warmup', message: 'warm-up: 10 connections', second: 0, of: 2 },
  { phase: 'warmup', message: 'warm-up: 800 req/s', second: 1, of: 2, requestsPerSecond: 800 },
  { phase: 'measuring', message: 'measuring (profiler off)', second: 0, of: 10, requestsPerSecond: 800 },
  { phase: 'measuring', message: 'measuring (profiler off): 810 req/s', second: 1, of: 10, requestsPerSecond: 810 },
  { phase: 'profiling', message: 'profiling', second: 0, of: 10, requestsPerSecond: 810 },
  { phase: 'measuring', message: 'measuring (profiler off)', second: 2, of: 10, requestsPerSecond: 790 },
  { phase: 'analyzing', message: 'stopping the app' },
];

test('a load second is a tick, a window or a start is a step', () => {
  assert.deepEqual(
    events.map((e) => isTick(e)),
    [false, false, false, true, false, true, false, false, false],
  );
});

test('--verbose: one timed line on stderr for each step of the run, none for the load seconds', () => {
  setVerbose(true);
  try {
    const { text } = captured('stderr', () => {
      const print = progressPrinter();
      for (const e of events) print(e);
      print.end();
    });
    const lines = text.trimEnd().split('\n');
    assert.equal(lines.length, 7, text);
    for (const l of lines) assert.match(l, /^hotline: \+\d+\.\d s \S/);
    assert.match(lines[0], /running npm start$/);
    assert.match(lines[4], /profiling \[0\/10 s\]$/);
    assert.match(lines[5], /measuring \(profiler off\) \[2\/10 s\]$/);
  } finally {
    setVerbose(false);
  }
});

test('without --verbose, the steps of one phase are not repeated on a pipe', () => {
  setVerbose(false);
  const { text } = captured('stderr', () => {
    const print = progressPrinter();
    for (const e of events) print(e);
    print.end();
  });
  assert.ok(!/\+\d+\.\d s/.test(text), text);
});
