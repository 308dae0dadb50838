// scripts/test-all.mjs, behind `npm test`: a failing tier does not stop the later ones, the summary
// has one line per tier and names the failed one, the exit is non-zero; a tier needing a failed one
// is skipped and said; a failed setup tier stops everything with one line.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';

const SCRIPT = path.resolve(__dirname, '..', '..', 'scripts', 'test-all.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotline-test-all-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Tier {
  name: string;
  command: string[];
  needs?: string[];
  after?: string[];
  gate?: boolean;
  background?: boolean;
}

/** A tier that leaves a mark (so a test sees it ran) and exits with `code`. */
const tier = (name: string, code: number, extra: Partial<Tier> = {}): Tier => ({
  name,
  command: [
    process.execPath,
    '-e',
    `require('fs').writeFileSync(${JSON.stringify(path.join(dir, `${name}.ran`))}, ''); process.exit(${code})`,
  ],
  ...extra,
});

function runAll(tiers: Tier[], args: string[] = []): Promise<{ code: number | null; out: string; err: string }> {
  const file = path.join(dir, 'tiers.json');
  fs.writeFileSync(file, JSON.stringify(tiers));
  for (const t of tiers) fs.rmSync(path.join(dir, `${t.name}.ran`), { force: true });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, '--tiers', file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

const ran = (name: string): boolean => fs.existsSync(path.join(dir, `${name}.ran`));
const summary = (out: string): string[] => out.slice(out.lastIndexOf('test tiers:')).trim().split('\n').slice(1);

test('a failing tier: the later tiers still run, the summary names it, the exit is non-zero', async () => {
  const r = await runAll([
    tier('setup', 0, { gate: true }),
    tier('build', 0),
    tier('unit', 1),
    tier('server', 0, { needs: ['build'] }),
    tier('webview', 0, { needs: ['build'] }),
  ]);
  assert.equal(r.code, 1, r.out + r.err);
  for (const name of ['setup', 'build', 'unit', 'server', 'webview']) assert.ok(ran(name), `${name} ran`);
  const lines = summary(r.out);
  assert.equal(lines.length, 6, r.out);
  assert.match(lines[0], /^✔ setup\s+passed/);
  assert.match(lines[2], /^✖ unit\s+failed \(exit 1, /);
  assert.match(lines[3], /^✔ server\s+passed/);
  assert.match(lines[4], /^✔ webview\s+passed/);
  assert.equal(lines[5], '1 of 5 tiers did not pass: unit');
});

test('a tier that needs a failed one is skipped and named; all passing exits 0', async () => {
  const r = await runAll([tier('build', 2), tier('lint', 0), tier('webview', 0, { needs: ['build'] })]);
  assert.equal(r.code, 1);
  assert.ok(ran('lint'));
  assert.ok(!ran('webview'), 'a tier on a failed build does not run');
  const lines = summary(r.out);
  assert.match(lines[0], /^✖ build\s+failed \(exit 2, /);
  assert.match(lines[2], /^- webview\s+skipped \(skipped: build did not pass\)$/);
  assert.equal(lines[3], '2 of 3 tiers did not pass: build, webview');

  const ok = await runAll([tier('build', 0), tier('webview', 0, { needs: ['build'] })]);
  assert.equal(ok.code, 0, ok.out + ok.err);
  assert.equal(summary(ok.out).at(-1), 'all 2 tiers passed');
});

test('a failed setup tier stops everything with one line and its exit code', async () => {
  const r = await runAll([tier('setup', 3, { gate: true }), tier('unit', 0)]);
  assert.equal(r.code, 3);
  assert.ok(!ran('unit'));
  assert.equal(r.err.trim(), '✖ setup failed (exit 3): no tier ran.');
  assert.doesNotMatch(r.out, /test tiers:/);
});

test('--only runs a subset in order and drops needs on tiers left out', async () => {
  const r = await runAll(
    [tier('build', 1), tier('unit', 0), tier('webview', 0, { needs: ['build'] })],
    ['--only', 'webview,unit'],
  );
  assert.equal(r.code, 0, r.out + r.err);
  assert.ok(!ran('build') && ran('unit') && ran('webview'));
  assert.equal((await runAll([tier('unit', 0)], ['--only', 'nope'])).code, 2);
});

test('a background tier runs beside the next ones; a tier after it waits for its end and sees its output first', async () => {
  // The background tier ends only once a later foreground tier has run (it waits for that tier's
  // mark): run in turn, it gives up after 10 s and fails; `integration` (after it) must find its mark.
  const mark = (name: string): string => JSON.stringify(path.join(dir, `${name}.ran`));
  const slow: Tier = {
    name: 'build-vscode',
    background: true,
    command: [
      process.execPath,
      '-e',
      `const fs = require('fs');
       const t = setInterval(() => {
         if (!fs.existsSync(${mark('unit')})) return;
         clearInterval(t);
         console.log('built in the background');
         fs.writeFileSync(${mark('build-vscode')}, '');
         process.exit(${'${CODE}'});
       }, 20);
       setTimeout(() => process.exit(7), 10000);`,
    ],
  };
  const waitsFor = (name: string, code: number, extra: Partial<Tier>): Tier => ({
    ...tier(name, code, extra),
    command: [
      process.execPath,
      '-e',
      `if (!require('fs').existsSync(${mark('build-vscode')})) process.exit(9);
       require('fs').writeFileSync(${mark(name)}, ''); process.exit(${code})`,
    ],
  });
  const withCode = (t: Tier, code: number): Tier => ({
    ...t,
    command: t.command.map((c) => c.replace('${CODE}', String(code))),
  });
  const r = await runAll([
    tier('setup', 0, { gate: true }),
    withCode(slow, 0),
    tier('unit', 0),
    waitsFor('integration', 0, { after: ['build-vscode'] }),
    waitsFor('e2e', 0, { needs: ['build-vscode'] }),
  ]);
  assert.equal(r.code, 0, r.out + r.err);
  assert.ok(ran('integration') && ran('e2e'));
  // Its output is printed as a block before the tier that waited for it.
  assert.ok(r.out.indexOf('built in the background') < r.out.indexOf('▶ integration'), r.out);
  assert.match(r.out, /▶ build-vscode \(ran in the background, \d+ s\):\nbuilt in the background/);
  assert.match(summary(r.out)[1], /^✔ build-vscode\s+passed/);

  // Failed: a tier that needs it is skipped, one that only runs after it still runs.
  const failed = await runAll([
    withCode(slow, 4),
    tier('unit', 0),
    waitsFor('integration', 0, { after: ['build-vscode'] }),
    waitsFor('e2e', 0, { needs: ['build-vscode'] }),
  ]);
  assert.equal(failed.code, 1, failed.out + failed.err);
  assert.ok(ran('integration') && !ran('e2e'));
  const lines = summary(failed.out);
  assert.match(lines[0], /^✖ build-vscode\s+failed \(exit 4, /);
  assert.match(lines[3], /^- e2e\s+skipped \(skipped: build-vscode did not pass\)$/);

  // Nothing waits for it: it is still waited for, and reported, before the summary.
  const alone = await runAll([withCode(slow, 0), tier('unit', 0)]);
  assert.equal(alone.code, 0, alone.out + alone.err);
  assert.match(summary(alone.out)[0], /^✔ build-vscode\s+passed/);
});
